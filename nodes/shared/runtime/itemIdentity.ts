/**
 * What identifies an item of a node run, from what n8n hands the node, never from what the node
 * evaluates of its parameters (n8n evaluates them again on every try, and a person may edit them
 * before the editor's Retry): the node, its run within the execution (the run index), the item's
 * index, and the item itself (its `json` and `binary`).
 *
 * Checked in n8n-core 2.41.1 and 1.123.81 (`WorkflowExecute`): a node's run index is the number
 * of runs it already has in the execution (`runData[node].length`) unless the execution stack
 * names one; Retry On Fail runs every try at that one index, with the same input; the editor's
 * Retry (the cli's `ExecutionService.retry`) drops the failed run and so runs the node again at
 * the same index, with the input saved on the execution stack; a loop's next pass is a run of its
 * own, at the next index. The node reads its run index as an expression would (`$runIndex` of
 * its workflow data proxy).
 *
 * An AI agent calls a node used as a tool in one of two ways. AI Agent 3 and later return an
 * engine request and n8n runs the tool as a node of its own, with the model's arguments merged
 * into the agent's item and the call's id (`toolCallId`); Retry On Fail then keeps the run index,
 * and each new call of the model gets the next one. AI Agent 2.2 calls the tool through
 * `getInputConnectionData` (n8n-core's `makeHandleToolInvocation`), whose Retry On Fail runs each
 * try at the next run index with the same arguments. So for a tool, a failed run also answers
 * the tool's next run when that run's arguments are the same (the call's id aside): a try of the
 * same call, or the model asking for the same thing again right after it.
 */
import { createHash } from 'node:crypto';

import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

/** The node's run index in this execution (`$runIndex`). */
export function runIndexOf(ctx: IExecuteFunctions): number {
	try {
		const index = ctx.getWorkflowDataProxy(0).$runIndex as unknown;
		return typeof index === 'number' && Number.isInteger(index) && index >= 0 ? index : 0;
	} catch {
		return 0;
	}
}

/**
 * Whether n8n runs the node as an AI agent's tool: scheduled by the engine for the agent (the
 * node's log is rewired to the agent's tool connection), or called as a sub-node of the agent
 * (the execute data is the agent's, not this node's).
 */
export function isToolCall(ctx: IExecuteFunctions): boolean {
	const node = ctx.getNode();
	if (node.rewireOutputLogTo === NodeConnectionTypes.AiTool) return true;
	const running = ctx.getExecuteData?.()?.node?.name;
	return running !== undefined && running !== node.name;
}

/** A digest of input item `itemIndex` as n8n handed it: its json and binary (a tool call's id aside). */
export function inputDigest(ctx: IExecuteFunctions, itemIndex: number, toolCall: boolean): string {
	const item = ctx.getInputData()[itemIndex];
	let json = item?.json;
	if (toolCall && json && 'toolCallId' in json) {
		json = { ...json };
		delete json.toolCallId;
	}
	let text: string;
	try {
		text = JSON.stringify({ json, binary: item?.binary }) ?? '';
	} catch {
		// Not JSON (a BigInt, a cycle): the item is then told apart by its run and index alone.
		text = '';
	}
	return createHash('sha256').update(text).digest('hex');
}
