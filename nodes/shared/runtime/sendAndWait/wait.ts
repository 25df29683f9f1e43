/**
 * Send and Wait's wait: the link the SMS carries, when to stop waiting (Limit Wait Time), and the
 * node run that sends one item and then puts the execution to wait for the answer.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError, WAIT_INDEFINITELY } from 'n8n-workflow';

import type { ResponseType } from './description';

/** The SMS text: the message, then the link on a line of its own. */
export function withAnswerLink(message: string, url: string): string {
	return `${message.trimEnd()}\n${url}`;
}

/** The signed link of this execution and node, for the SMS. */
export function answerLink(ctx: IExecuteFunctions): string {
	return ctx.getSignedResumeUrl();
}

const UNIT_MS: Record<string, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

/** When to stop waiting, from Limit Wait Time (none: wait until answered). */
export function waitTill(ctx: IExecuteFunctions, now: Date = new Date()): Date {
	const limit = ctx.getNodeParameter('options.limitWaitTime.values', 0, {}) as IDataObject;
	if (Object.keys(limit).length === 0) return WAIT_INDEFINITELY;
	let until: Date;
	if ((limit.limitType ?? 'afterTimeInterval') === 'afterTimeInterval') {
		const amount = Number(limit.resumeAmount ?? 45);
		const unit = UNIT_MS[String(limit.resumeUnit ?? 'minutes')];
		until = new Date(now.getTime() + amount * (unit ?? NaN));
		if (!(amount >= 0) || unit === undefined) until = new Date(NaN);
	} else {
		until = new Date(String(limit.maxDateAndTime ?? ''));
	}
	if (Number.isNaN(until.getTime())) {
		throw new NodeOperationError(
			ctx.getNode(),
			'Limit Wait Time is not a time n8n can wait until',
			{
				itemIndex: 0,
				description:
					'Give an amount of 0 or more minutes, hours or days, or a date and time such as 2026-12-01T09:00:00Z.',
			},
		);
	}
	return until;
}

/**
 * Checked before anything is sent: n8n waits for one answer per execution, so the operation
 * takes one item.
 */
function assertOneItem(ctx: IExecuteFunctions): void {
	const count = ctx.getInputData().length;
	if (count > 1) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Send and Wait for Response sends one SMS and waits for one answer, but it received ${count} items; nothing was sent`,
			{
				description:
					'An execution can wait for one answer. Give the node one item, for example after a Limit node, or run one execution per person (Loop Over Items into a sub-workflow).',
			},
		);
	}
}

/**
 * After the SMS went out: the execution waits. What the node leaves on its place in the execution
 * stack is what it outputs if nobody answers before the limit (n8n then runs on with the waiting
 * node's input) and what the answer page's expressions read, so that item is the input item with
 * the wait's outcome added; an answer replaces it with the answer.
 */
async function waitForAnswer(
	ctx: IExecuteFunctions,
	sent: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const [item] = sent;
	// Failed with Continue On Fail (or nothing to send): there is nothing to wait for.
	if (!item || item.json.error !== undefined) return [sent];
	const until = waitTill(ctx);
	const responseType = ctx.getNodeParameter('responseType', 0, 'approval') as ResponseType;
	if (until.getTime() !== WAIT_INDEFINITELY.getTime()) {
		const stacked = ctx.getExecuteData?.()?.data;
		if (stacked && Array.isArray(stacked.main)) {
			// The input item goes on (as n8n's own send-and-wait passes it through on a timeout),
			// so expressions on it still work on the answer page, with what happened added.
			const [input] = ctx.getInputData();
			stacked.main[0] = [
				{
					...(input?.binary ? { binary: input.binary } : {}),
					json: {
						...input?.json,
						timedOut: true,
						responseType,
						...(responseType === 'approval' ? { approved: false } : {}),
						waitedUntil: until.toISOString(),
						sms: item.json,
					},
					pairedItem: { item: 0 },
				},
			];
		}
	}
	await ctx.putExecutionToWait(until);
	return [sent];
}

/**
 * Send and Wait's run: one item checked first, the message sent (`run`), and the wait for the
 * answer after it went out. Only Send and Wait comes here; other operations run their items.
 */
export async function sendAndWait(
	ctx: IExecuteFunctions,
	run: () => Promise<INodeExecutionData[]>,
): Promise<INodeExecutionData[][]> {
	assertOneItem(ctx);
	return await waitForAnswer(ctx, await run());
}
