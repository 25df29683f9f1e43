/**
 * Runs an operation over a node's input items the way our users need it:
 *
 * 1. Every item's parameters are read and checked first (`prepare`). Bad input never
 *    reaches the network: with Continue On Fail the item becomes an error item, without it
 *    the node stops before a single request is sent.
 * 2. One request goes out alone first. Only once one has succeeded are the rest sent
 *    concurrently, so a run of many items against a bad key or an empty balance costs one
 *    request, not one per item. (Per execution, credential and node: a node that runs again in
 *    the same execution, in a loop, starts concurrently once it has succeeded.)
 * 3. The prepared items are then sent concurrently (`run`); the rate limiter in the transport
 *    decides the real pace. Items an operation gives the same sequence key (SMS to one
 *    recipient) go one after another, in item order. Output keeps input order, with
 *    `pairedItem`.
 *
 * Some failures mean no further request can succeed: a key that is not accepted, a suspended
 * account, credits that have run out. After one, no further request goes out with that
 * credential in this run of the execution (this node's later items, and later nodes using the
 * same credential): the remaining items fail with that error, or become error items with
 * Continue On Fail, without a request. A service that is not available stops the rest of this
 * node run.
 *
 * Without Continue On Fail, the first failed request stops new ones from starting; requests
 * already under way finish, and the error says which items were carried out and which have an
 * unknown outcome, because n8n discards a failed node's output. What a failed run carried out
 * is kept with the execution for the node's next run (`Operation.once`).
 */
import { createHash } from 'node:crypto';

import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { nodeRecord } from './executionMemory';
import { PhoneNumberError } from './phone';
import { outcomeOf, withOutcome, type WriteOutcome } from './transport';

export interface Operation<P> {
	prepare(this: IExecuteFunctions, itemIndex: number): P | Promise<P>;
	run(
		this: IExecuteFunctions,
		prepared: P,
		itemIndex: number,
	): Promise<IDataObject | IDataObject[]>;
	/**
	 * Items with the same key are carried out one after another, in item order (several SMS to
	 * one person arrive in the order the workflow gave them, even when one had to be retried).
	 * Items with different keys, or none, still go concurrently.
	 */
	sequenceKey?(prepared: P): string | undefined;
	/**
	 * Items in flight at once in one node run (default 16). An API with a documented cap on
	 * concurrent requests sets it to that cap; the transport's limiter still decides the pace.
	 */
	concurrency?: number;
	/**
	 * The operation carries something out that must happen once (a send, a call, a paid
	 * request). Its failed items say whether they were not sent, refused or have an unknown
	 * outcome (`outcome`), and when n8n runs the node again after a failed run in the same
	 * execution (Retry On Fail, an AI agent's tool retry, or the editor's Retry of the failed
	 * execution) an item carried out by the failed run returns that run's result, and an item
	 * whose outcome was unknown fails again the same way: neither is sent again.
	 */
	once?: boolean;
	/**
	 * The item in a few words, for the error that lists what was carried out when the node
	 * stops ("SMS to +447700900123"). No secrets: it is shown to the user.
	 */
	describe?(prepared: P): string;
}

/**
 * A node's operations, typed from the map of its resources to their operation names: a
 * resource or operation without a handler is a compile error, not a failed run.
 * (`Operation<unknown>` holds any operation: each prepares and runs its own item type.)
 */
export type OperationTable<Resources> = {
	[R in keyof Resources]: { [O in Resources[R] & string]: Operation<unknown> };
};

/** The handler for the resource and operation a node was saved with, if there is one. */
export function findOperation<Resources>(
	table: OperationTable<Resources>,
	resource: string,
	operation: string,
): Operation<unknown> | undefined {
	if (!Object.hasOwn(table, resource)) return undefined;
	const operations = table[resource as keyof Resources] as Record<string, Operation<unknown>>;
	return Object.hasOwn(operations, operation) ? operations[operation] : undefined;
}

/** In flight at once per node run, unless the operation says otherwise; the rate limiter still caps what reaches the API. */
const CONCURRENCY = 16;

/** Parameter problems found by pure helpers become the node's per-item errors. */
function toItemError(ctx: IExecuteFunctions, error: unknown, itemIndex: number): Error {
	if (error instanceof PhoneNumberError)
		return new NodeOperationError(ctx.getNode(), error.message, { itemIndex });
	if (error instanceof NodeOperationError || (error as { name?: string })?.name === 'NodeApiError')
		return error as Error;
	return new NodeOperationError(ctx.getNode(), (error as Error)?.message ?? String(error), {
		itemIndex,
	});
}

type ItemError = Error & {
	description?: string | null;
	httpCode?: string | null;
	context?: IDataObject;
};

/** The fields of an error that an error item shows and the memory of a failed run keeps. */
const ERROR_FIELDS = ['apiCode', 'topUpUrl', 'carrierCode', 'outcome'] as const;

function errorItem(error: ItemError, itemIndex: number): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	if (error.description) json.description = error.description;
	if (error.httpCode) json.httpCode = error.httpCode;
	for (const key of ERROR_FIELDS) {
		if (error.context?.[key] !== undefined) json[key] = error.context[key];
	}
	return { json, pairedItem: { item: itemIndex } };
}

/**
 * API codes after which no request with the same credential can succeed for the rest of the
 * execution: the key is not accepted, the account is suspended, the prepaid credits ran out.
 */
const HALTS_EXECUTION = new Set([
	'INSUFFICIENT_CREDITS',
	'INVALID_API_KEY',
	'MISSING_API_KEY',
	'invalid_api_key',
	'missing_api_key',
	'key_disabled',
	'account_suspended',
]);

/** API codes after which no further item of this node run can succeed: its service is not available. */
const HALTS_RUN = new Set(['SERVICE_UNAVAILABLE']);

/** A failure after which nothing more is sent, and where it happened. */
interface Halt {
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
 * What a failed run of a node carried out (its output) or left unknown (its error), by item
 * index, kept with the execution (executionMemory.ts) for the node's next run: n8n runs it again
 * with the same input after a failure (Retry On Fail; an AI agent's tool retry, at the next run
 * index; the editor's Retry of the failed execution, from its saved data). An item is the same
 * item when its index and prepared request are. A run that ends without an error forgets it.
 */
interface Remembered {
	/** The item's prepared request: an item whose content changed is not the same item. */
	digest: string;
	output?: IDataObject | IDataObject[];
	error?: StoredError;
}

/** What an item of this run came to, before it is kept (its digest is worked out only then). */
type Carried = Omit<Remembered, 'digest'> & { digest?: string };

/** An error as JSON, so that it can be saved with the execution. */
interface StoredError {
	message: string;
	description?: string;
	httpCode?: string;
	context: IDataObject;
}

function storedError(error: ItemError): StoredError {
	const context: IDataObject = {};
	for (const key of ERROR_FIELDS) {
		if (error.context?.[key] !== undefined) context[key] = error.context[key];
	}
	return {
		message: error.message,
		description: error.description ?? undefined,
		httpCode: error.httpCode ?? undefined,
		context,
	};
}

function restoredError(ctx: IExecuteFunctions, stored: StoredError, itemIndex: number): ItemError {
	const error: ItemError = new NodeOperationError(ctx.getNode(), stored.message, {
		itemIndex,
		description: [
			stored.description,
			'An earlier try of this node in this execution left this outcome unknown, so this execution does not send it again; to send it after checking, run the workflow again.',
		]
			.filter(Boolean)
			.join(' '),
	});
	// NodeOperationError rewrites some messages; the item keeps the words it failed with.
	error.message = stored.message;
	if (stored.httpCode) error.httpCode = stored.httpCode;
	error.context = { ...error.context, ...stored.context };
	return error;
}

/** The memory of the node's last failed run in this execution, for an operation that must happen once. */
function triesOf(
	ctx: IExecuteFunctions,
	operation: Operation<unknown>,
): Record<string, Remembered> | undefined {
	if (!operation.once) return undefined;
	const kept = nodeRecord(ctx, false)?.failedRun;
	return kept && typeof kept === 'object' ? (kept as Record<string, Remembered>) : {};
}

/** The identifier an output item carries (an SMS's messageId, a call's callId), in words. */
function idOf(json: IDataObject | undefined): string | undefined {
	for (const key of ['messageId', 'callId', 'id']) {
		const value = json?.[key];
		if (typeof value === 'string' || typeof value === 'number') return `${key} ${value}`;
	}
	return undefined;
}

function digestOf(value: unknown): string {
	return createHash('sha256')
		.update(JSON.stringify(value) ?? '')
		.digest('hex');
}

/**
 * Halts and proven credentials, for one engine run of an execution: keyed by n8n's cancel
 * signal, one per execution run and shared by all its nodes. They are not kept across a park
 * on purpose (see executionMemory.ts): a halt saves requests, it does not make anything safe.
 */
const executions = new WeakMap<object, ExecutionState>();

function executionState(ctx: IExecuteFunctions): ExecutionState {
	const scope = ctx.getExecutionCancelSignal?.() ?? ctx;
	let state = executions.get(scope);
	if (!state) {
		state = { halts: new Map(), proven: new Set() };
		executions.set(scope, state);
	}
	return state;
}

/** The credentials a node uses (those of `type` when it names one), as one key: type and id. */
function credentialKey(ctx: IExecuteFunctions, type?: string): string {
	const credentials = ctx.getNode().credentials ?? {};
	return Object.keys(credentials)
		.filter((name) => type === undefined || name === type)
		.sort()
		.map((type) => `${type}:${credentials[type]?.id ?? credentials[type]?.name ?? ''}`)
		.join('|');
}

function apiCodeOf(error: ItemError): string | undefined {
	const code = error.context?.apiCode;
	return typeof code === 'string' ? code : undefined;
}

/** The error of an item that was not sent because of an earlier failure. */
function haltedError(
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

type Entry<P> = { itemIndex: number; value: P };

/**
 * `credentialType`: the credential the operation sends with, so that a failure that stops it
 * stops only the nodes using that same credential (without it, every credential on the node).
 */
export async function runItems<P>(
	ctx: IExecuteFunctions,
	operation: Operation<P>,
	{ credentialType }: { credentialType?: string } = {},
): Promise<INodeExecutionData[]> {
	const count = ctx.getInputData().length;
	const continueOnFail = ctx.continueOnFail();
	const results: INodeExecutionData[][] = new Array(count);
	const prepared: Array<Entry<P>> = [];

	for (let i = 0; i < count; i++) {
		try {
			prepared.push({ itemIndex: i, value: await operation.prepare.call(ctx, i) });
		} catch (error) {
			const itemError = toItemError(ctx, error, i);
			// Bad input never reaches the network.
			if (operation.once) withOutcome(itemError, 'notSent');
			if (!continueOnFail) throw itemError;
			results[i] = [errorItem(itemError, i)];
		}
	}

	// Lanes: the items of one sequence key, in item order; an item without a key is a lane alone.
	// Lanes start in the order of their first item.
	const lanes: Array<Array<Entry<P>>> = [];
	const laneOfKey = new Map<string, Array<Entry<P>>>();
	for (const entry of prepared) {
		const key = operation.sequenceKey?.(entry.value);
		const existing = key === undefined ? undefined : laneOfKey.get(key);
		if (existing) {
			existing.push(entry);
			continue;
		}
		const lane = [entry];
		lanes.push(lane);
		if (key !== undefined) laneOfKey.set(key, lane);
	}

	const state = executionState(ctx);
	const credential = credentialKey(ctx, credentialType);
	const provenKey = `${credential}|${ctx.getNode().name}`;
	let runHalt: Halt | undefined;

	const failure: { stop?: { error: Error; itemIndex: number } } = {};
	/** Keeps the failure of the earliest item, which is the one n8n would have stopped on. */
	const recordStop = (error: Error, itemIndex: number) => {
		const current = failure.stop;
		if (!current || itemIndex < current.itemIndex) failure.stop = { error, itemIndex };
	};
	const fail = (error: ItemError, itemIndex: number) => {
		if (continueOnFail) results[itemIndex] = [errorItem(error, itemIndex)];
		else recordStop(error, itemIndex);
	};
	const done: number[] = [];

	const earlierRun = triesOf(ctx, operation as Operation<unknown>);
	/** What this run carried out or left unknown, kept for the next run if this one fails. */
	const thisRun = new Map<number, Carried>();
	/** Items whose outcome is unknown, for the error the node may stop with. */
	const unknown: number[] = [];

	/** Carries out one item (or fails it without a request after a halt); true when it succeeded. */
	const runOne = async ({ itemIndex, value }: Entry<P>): Promise<boolean> => {
		const halt = state.halts.get(credential);
		if (halt || runHalt) {
			fail(
				halt
					? haltedError(ctx, halt, itemIndex, 'execution')
					: haltedError(ctx, runHalt!, itemIndex, 'run'),
				itemIndex,
			);
			return false;
		}
		try {
			const output = await operation.run.call(ctx, value, itemIndex);
			if (earlierRun) thisRun.set(itemIndex, { output });
			setOutput(itemIndex, output);
			done.push(itemIndex);
			return true;
		} catch (error) {
			const itemError: ItemError = toItemError(ctx, error, itemIndex);
			if (operation.once) {
				// Unknown unless the error proves otherwise (the transport marks what it proved).
				const outcome: WriteOutcome = outcomeOf(error);
				withOutcome(itemError, outcome);
				if (outcome === 'unknown') {
					unknown.push(itemIndex);
					thisRun.set(itemIndex, { error: storedError(itemError) });
				}
			}
			const code = apiCodeOf(itemError);
			const found = { error: itemError, code: code ?? '', node: ctx.getNode().name, itemIndex };
			if (code && HALTS_EXECUTION.has(code) && !state.halts.has(credential))
				state.halts.set(credential, found);
			if (code && HALTS_RUN.has(code)) runHalt ??= found;
			fail(itemError, itemIndex);
			return false;
		}
	};
	const setOutput = (itemIndex: number, output: IDataObject | IDataObject[]) => {
		results[itemIndex] = (Array.isArray(output) ? output : [output]).map((json) => ({
			json,
			pairedItem: { item: itemIndex },
		}));
	};

	// What the node's failed run before this one carried out, or left unknown, comes back as it
	// was before anything is sent: never sent again, and listed whatever stops this run.
	if (earlierRun && Object.keys(earlierRun).length > 0) {
		for (const lane of lanes) {
			for (let n = lane.length - 1; n >= 0; n--) {
				const { itemIndex, value } = lane[n];
				const earlier = earlierRun[itemIndex];
				if (!earlier || earlier.digest !== digestOf(value)) continue;
				lane.splice(n, 1);
				thisRun.set(itemIndex, earlier);
				if (earlier.error) {
					unknown.push(itemIndex);
					fail(restoredError(ctx, earlier.error, itemIndex), itemIndex);
				} else {
					setOutput(itemIndex, earlier.output!);
					done.push(itemIndex);
				}
			}
		}
	}

	// One request alone first, until one succeeds (an item whose own input the API refused does
	// not open the way for the rest): then the others may go concurrently.
	if (!state.proven.has(provenKey)) {
		while (!failure.stop) {
			let first: Array<Entry<P>> | undefined;
			for (const lane of lanes)
				if (lane.length && (!first || lane[0].itemIndex < first[0].itemIndex)) first = lane;
			if (!first) break;
			if (await runOne(first.shift()!)) {
				state.proven.add(provenKey);
				break;
			}
		}
	}

	let next = 0;
	const worker = async () => {
		while (next < lanes.length && !failure.stop) {
			for (const entry of lanes[next++]) {
				if (failure.stop) break;
				await runOne(entry);
			}
		}
	};
	const open = lanes.filter((lane) => lane.length).length;
	await Promise.all(
		Array.from({ length: Math.min(operation.concurrency ?? CONCURRENCY, open) }, worker),
	);

	// Kept for the node's next run only if n8n may run it again (it throws, or, with Retry On Fail,
	// its first item is an error item: n8n-core retries then too); JSON, saved with the execution.
	if (earlierRun) {
		const firstFailed = results[0]?.[0]?.json.error !== undefined;
		if (failure.stop || (firstFailed && ctx.getNode().retryOnFail === true)) {
			const valueOf = new Map(prepared.map((entry) => [entry.itemIndex, entry.value]));
			const kept: Record<string, Remembered> = {};
			for (const [itemIndex, item] of thisRun)
				kept[itemIndex] = { ...item, digest: item.digest ?? digestOf(valueOf.get(itemIndex)) };
			nodeRecord(ctx).failedRun = kept as unknown as IDataObject;
		} else if (Object.keys(earlierRun).length > 0) delete nodeRecord(ctx).failedRun;
	}

	if (failure.stop) {
		const error = failure.stop.error as ItemError;
		const stoppedAt = failure.stop.itemIndex;
		const others = unknown.filter((i) => i !== stoppedAt);
		if (done.length || others.length) {
			const valueOf = new Map(prepared.map((entry) => [entry.itemIndex, entry.value]));
			const describe = (i: number) => {
				const what = operation.describe?.(valueOf.get(i) as P);
				const id = idOf(results[i]?.[0]?.json);
				const details = [what, id].filter(Boolean).join(', ');
				return `item ${i + 1}${details ? ` (${details})` : ''}`;
			};
			const list = (indexes: number[]) =>
				[...indexes]
					.sort((a, b) => a - b)
					.map(describe)
					.join('; ');
			const parts = [error.description ?? ''];
			if (done.length)
				parts.push(
					`Before the node stopped, these items (numbered from 1) were already carried out: ${list(done)}. Their results are not in the output, so running the node again would repeat them.`,
				);
			if (others.length)
				parts.push(
					`The outcome of these items is unknown, and this execution will not send them again: ${list(others)}. Check whether they were carried out (each item's error says how many times it was sent and where to look) before sending them again.`,
				);
			parts.push(
				`Items not listed were not carried out: they were not sent, or the API refused them. Set "On Error" to "Continue" to keep going past failed items.`,
			);
			error.description = parts.filter(Boolean).join(' ');
		}
		throw error;
	}
	return results.flat().filter(Boolean);
}
