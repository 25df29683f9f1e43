/**
 * What must hold for a whole execution, kept where n8n keeps it with the execution.
 *
 * n8n parks an execution on a long Wait or a Send and Wait, saves it to its database, and resumes
 * it later, possibly on another worker (queue mode) or after a restart; the engine object, its
 * cancel signal and the process memory are new then. What n8n saves with the execution and hands
 * back on resume is the run data, and in it `executionData.contextData`, which a node reads and
 * writes through `getContext('flow')` (the whole execution) and `getContext('node')` (one node).
 * Checked in n8n 2.41.1 and 1.123.81: `WaitTracker.startExecution` runs the saved `data` again
 * (contextData included), queue-mode workers load it from the database, and
 * `ExecutionService.retry` (the editor's Retry of a failed execution) starts from the failed
 * execution's `data` too; `getContext` is n8n-core's `BaseExecuteContext`, which the contexts of
 * a node run and of an AI agent's tool call share.
 *
 * So the Spending Cap's spend (the whole execution's) and the memory of what a failed node run
 * carried out (for the node's next try) live there, as plain JSON. What may be lost on resume
 * lives in process memory instead: requests in flight (none survive a park), and the "stop
 * sending with this credential" halts, which a person fixing the credential during a Wait or
 * before a Retry should not find still in force.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/** The key of this package's record in n8n's context objects. */
const RECORD = 'commsApi';

type ContextReader = Pick<IExecuteFunctions, 'getContext'>;

/** Contexts of n8n versions or callers without `getContext`: kept for the engine run only. */
const fallback = new WeakMap<object, IDataObject>();

function record(
	ctx: IExecuteFunctions,
	type: 'flow' | 'node',
	create: boolean,
): IDataObject | undefined {
	const reader = ctx as Partial<ContextReader>;
	let context: IDataObject | undefined;
	try {
		context =
			typeof reader.getContext === 'function'
				? (reader.getContext(type) as IDataObject)
				: undefined;
	} catch {
		context = undefined;
	}
	if (!context) {
		const scope = (ctx.getExecutionCancelSignal?.() ?? ctx) as object;
		const key = type === 'flow' ? scope : ctx;
		let kept = fallback.get(key);
		if (!kept) {
			kept = {};
			fallback.set(key, kept);
		}
		context = kept;
	}
	if (!context[RECORD] || typeof context[RECORD] !== 'object') {
		if (!create) return undefined;
		context[RECORD] = {};
	}
	return context[RECORD] as IDataObject;
}

/** This package's record for the whole execution, shared by every node in it. */
export function executionRecord(ctx: IExecuteFunctions): IDataObject {
	return record(ctx, 'flow', true)!;
}

/**
 * This package's record for the running node in this execution; with `create` false, undefined
 * when the node has none yet (so a node that keeps nothing adds nothing to the saved execution).
 */
export function nodeRecord(ctx: IExecuteFunctions, create: false): IDataObject | undefined;
export function nodeRecord(ctx: IExecuteFunctions, create?: true): IDataObject;
export function nodeRecord(ctx: IExecuteFunctions, create = true): IDataObject | undefined {
	return record(ctx, 'node', create);
}
