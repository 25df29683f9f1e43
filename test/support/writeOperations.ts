/**
 * Every operation of both action nodes that sends, calls or spends, as a workflow a user would
 * save, with what is needed to judge a run: which requests belong to which item (a key unique to
 * the item, found in the request's body), whether the server acted on one, and what an item costs
 * under the Spending Cap. For the fault-point matrix and the fault-schedule property test.
 *
 * How n8n may run the node again, and what the node then evaluates differently, are dimensions of
 * their own (`runWrite`): On Error: Continue; Retry On Fail; the editor's Retry of the failed
 * execution with the workflow as the user saved it since (its text edited, the Spending Cap raised
 * by one item's price); parameters with a part that evaluates differently on every try
 * (`Math.random()`, as `$now` does between tries); and a loop that hands the node the same items
 * again on a second pass.
 */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeParameters,
} from 'n8n-workflow';

import {
	CREDENTIAL_REFS,
	retryFailedExecution,
	runWorkflow,
	START,
	type WorkflowJson,
	type WorkflowResult,
} from '../../harness';
import type { Sandbox } from '../../sandbox';
import { LoopFixture } from './loop';

/** What the node evaluates for an item, beyond its key. */
export interface Variant {
	/** A part that evaluates differently on every try (n8n evaluates expressions again on each). */
	perTry?: boolean;
	/** The parameters as the user edited them before the editor's Retry. */
	edited?: boolean;
}

/** An item's text: its key from the input, then what the variant adds. */
const text = (variant: Variant, base = '{{ $json.text }}') =>
	`=${base}${variant.perTry ? ' ({{ Math.random() }})' : ''}${variant.edited ? ' (edited)' : ''}`;

export interface WriteOperation {
	name: string;
	api: 'account' | 'unified';
	/** Send and Wait takes one item; the others are run with several. */
	oneItem?: boolean;
	/** A call: never placed twice. */
	call?: boolean;
	/** What one item costs against the Spending Cap, in pence (Unified). */
	pence?: number;
	parameters(sandbox: Sandbox, variant: Variant): INodeParameters;
	/** The input item that carries `key`, a string unique to the item that its request's body holds. */
	input(key: string): IDataObject;
	/** A key from a serial number: text, or a phone number for the operations whose body has no text. */
	key(serial: number): string;
	path(sandbox: Sandbox): string;
	/** The status of the server's success. */
	successStatus: number;
}

const textKey = (serial: number) => `fm-${String(serial).padStart(6, '0')}-`;
/** Numbers nothing else in these runs uses, so a call's `to` names its item. */
const numberKey = (serial: number) => `+4479111${String(serial % 100_000).padStart(5, '0')}`;
const CUSTOMER = '+447700900123';

const accountSms = (operation: 'send' | 'sendAndWait'): WriteOperation => ({
	name: `Comms Account SMS ${operation === 'send' ? 'Send' : 'Send and Wait'}`,
	api: 'account',
	oneItem: operation === 'sendAndWait',
	parameters: (sandbox, variant) => ({
		resource: 'sms',
		operation,
		phoneDocId: { __rl: true, mode: 'id', value: sandbox.numbers.main },
		to: CUSTOMER,
		message: text(variant),
		...(operation === 'sendAndWait' ? { responseType: 'freeText' } : {}),
	}),
	input: (key) => ({ text: `Your order ${key} is ready` }),
	key: textKey,
	path: () => '/v1/sms',
	successStatus: 201,
});

const accountCall = (mode: 'manual' | 'ai'): WriteOperation => ({
	name: `Comms Account Call Create (${mode})`,
	api: 'account',
	call: true,
	parameters: (sandbox, variant) => ({
		resource: 'call',
		operation: 'create',
		phoneDocId: { __rl: true, mode: 'id', value: sandbox.numbers.main },
		to: '={{ $json.to }}',
		mode,
		// A manual call has no text: its agent's number is what varies (one of 90 on every try).
		...(mode === 'manual'
			? {
					agentPhone: variant.perTry
						? "={{ '+4477009003' + (10 + Math.floor(Math.random() * 90)) }}"
						: variant.edited
							? '+447700900302'
							: '+447700900301',
				}
			: { customerName: text(variant, 'Sam') }),
	}),
	input: (key) => ({ to: key }),
	key: numberKey,
	path: () => '/v1/calls',
	successStatus: 201,
});

const unifiedPath = (sandbox: Sandbox) => new URL(sandbox.unifiedUrl).pathname;

const unified = (
	name: string,
	pence: number,
	parameters: (text: string) => INodeParameters,
	input: (key: string) => IDataObject,
	extra: Partial<WriteOperation> = {},
): WriteOperation => ({
	name: `Comms Unified ${name}`,
	api: 'unified',
	pence,
	parameters: (_sandbox, variant) => ({
		...parameters(text(variant)),
		options: {
			// Edited: raised by one item's price.
			spendingCapPence: variant.edited
				? `={{ $json.cap === undefined ? undefined : $json.cap + ${pence} }}`
				: '={{ $json.cap }}',
		},
	}),
	input,
	key: textKey,
	path: unifiedPath,
	successStatus: 200,
	...extra,
});

export const WRITE_OPERATIONS: WriteOperation[] = [
	accountSms('send'),
	accountSms('sendAndWait'),
	accountCall('manual'),
	accountCall('ai'),
	unified(
		'Voice Make a Call',
		70,
		(message) => ({ resource: 'voice', operation: 'makeCall', to: CUSTOMER, message }),
		(key) => ({ text: `Remind them of ${key}` }),
		{ call: true },
	),
	unified(
		'SMS Send',
		3,
		(message) => ({ resource: 'sms', operation: 'send', to: CUSTOMER, message }),
		(key) => ({ text: `Your order ${key} is ready` }),
	),
	unified(
		'SMS Send and Wait',
		3,
		(message) => ({
			resource: 'sms',
			operation: 'sendAndWait',
			to: CUSTOMER,
			message,
			responseType: 'freeText',
		}),
		(key) => ({ text: `When suits ${key}` }),
		{ oneItem: true },
	),
	unified(
		'Email Send',
		0.15,
		(subject) => ({
			resource: 'email',
			operation: 'send',
			to: 'customer@example.com',
			subject,
			html: '<p>Hello</p>',
		}),
		(key) => ({ text: `Order ${key}` }),
	),
	unified(
		'AI Chat',
		15,
		(content) => ({
			resource: 'ai',
			operation: 'chat',
			messages: { values: [{ role: 'user', content }] },
		}),
		(key) => ({ text: `Summarise ${key}` }),
	),
];

export interface WorkflowShape {
	continueOnFail: boolean;
	retryOnFail: boolean;
	variant?: Variant;
	/** The node in a loop (Loop Over Items) that hands it this many items a pass. */
	batchSize?: number;
}

/** Start → the operation's node (named Node), with On Error and Retry On Fail as given. */
export function writeWorkflow(
	operation: WriteOperation,
	sandbox: Sandbox,
	{ continueOnFail, retryOnFail, variant = {}, batchSize }: WorkflowShape,
): WorkflowJson {
	const type = `n8n-nodes-comms-api.${operation.api === 'account' ? 'commsAccount' : 'commsUnified'}`;
	const node: INode = {
		id: 'node',
		name: 'Node',
		type,
		typeVersion: 1,
		position: [220, 0],
		parameters: operation.parameters(sandbox, variant),
		credentials: CREDENTIAL_REFS,
		...(continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
		...(retryOnFail ? { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 } : {}),
	};
	if (batchSize === undefined)
		return {
			nodes: [START, node],
			connections: { Start: { main: [[{ node: 'Node', type: 'main', index: 0 }]] } },
		};
	const loop: INode = {
		id: 'loop',
		name: 'Loop',
		type: 'test.loop',
		typeVersion: 1,
		position: [110, 0],
		parameters: { batchSize },
	};
	return {
		nodes: [START, loop, node],
		connections: {
			Start: { main: [[{ node: 'Loop', type: 'main', index: 0 }]] },
			Loop: { main: [[], [{ node: 'Node', type: 'main', index: 0 }]] },
			Node: { main: [[{ node: 'Loop', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

/**
 * How n8n runs the node again after a failure (or does not): On Error: Continue; Retry On Fail;
 * both (n8n then retries while the first item is an error item, and carries on after the last
 * try); or neither, and the editor's Retry of the failed execution.
 */
export type WriteMode = 'continue' | 'retry' | 'retryContinue' | 'editorRetry';

export interface WriteRun {
	/** The execution the judge reads: the editor's Retry of the failed one, when there was one. */
	result: WorkflowResult;
	/** The Spending Cap the last run had, in pence (raised by one item's price when edited). */
	capPence?: number;
}

/**
 * Runs the operation over `input` (items carrying their key, and `cap`) as `mode` says: with On
 * Error: Continue, with Retry On Fail (Max Tries 2), with both, or with neither and then, if the
 * execution failed, the editor's Retry of it with the workflow as the user saved it since. `passes` over 1:
 * in a loop that hands the node the same items on each pass.
 */
export async function runWrite(
	operation: WriteOperation,
	sandbox: Sandbox,
	{
		mode,
		perTry = false,
		passes = 1,
		input,
		credentials,
		capPence,
	}: {
		mode: WriteMode;
		perTry?: boolean;
		passes?: number;
		input: Array<{ json: IDataObject }>;
		credentials: Record<string, ICredentialDataDecryptedObject>;
		capPence?: number;
	},
): Promise<WriteRun> {
	const shape = (edited: boolean): WorkflowShape => ({
		continueOnFail: mode === 'continue' || mode === 'retryContinue',
		retryOnFail: mode === 'retry' || mode === 'retryContinue',
		variant: { perTry, edited },
		...(passes > 1 ? { batchSize: input.length } : {}),
	});
	const options = {
		credentials,
		nodeTypes: { 'test.loop': new LoopFixture() },
	};
	const looped = passes === 1 ? input : Array.from({ length: passes }, () => input).flat();
	const first = await runWorkflow(writeWorkflow(operation, sandbox, shape(false)), {
		...options,
		input: looped,
	});
	if (mode !== 'editorRetry' || !first.error) return { result: first, capPence };
	const retried = await retryFailedExecution(
		writeWorkflow(operation, sandbox, shape(true)),
		first,
		{
			...options,
			loadWorkflow: true,
		},
	);
	return {
		result: retried,
		capPence:
			capPence === undefined || operation.pence === undefined
				? capPence
				: capPence + operation.pence,
	};
}

/** Credentials for an operation's API at `url` (a proxy in front of the sandbox). */
export function credentialsAt(
	operation: WriteOperation,
	sandbox: Sandbox,
	url: string,
): Record<string, ICredentialDataDecryptedObject> {
	return operation.api === 'account'
		? { commsAccountApi: { apiKey: sandbox.credentials.account.unrestricted, baseUrl: url } }
		: {
				commsUnifiedApi: {
					apiKey: sandbox.credentials.unified.live,
					endpointUrl: `${url}${unifiedPath(sandbox)}`,
				},
			};
}

/** The sandbox with room for every run: no rate limit in the way, balances that never run out. */
export function roomForEveryRun(sandbox: Sandbox): void {
	const plenty = { perMinute: 1_000_000, concurrent: 10_000 };
	sandbox.control.updateSettings({
		accountRequestsPerMinute: 1_000_000,
		unifiedLimits: { voice: plenty, sms: plenty, email: plenty, ai: plenty },
	});
	const bucket = { subscription: 1_000_000, topUp: 0 };
	sandbox.control.setBalances({
		minutes: bucket,
		aiMinutes: bucket,
		smsCredits: bucket,
		unifiedCreditsPence: 10_000_000,
	});
}

/** Runs `tasks` with at most `limit` at once; their results in the tasks' order. */
export async function pooled<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
	const results: T[] = new Array(tasks.length);
	let next = 0;
	await Promise.all(
		Array.from({ length: limit }, async () => {
			while (next < tasks.length) {
				const index = next++;
				results[index] = await tasks[index]();
			}
		}),
	);
	return results;
}
