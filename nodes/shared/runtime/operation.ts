/**
 * What an operation is to the node runtime (`Operation`), and a node's table of them, typed from
 * its resources, so that a resource or operation without a handler is a compile error.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

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
	 * whose outcome was unknown fails again the same way: neither is sent again, whatever the
	 * node evaluates differently (the item is told by what n8n handed the node: itemIdentity.ts).
	 */
	carriesOutOnce?: boolean;
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
