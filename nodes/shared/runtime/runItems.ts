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
 * or left unknown is kept with the execution for the next try of that run (Retry On Fail, the
 * editor's Retry, an agent's retry: `Operation.carriesOutOnce`, failedRunMemory.ts): such an
 * item is neither prepared nor sent again.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { outcomeOf, withOutcome, type WriteOutcome } from '../transport';
import {
	type Carried,
	carriedOutEarlier,
	FailedRunMemory,
	type Remembered,
	restoredError,
	storedError,
} from './failedRunMemory';
import { credentialKey, executionState, type Halt, haltedError, haltOf } from './halts';
import { apiCodeOf, errorItem, type ItemError, toItemError } from './itemErrors';
import type { Operation } from './operation';
import { stopDescription } from './stopDescription';

/** In flight at once per node run, unless the operation says otherwise; the rate limiter still caps what reaches the API. */
const CONCURRENCY = 16;

type Entry<P> = { itemIndex: number; value: P };

/**
 * Lanes: the items of one sequence key, in item order; an item without a key is a lane alone.
 * Lanes start in the order of their first item.
 */
export function lanesOf<P>(
	prepared: Array<Entry<P>>,
	sequenceKey: ((value: P) => string | undefined) | undefined,
): Array<Array<Entry<P>>> {
	const lanes: Array<Array<Entry<P>>> = [];
	const laneOfKey = new Map<string, Array<Entry<P>>>();
	for (const entry of prepared) {
		const key = sequenceKey?.(entry.value);
		const existing = key === undefined ? undefined : laneOfKey.get(key);
		if (existing) {
			existing.push(entry);
			continue;
		}
		const lane = [entry];
		lanes.push(lane);
		if (key !== undefined) laneOfKey.set(key, lane);
	}
	return lanes;
}

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

	const memory = FailedRunMemory.of(ctx, operation as Operation<unknown>);
	/** What this run carried out or left unknown, kept for the next try if this one fails. */
	const thisRun = new Map<number, Carried>();
	/** Items the failed try of this run carried out, or left unknown, by index. */
	const earlier = new Map<number, Remembered>();

	const recalling = memory?.hasEarlier === true;
	for (let i = 0; i < count; i++) {
		// An item the failed try of this run carried out, or left unknown, is not prepared again:
		// whatever this try evaluates (or the user edited) for it, it is not sent again.
		const recalled = recalling ? memory!.recall(i) : undefined;
		if (recalled) {
			earlier.set(i, recalled);
			continue;
		}
		try {
			prepared.push({ itemIndex: i, value: await operation.prepare.call(ctx, i) });
		} catch (error) {
			const itemError = toItemError(ctx, error, i);
			// Bad input never reaches the network.
			if (operation.carriesOutOnce) withOutcome(itemError, 'notSent');
			if (!continueOnFail) throw itemError;
			results[i] = [errorItem(itemError, i)];
		}
	}

	const lanes = lanesOf(prepared, operation.sequenceKey);

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
			if (memory) thisRun.set(itemIndex, { output });
			setOutput(itemIndex, output);
			done.push(itemIndex);
			return true;
		} catch (error) {
			const itemError: ItemError = toItemError(ctx, error, itemIndex);
			if (operation.carriesOutOnce) {
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
			const halts = haltOf(itemError);
			if (halts === 'execution' && !state.halts.has(credential)) state.halts.set(credential, found);
			if (halts === 'run') runHalt ??= found;
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

	// What the failed try of this run carried out comes back as it was, saying so; what it left
	// unknown fails again the same way once the other items have had their turn (it was not sent
	// by this try, so it does not stop them). Neither is sent again, and both are listed whatever
	// stops this try.
	for (const [itemIndex, item] of earlier) {
		thisRun.set(itemIndex, item);
		if (item.error) unknown.push(itemIndex);
		else {
			setOutput(itemIndex, carriedOutEarlier(item.output!));
			done.push(itemIndex);
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

	for (const [itemIndex, item] of earlier)
		if (item.error) fail(restoredError(ctx, item.error, itemIndex), itemIndex);

	// Kept for the next try of this run only if n8n may run it again (it throws, or, with Retry On
	// Fail, its first item is an error item: n8n-core retries then too); JSON, saved with the execution.
	let valueOf: Map<number, P> | undefined;
	/** The item in a few words: from this try's request, or as the earlier try described it. */
	const describe = (i: number) => {
		valueOf ??= new Map(prepared.map((entry) => [entry.itemIndex, entry.value]));
		return valueOf.has(i) ? operation.describe?.(valueOf.get(i)!) : earlier.get(i)?.what;
	};
	if (memory) {
		const firstFailed = results[0]?.[0]?.json.error !== undefined;
		if (failure.stop || (firstFailed && ctx.getNode().retryOnFail === true))
			memory.keep(thisRun, describe);
		else memory.forget();
	}

	if (failure.stop) {
		const error = failure.stop.error as ItemError;
		const stoppedAt = failure.stop.itemIndex;
		error.description = stopDescription({
			description: error.description ?? '',
			done,
			unknown: unknown.filter((i) => i !== stoppedAt),
			describe,
			outputOf: (i) => results[i]?.[0]?.json,
		});
		throw error;
	}
	return results.flat().filter(Boolean);
}
