/**
 * Runs an operation over a node's input items the way our users need it:
 *
 * 1. Every item's parameters are read and checked first (`prepare`). Bad input never
 *    reaches the network: with Continue On Fail the item becomes an error item, without it
 *    the node stops before a single request is sent.
 * 2. The prepared items are then sent concurrently (`run`); the per-key rate limiter in the
 *    transport decides the real pace. Items an operation gives the same sequence key (SMS to
 *    one recipient) go one after another, in item order. Output keeps input order, with
 *    `pairedItem`.
 *
 * Without Continue On Fail, the first failed request stops new ones from starting; requests
 * already under way finish, and the error says which items were carried out, because n8n
 * discards a failed node's output and running it again would repeat them.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { PhoneNumberError } from './phone';

export interface Operation<P> {
	prepare(this: IExecuteFunctions, itemIndex: number): P | Promise<P>;
	run(this: IExecuteFunctions, prepared: P, itemIndex: number): Promise<IDataObject | IDataObject[]>;
	/**
	 * Items with the same key are carried out one after another, in item order (several SMS to
	 * one person arrive in the order the workflow gave them, even when one had to be retried).
	 * Items with different keys, or none, still go concurrently.
	 */
	sequenceKey?(prepared: P): string | undefined;
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
export function findOperation<Resources>(table: OperationTable<Resources>, resource: string, operation: string): Operation<unknown> | undefined {
	if (!Object.hasOwn(table, resource)) return undefined;
	const operations = table[resource as keyof Resources] as Record<string, Operation<unknown>>;
	return Object.hasOwn(operations, operation) ? operations[operation] : undefined;
}

/** In flight at once per node run; the rate limiter still caps what reaches the API. */
const CONCURRENCY = 16;

/** Parameter problems found by pure helpers become the node's per-item errors. */
export function toItemError(ctx: IExecuteFunctions, error: unknown, itemIndex: number): Error {
	if (error instanceof PhoneNumberError) return new NodeOperationError(ctx.getNode(), error.message, { itemIndex });
	if (error instanceof NodeOperationError || (error as { name?: string })?.name === 'NodeApiError') return error as Error;
	return new NodeOperationError(ctx.getNode(), (error as Error)?.message ?? String(error), { itemIndex });
}

function errorItem(error: Error & { description?: string | null; httpCode?: string | null; context?: IDataObject }, itemIndex: number): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	if (error.description) json.description = error.description;
	if (error.httpCode) json.httpCode = error.httpCode;
	for (const key of ['apiCode', 'topUpUrl', 'carrierCode'] as const) {
		if (error.context?.[key] !== undefined) json[key] = error.context[key];
	}
	return { json, pairedItem: { item: itemIndex } };
}

export async function runItems<P>(ctx: IExecuteFunctions, operation: Operation<P>): Promise<INodeExecutionData[]> {
	const count = ctx.getInputData().length;
	const continueOnFail = ctx.continueOnFail();
	const results: INodeExecutionData[][] = new Array(count);
	const prepared: Array<{ itemIndex: number; value: P }> = [];

	for (let i = 0; i < count; i++) {
		try {
			prepared.push({ itemIndex: i, value: await operation.prepare.call(ctx, i) });
		} catch (error) {
			const itemError = toItemError(ctx, error, i);
			if (!continueOnFail) throw itemError;
			results[i] = [errorItem(itemError, i)];
		}
	}

	// Lanes: the items of one sequence key, in item order; an item without a key is a lane alone.
	// Lanes start in the order of their first item.
	const lanes: Array<Array<{ itemIndex: number; value: P }>> = [];
	const laneOfKey = new Map<string, Array<{ itemIndex: number; value: P }>>();
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

	let next = 0;
	const failure: { stop?: { error: Error; itemIndex: number } } = {};
	/** Keeps the failure of the earliest item, which is the one n8n would have stopped on. */
	const recordStop = (error: Error, itemIndex: number) => {
		const current = failure.stop;
		if (!current || itemIndex < current.itemIndex) failure.stop = { error, itemIndex };
	};
	const done: number[] = [];
	const worker = async () => {
		while (next < lanes.length && !failure.stop) {
			for (const { itemIndex, value } of lanes[next++]) {
				if (failure.stop) break;
				try {
					const output = await operation.run.call(ctx, value, itemIndex);
					results[itemIndex] = (Array.isArray(output) ? output : [output]).map((json) => ({ json, pairedItem: { item: itemIndex } }));
					done.push(itemIndex);
				} catch (error) {
					const itemError = toItemError(ctx, error, itemIndex);
					if (continueOnFail) results[itemIndex] = [errorItem(itemError, itemIndex)];
					else recordStop(itemError, itemIndex);
				}
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(CONCURRENCY, lanes.length) }, worker));

	if (failure.stop) {
		const error = failure.stop.error as Error & { description?: string | null };
		if (done.length) {
			const list = done.sort((a, b) => a - b).map((i) => i + 1).join(', ');
			error.description = `${error.description ? `${error.description} ` : ''}Before the node stopped, these items (numbered from 1) were already carried out: ${list}. Their results are not in the output, so running the node again would repeat them. Set "On Error" to "Continue" to keep going past failed items.`;
		}
		throw error;
	}
	return results.flat().filter(Boolean);
}
