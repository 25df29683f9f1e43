/**
 * Failures after which nothing more is sent (a key that is not accepted, a suspended account,
 * credits that ran out, a service that is not available), and the credentials whose requests a
 * success has proven, for one engine run of an execution (see runItems.ts).
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { withOutcome } from '../transport';
import type { ItemError } from './itemErrors';

/**
 * Whether nothing more can be sent after this error, as the transport marked it from the API's
 * profile: with the same credential for the rest of the execution (the key is not accepted, the
 * account is suspended, the prepaid credits ran out), or in this node run (its service is not
 * available).
 */
export function haltOf(error: ItemError): 'execution' | 'run' | undefined {
	const halts = error.context?.halts;
	return halts === 'execution' || halts === 'run' ? halts : undefined;
}

/** A failure after which nothing more is sent, and where it happened. */
export interface Halt {
	error: ItemError;
	code: string;
	node: string;
	itemIndex: number;
}

interface ExecutionState {
	/** By credential: the failure after which nothing more is sent with it. */
	halts: Map<string, Halt>;
	/** Credential and node pairs whose requests have been proven by a success. */
	proven: Set<string>;
}

/**
 * Halts and proven credentials, for one engine run of an execution: keyed by n8n's cancel
 * signal, one per execution run and shared by all its nodes. They are not kept across a park
 * on purpose (see executionMemory.ts): a halt saves requests, it does not make anything safe.
 */
const executions = new WeakMap<object, ExecutionState>();

export function executionState(ctx: IExecuteFunctions): ExecutionState {
	const scope = ctx.getExecutionCancelSignal?.() ?? ctx;
	let state = executions.get(scope);
	if (!state) {
		state = { halts: new Map(), proven: new Set() };
		executions.set(scope, state);
	}
	return state;
}

/** The credentials a node uses (those of `type` when it names one), as one key: type and id. */
export function credentialKey(ctx: IExecuteFunctions, type?: string): string {
	const credentials = ctx.getNode().credentials ?? {};
	return Object.keys(credentials)
		.filter((name) => type === undefined || name === type)
		.sort()
		.map((type) => `${type}:${credentials[type]?.id ?? credentials[type]?.name ?? ''}`)
		.join('|');
}

/** The error of an item that was not sent because of an earlier failure. */
export function haltedError(
	ctx: IExecuteFunctions,
	halt: Halt,
	itemIndex: number,
	scope: 'execution' | 'run',
): ItemError {
	const where =
		halt.node === ctx.getNode().name
			? `item ${halt.itemIndex + 1} of this node`
			: `node "${halt.node}"`;
	const after =
		scope === 'execution'
			? 'after such a failure no further request is sent with this credential in this execution'
			: 'after such a failure no further item of this node run is sent';
	const error: ItemError = new NodeOperationError(ctx.getNode(), halt.error.message, {
		itemIndex,
		description: `Not sent: ${where} failed with ${halt.code}, and ${after}.${halt.error.description ? ` ${halt.error.description}` : ''}`,
	});
	if (halt.error.httpCode) error.httpCode = halt.error.httpCode;
	error.context = { ...error.context, apiCode: halt.code };
	for (const key of ['topUpUrl', 'carrierCode'] as const) {
		if (halt.error.context?.[key] !== undefined) error.context[key] = halt.error.context[key];
	}
	return withOutcome(error, 'notSent');
}
