/**
 * The memory of a node's failed run, for its next try in the same execution: which items it
 * carried out (their output) and which it left unknown (their error), kept with the execution
 * (executionMemory.ts) so that neither is sent again.
 */
import { createHash } from 'node:crypto';

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { nodeRecord } from './executionMemory';
import { ERROR_FIELDS, type ItemError } from './itemErrors';
import type { Operation } from './operation';

/**
 * What a failed run of a node carried out (its output) or left unknown (its error), by item
 * index, kept with the execution (executionMemory.ts) for the node's next run: n8n runs it again
 * with the same input after a failure (Retry On Fail; an AI agent's tool retry, at the next run
 * index; the editor's Retry of the failed execution, from its saved data). An item is the same
 * item when its index and prepared request are. A run that ends without an error forgets it.
 */
export interface Remembered {
	/** The item's prepared request: an item whose content changed is not the same item. */
	digest: string;
	output?: IDataObject | IDataObject[];
	error?: StoredError;
}

/** What an item of this run came to, before it is kept (its digest is worked out only then). */
export type Carried = Omit<Remembered, 'digest'> & { digest?: string };

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
export function triesOf(
	ctx: IExecuteFunctions,
	operation: Operation<unknown>,
): Record<string, Remembered> | undefined {
	if (!operation.carriesOutOnce) return undefined;
	const kept = nodeRecord(ctx, false)?.failedRun;
	return kept && typeof kept === 'object' ? (kept as Record<string, Remembered>) : {};
}

export function digestOf(value: unknown): string {
	return createHash('sha256')
		.update(JSON.stringify(value) ?? '')
		.digest('hex');
}

/**
 * Keeps what this run carried out or left unknown for the node's next run: JSON, saved with the
 * execution. `valueOf` gives each item's prepared request, for the digest of items that have none.
 */
export function keepFailedRun(
	ctx: IExecuteFunctions,
	thisRun: Map<number, Carried>,
	valueOf: Map<number, unknown>,
): void {
	const kept: Record<string, Remembered> = {};
	for (const [itemIndex, item] of thisRun)
		kept[itemIndex] = { ...item, digest: item.digest ?? digestOf(valueOf.get(itemIndex)) };
	nodeRecord(ctx).failedRun = kept as unknown as IDataObject;
}

/** A run that ends without an error forgets the failed run before it. */
export function forgetFailedRun(ctx: IExecuteFunctions): void {
	delete nodeRecord(ctx).failedRun;
}
