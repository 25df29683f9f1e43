/**
 * Runs an operation over a node's input items the way our users need it:
 *
 * 1. Every item's parameters are read and checked first (`prepare`). Bad input never
 *    reaches the network: with Continue On Fail the item becomes an error item, without it
 *    the node stops before a single request is sent.
 * 2. The prepared items are then sent concurrently (`run`); the per-key rate limiter in the
 *    transport decides the real pace. Output keeps input order, with `pairedItem`.
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

	let next = 0;
	const failure: { stop?: { error: Error; itemIndex: number } } = {};
	/** Keeps the failure of the earliest item, which is the one n8n would have stopped on. */
	const recordStop = (error: Error, itemIndex: number) => {
		const current = failure.stop;
		if (!current || itemIndex < current.itemIndex) failure.stop = { error, itemIndex };
	};
	const done: number[] = [];
	const worker = async () => {
		while (next < prepared.length && !failure.stop) {
			const { itemIndex, value } = prepared[next++];
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
	};
	await Promise.all(Array.from({ length: Math.min(CONCURRENCY, prepared.length) }, worker));

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
