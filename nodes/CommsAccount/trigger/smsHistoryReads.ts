/**
 * What the trigger reads from GET /v1/sms: pages of received (or sent) messages, and the
 * latest matching message for "Fetch Test Event".
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { accountApiRequest } from '../api/accountApi';
import { isSmsRecord, MAX_PAGE_SIZE, type SmsPage, type SmsRecord } from '../api/smsPaging';
import { pageOrder, type PageRequest } from './pageReading';

export interface InboxFilter {
	/** Only this number (empty: every number of the account). */
	phoneDocId: string;
	/** Only messages from this E.164 number (empty: any sender). */
	peer: string;
}

/** One page of received messages. */
export async function fetchReceived(
	ctx: IPollFunctions,
	filter: InboxFilter,
	request: Partial<PageRequest>,
	{ maxWaitMs }: { maxWaitMs?: number } = {},
): Promise<SmsPage> {
	return await fetchSms(ctx, filter, request, { direction: 'received', maxWaitMs });
}

/** One page of messages in one direction. */
export async function fetchSms(
	ctx: IPollFunctions,
	filter: InboxFilter,
	request: Partial<PageRequest>,
	{ direction, maxWaitMs }: { direction: 'received' | 'sent'; maxWaitMs?: number },
): Promise<SmsPage> {
	const body = await accountApiRequest(ctx, {
		method: 'GET',
		path: '/v1/sms',
		maxWaitMs,
		qs: {
			direction,
			phoneDocId: filter.phoneDocId,
			peer: filter.peer,
			since: request.since,
			limit: request.limit ?? MAX_PAGE_SIZE,
		},
	});
	return {
		messages: Array.isArray(body.messages) ? (body.messages as SmsRecord[]) : [],
		nextSince: body.nextSince,
	};
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Where the latest message is looked for first: recent windows are one request on any server. */
const WINDOWS_MS = [HOUR, 24 * HOUR, 30 * 24 * HOUR, undefined];
/** Pages read forward one after another in a window when results come oldest first. */
const MAX_PAGES_PER_WINDOW = 10;
/** Requests in one window in all, jumps included. */
const MAX_REQUESTS_PER_WINDOW = 40;

function timeOf(record: SmsRecord): number {
	const ms = typeof record.sentAt === 'string' ? Date.parse(record.sentAt) : NaN;
	return Number.isNaN(ms) ? -Infinity : ms;
}

/** The latest message of a page: the newest sentAt; among equals, the one the server received last. */
function latestOf(messages: SmsRecord[]): SmsRecord | undefined {
	const oldestFirst = pageOrder(messages) === 'oldestFirst';
	let best: SmsRecord | undefined;
	for (const record of messages) {
		if (!isSmsRecord(record)) continue;
		if (!best || timeOf(record) > timeOf(best) || (oldestFirst && timeOf(record) === timeOf(best)))
			best = record;
	}
	return best;
}

/**
 * The latest received message, for a test run. Looks in the last hour, day and 30 days, then
 * everywhere; within a window, results oldest first are paged forward to their end. After ten
 * full pages (more than 2,000 messages), it halves the time between the newest seen and now
 * instead, so the latest is reached however many arrived. Never touches the cursor.
 */
export async function latestReceived(
	ctx: IPollFunctions,
	filter: InboxFilter,
	nowMs: number,
): Promise<IDataObject> {
	return await latestSms(ctx, filter, nowMs, { direction: 'received' });
}

/** The latest message in one direction that `accept` takes (all by default); see latestReceived. */
export async function latestSms(
	ctx: IPollFunctions,
	filter: InboxFilter,
	nowMs: number,
	{
		direction,
		accept = () => true,
		none,
	}: { direction: 'received' | 'sent'; accept?: (record: SmsRecord) => boolean; none?: string },
): Promise<IDataObject> {
	for (const windowMs of WINDOWS_MS) {
		let since = windowMs === undefined ? undefined : new Date(nowMs - windowMs).toISOString();
		let best: SmsRecord | undefined;
		let pages = 0;
		let reached = NaN;
		// Once ten pages in a row were full: the latest lies after `low`, before `high`.
		let low = NaN;
		let high = nowMs + 1;
		for (let request = 0; request < MAX_REQUESTS_PER_WINDOW; request++) {
			const { messages } = await fetchSms(
				ctx,
				filter,
				{ since, limit: MAX_PAGE_SIZE },
				{ direction },
			);
			const wanted = messages.filter((record) => isSmsRecord(record) && accept(record));
			const full = messages.length >= MAX_PAGE_SIZE && pageOrder(messages) === 'oldestFirst';
			if (messages.length === 0 && !Number.isNaN(low)) {
				// Nothing at or after `since`: the latest is before it.
				high = Date.parse(since as string);
			} else {
				best = latestOf(best ? [best, ...wanted] : wanted);
				if (!full) break;
			}
			// The newest sentAt read so far, whether `accept` took it or not.
			const newestOfPage = latestOf(messages)?.sentAt;
			if (typeof newestOfPage === 'string')
				reached = Math.max(Number.isNaN(reached) ? -Infinity : reached, Date.parse(newestOfPage));
			const newest = reached;
			if (Number.isNaN(newest)) break;
			pages++;
			let next = newest;
			if (pages >= MAX_PAGES_PER_WINDOW) {
				// More than 2,000 messages: halve the distance to the latest instead of paging on.
				low = Math.max(Number.isNaN(low) ? newest : low, newest);
				if (high - low <= 1) break;
				next = low + Math.ceil((high - low) / 2);
			}
			const nextSince = new Date(next).toISOString();
			if (nextSince === since) break;
			since = nextSince;
		}
		if (best) return best as IDataObject;
	}
	const where = [
		filter.phoneDocId && `on ${filter.phoneDocId}`,
		filter.peer && `${direction === 'received' ? 'from' : 'to'} ${filter.peer}`,
	]
		.filter(Boolean)
		.join(' ');
	throw new NodeOperationError(
		ctx.getNode(),
		`${none ?? 'No SMS has been received'}${where ? ` ${where}` : ''} yet, so there is no test event to show`,
		{
			description:
				'Send an SMS to one of your numbers (with the sandbox: POST /_sandbox/sms/inbound), then fetch the test event again. When the workflow is active, every new SMS starts it.',
		},
	);
}
