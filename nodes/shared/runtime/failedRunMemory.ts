/**
 * The memory of a node's failed run, for its next try in the same execution: which items it
 * carried out (their output) and which it left unknown (their error), kept with the execution
 * (executionMemory.ts) so that neither is sent again.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { nodeRecord } from './executionMemory';
import { ERROR_FIELDS, type ItemError } from './itemErrors';
import { inputDigest, isToolCall, runIndexOf } from './itemIdentity';
import type { Operation } from './operation';

/**
 * What a failed run of a node carried out (its output) or left unknown (its error), by item
 * index, kept with the execution (executionMemory.ts) for the node's next try of that run: Retry
 * On Fail and the editor's Retry of the failed execution run it again at the same run index, an
 * AI agent's retry of a tool at the next one (itemIdentity.ts). An item is the same item when its
 * run, index and input are (what n8n handed the node, not what the node evaluated from it), so
 * whatever the node evaluates differently on the next try (an expression naming the time, a
 * parameter edited before the editor's Retry, the execution's id in Send and Wait's link), an
 * item carried out stays carried out and an unknown one stays unknown. Items refused or not sent
 * are not kept: they run again, with the parameters as they are then.
 */
export interface Remembered {
	/** A digest of the input item n8n handed the node for this item. */
	input: string;
	/** The item in a few words ("SMS to +447700900123"), for the error that lists it. */
	what?: string;
	output?: IDataObject | IDataObject[];
	error?: StoredError;
}

/** What an item of this run came to, before it is kept (its input's digest is worked out only then). */
export type Carried = Omit<Remembered, 'input'> & { input?: string };

/** The one failed run a node keeps: only the node's latest run can be tried again. */
interface KeptRun {
	run: number;
	items: Record<string, Remembered>;
}

/** An error as JSON, so that it can be saved with the execution. */
interface StoredError {
	message: string;
	description?: string;
	httpCode?: string;
	context: IDataObject;
}

export function storedError(error: ItemError): StoredError {
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

export function restoredError(
	ctx: IExecuteFunctions,
	stored: StoredError,
	itemIndex: number,
): ItemError {
	const error: ItemError = new NodeOperationError(ctx.getNode(), stored.message, {
		itemIndex,
		description: [
			stored.description,
			'An earlier try of this node, in this execution or in the failed execution this one retries, left this outcome unknown, so it was not sent again; to send it after checking that it did not go, run the workflow again as a new execution.',
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

function keptRun(value: unknown): KeptRun | undefined {
	const kept = value as Partial<KeptRun> | undefined;
	return kept && typeof kept.run === 'number' && kept.items && typeof kept.items === 'object'
		? (kept as KeptRun)
		: undefined;
}

/**
 * The memory of a node's failed run, as this run sees it. Nothing is worked out (no run index, no
 * digest) unless the node has a failed run kept, or this run fails: a run that succeeds at its
 * first try costs nothing more.
 */
export class FailedRunMemory {
	private run?: number;
	private tool?: boolean;
	/** The kept run's items, when this run is the next try of it. */
	private readonly earlier?: Record<string, Remembered>;
	private readonly hadMemory: boolean;

	/** The memory for an operation that must happen once; undefined for any other. */
	static of(ctx: IExecuteFunctions, operation: Operation<unknown>): FailedRunMemory | undefined {
		return operation.carriesOutOnce ? new FailedRunMemory(ctx) : undefined;
	}

	private constructor(private readonly ctx: IExecuteFunctions) {
		const record = nodeRecord(ctx, false);
		this.hadMemory = record?.failedRun !== undefined;
		if (!this.hadMemory) return;
		const kept = keptRun(record!.failedRun);
		const run = this.runIndex();
		if (kept && (kept.run === run || (kept.run === run - 1 && this.isTool())))
			this.earlier = kept.items;
		// A run before this one (a loop's earlier pass, one that ended with error items) is over:
		// nothing can run it again.
		else if (!kept || kept.run < run) delete record!.failedRun;
	}

	private runIndex(): number {
		return (this.run ??= runIndexOf(this.ctx));
	}

	private isTool(): boolean {
		return (this.tool ??= isToolCall(this.ctx));
	}

	private inputOf(itemIndex: number): string {
		return inputDigest(this.ctx, itemIndex, this.isTool());
	}

	/** Whether an earlier try of this run is kept (the items to look for). */
	get hasEarlier(): boolean {
		return this.earlier !== undefined && Object.keys(this.earlier).length > 0;
	}

	/** What the earlier try of this run did with item `itemIndex`, if it is the same item. */
	recall(itemIndex: number): Remembered | undefined {
		const earlier = this.earlier?.[itemIndex];
		return earlier && earlier.input === this.inputOf(itemIndex) ? earlier : undefined;
	}

	/** Keeps what this run carried out or left unknown, for its next try: JSON, saved with the execution. */
	keep(thisRun: Map<number, Carried>, describe: (itemIndex: number) => string | undefined): void {
		const items: Record<string, Remembered> = {};
		for (const [itemIndex, item] of thisRun)
			items[itemIndex] = {
				...item,
				input: item.input ?? this.inputOf(itemIndex),
				what: item.what ?? describe(itemIndex),
			};
		nodeRecord(this.ctx).failedRun = { run: this.runIndex(), items } as unknown as IDataObject;
	}

	/** A run that will not be tried again forgets the failed run before it. */
	forget(): void {
		if (this.hadMemory) delete nodeRecord(this.ctx, false)?.failedRun;
	}
}

/** An item carried out by an earlier try, as this try outputs it: that try's result, saying so. */
export function carriedOutEarlier(
	output: IDataObject | IDataObject[],
): IDataObject | IDataObject[] {
	const mark = (json: IDataObject): IDataObject => ({
		...json,
		carriedOutEarlier: true,
		carriedOutEarlierNote:
			"This item was carried out by an earlier try of this node, in this execution or in the failed execution this one retries, so it was not sent again: this is that try's result.",
	});
	return Array.isArray(output) ? output.map(mark) : mark(output);
}
