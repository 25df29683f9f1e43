/**
 * The "Call Ended" and "SMS Delivered" events: records in progress read back through the history
 * endpoints (GET /v1/calls, GET /v1/sms?direction=sent), tracked by id until final (see
 * inProgressRecords.ts). This file is the n8n side: the requests, the stored state, the log.
 */
import type { IDataObject, INodeExecutionData, IPollFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { MAX_PAGE_SIZE, type SmsPage, type SmsRecord } from '../api/smsPaging';
import { accountApiRequest } from '../api/accountApi';
import { DEFAULT_SETTINGS } from './cursorState';
import { type PageRequest } from './pageReading';
import { fetchSms, type InboxFilter, latestSms } from './smsHistoryReads';
import { fingerprint } from './pollLifecycle';
import { finalStatuses, isFinalStatus } from '../api/statuses';
import {
	DEFAULT_IN_PROGRESS_SETTINGS,
	type InProgressIo,
	type FinalStatusEvent,
	inProgressShape,
	type InProgressState,
} from './inProgressRecords';
import { inProgressBaseline, parseInProgressState } from './inProgressState';
import { pollInProgress } from './inProgressPoll';
import { reportPoll } from './pollWarnings';
import {
	apiNow,
	type PollSetup,
	reportSkipped,
	startOf,
	storedState,
	withinBudget,
} from './pollSettings';

export type CallMode = 'manual' | 'ai';

/** Where each event keeps its state in the node's static data. */
const STATE_KEYS: Record<FinalStatusEvent, string> = {
	callEnded: 'callOutcomes',
	smsDelivered: 'deliveryOutcomes',
};

const NOUNS = {
	callEnded: { records: 'calls', time: 'creation time' },
	smsDelivered: { records: 'sent SMS', time: 'sent time' },
};

/** Statuses (per event) already said in this process to be ones the package does not know. */
const toldOfStatus = new Set<string>();

/**
 * Says in n8n's log, once per status in this process, a status the package does not know
 * (with a record that had it, so users can report it), and, at info level, the sent SMS that
 * ended without being delivered (SMS Delivered does not start for them).
 */
function reportStatuses(
	ctx: IPollFunctions,
	kind: FinalStatusEvent,
	unlisted: Array<[string, string]>,
	undelivered: Array<[string, string]>,
): void {
	const noun = kind === 'callEnded' ? 'call' : 'sent SMS';
	const event = kind === 'callEnded' ? 'Call Ended' : 'SMS Delivered';
	const finals = finalStatuses(kind === 'callEnded' ? 'call' : 'sms').join(', ');
	for (const [status, id] of unlisted) {
		const said = `${kind}:${status}`;
		if (toldOfStatus.has(said)) continue;
		toldOfStatus.add(said);
		ctx.logger.warn(
			`Comms Account Trigger: the ${noun} ${id} has the status "${status}", which the API does not document: it is taken as still in progress, and ${event} waits for a status known to be final (${finals}), for at most a day. Said once per status; please report it.`,
		);
	}
	if (undelivered.length)
		ctx.logger.info(
			`Comms Account Trigger: ${undelivered.length} sent SMS ended without being delivered, so SMS Delivered does not start for them: ${undelivered
				.slice(0, 20)
				.map(([id, status]) => `${id} (${status})`)
				.join(', ')}${undelivered.length > 20 ? ', …' : ''}.`,
		);
}

/** One page of calls of one mode, most recent first (the API has no paging cursor). */
async function fetchCalls(
	ctx: IPollFunctions,
	filter: InboxFilter,
	callMode: CallMode,
	request: Partial<PageRequest>,
	maxWaitMs?: number,
): Promise<SmsPage> {
	const body = await accountApiRequest(ctx, {
		method: 'GET',
		path: '/v1/calls',
		maxWaitMs,
		qs: {
			mode: callMode,
			phoneDocId: filter.phoneDocId,
			peer: filter.peer,
			since: request.since,
			limit: request.limit ?? MAX_PAGE_SIZE,
		},
	});
	return { messages: Array.isArray(body.calls) ? (body.calls as SmsRecord[]) : [] };
}

/** AI calls are read by number: the API requires it. */
function checkCallFilter(ctx: IPollFunctions, filter: InboxFilter, callMode: CallMode) {
	if (callMode === 'ai' && !filter.phoneDocId)
		throw new NodeOperationError(
			ctx.getNode(),
			'Phone Number is required for AI calls: the API reads AI call history by number. Pick the number the AI calls are made from.',
			{ failure: { cause: 'configuration-invalid' } },
		);
}

/**
 * The API's answer to a look-up that names a record it does not have (404), or that it will not
 * look up (400: a malformed id; 403: a number the key may no longer read): the record is gone
 * for this trigger. Anything else (a 429, a server error, a dead key) fails the poll as usual.
 */
function isGone(error: unknown): boolean {
	const status = Number((error as { httpCode?: unknown })?.httpCode);
	return status === 400 || status === 403 || status === 404;
}

/** The requests a poll of records in progress makes. */
function inProgressIo(
	ctx: IPollFunctions,
	kind: FinalStatusEvent,
	filter: InboxFilter,
	callMode: CallMode,
	maxWaitMs: number,
	onAnswer: () => Promise<void>,
): InProgressIo {
	const first = (records: unknown) =>
		Array.isArray(records) ? (records[0] as SmsRecord | undefined) : undefined;
	return {
		async fetchPage(request) {
			const page =
				kind === 'callEnded'
					? await fetchCalls(ctx, filter, callMode, request, maxWaitMs)
					: await fetchSms(ctx, filter, request, { direction: 'sent', maxWaitMs });
			await onAnswer();
			return page;
		},
		async lookup([id, phoneDocId]) {
			try {
				const body = await accountApiRequest(ctx, {
					method: 'GET',
					maxWaitMs,
					...(kind === 'callEnded'
						? { path: '/v1/calls', qs: { mode: callMode, phoneDocId, callId: id } }
						: { path: '/v1/sms', qs: { messageId: id } }),
				});
				return first(kind === 'callEnded' ? body.calls : body.messages);
			} catch (error) {
				if (isGone(error)) return undefined;
				// The transport's own NodeApiError, handed back as it is.
				throw new NodeApiError(ctx.getNode(), error as JsonObject);
			}
		},
	};
}

export async function pollFinalStatusEvent(
	ctx: IPollFunctions,
	setup: PollSetup,
	kind: FinalStatusEvent,
	callMode: CallMode,
): Promise<INodeExecutionData[][] | null> {
	const { filter } = setup;
	if (kind === 'callEnded') checkCallFilter(ctx, filter, callMode);
	const fp = fingerprint({
		event: kind,
		...(kind === 'callEnded' ? { callMode } : {}),
		phoneDocId: filter.phoneDocId,
		peer: filter.peer,
	});
	const key = STATE_KEYS[kind];
	const stored = storedState(ctx, key, (value) => parseInProgressState(value, kind), fp);
	// A page of the list, as the poll reads it (for the starting point at first activation).
	const readPage = async (request: PageRequest) =>
		kind === 'callEnded'
			? await fetchCalls(ctx, filter, callMode, request, setup.maxWaitMs)
			: await fetchSms(ctx, filter, request, { direction: 'sent', maxWaitMs: setup.maxWaitMs });
	const state: InProgressState = stored
		? { ...stored, fp }
		: inProgressBaseline(kind, await startOf(ctx, fp, setup, readPage, inProgressShape(kind)), fp);

	// Now on the API's clock, as far as it was measured (its record times use that clock).
	let now = await apiNow(ctx);
	const result = await pollInProgress(
		state,
		inProgressIo(ctx, kind, filter, callMode, setup.maxWaitMs, async () => {
			now = await apiNow(ctx);
		}),
		{
			settings: {
				...DEFAULT_IN_PROGRESS_SETTINGS,
				reader: { ...DEFAULT_SETTINGS, lookBackMs: setup.lookBackMs },
				...(filter.phoneDocId ? { phoneDocId: filter.phoneDocId } : {}),
			},
			now: () => now,
			keepReading: () => withinBudget(setup),
		},
	);
	// Every request of this poll has been answered: only now does the state move.
	ctx.getWorkflowStaticData('node')[key] = result.state as unknown as IDataObject;
	reportSkipped(ctx, result.skipped, kind === 'callEnded' ? 'call' : 'SMS');
	reportPoll(ctx, result, NOUNS[kind], result);
	reportStatuses(ctx, kind, result.unlisted, result.undelivered);
	return result.emit.length ? [ctx.helpers.returnJsonArray(result.emit as IDataObject[])] : null;
}

/** "Fetch Test Event": the latest matching record of the event; no state is read or moved. */
export async function testFinalStatusEvent(
	ctx: IPollFunctions,
	filter: InboxFilter,
	kind: FinalStatusEvent,
	callMode: CallMode,
): Promise<IDataObject> {
	if (kind === 'smsDelivered')
		return await latestSms(ctx, filter, Date.now(), {
			direction: 'sent',
			accept: (record) => record.status === 'delivered',
			none: 'No sent SMS has been delivered',
		});
	checkCallFilter(ctx, filter, callMode);
	// Most recent first: the first call that is final is the latest that ended.
	const ended = (await fetchCalls(ctx, filter, callMode, {})).messages.find(
		(record) =>
			typeof record === 'object' &&
			record !== null &&
			isFinalStatus('call', (record as SmsRecord).status),
	);
	if (ended) return ended as IDataObject;
	throw new NodeOperationError(
		ctx.getNode(),
		`No ${callMode === 'ai' ? 'AI' : 'manual'} call has ended yet among the latest 200, so there is no test event to show`,
		{
			description:
				'Make a call (the Comms Account node, Call: Create), then fetch the test event again once it has ended.',
		},
	);
}
