/**
 * The "Call Ended" and "SMS Delivered" events: outcomes read back through the history
 * endpoints (GET /v1/calls, GET /v1/sms?direction=sent), tracked by id until final (see
 * outcomes.ts).
 */
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { collectSms, MAX_PAGE_SIZE, type SmsRecord } from '../shared/smsPaging';
import { accountApiRequest } from '../shared/transport';
import { fetchSms, type InboxFilter, latestSms } from './inbox';
import { fingerprint } from './lifecycle';
import {
	CALL_IN_PROGRESS,
	DEFAULT_OUTCOME_SETTINGS,
	describeRecord,
	type OutcomeKind,
	outcomeBaseline,
	outcomeSince,
	type OutcomeState,
	parseOutcomeState,
	trackOutcomes,
} from './outcomes';
import { apiNow, forOtherFilters, type PollSetup, reportSkipped, startOf } from './setup';

export type CallMode = 'manual' | 'ai';

/** Where each event keeps its state in the node's static data. */
const STATE_KEYS: Record<OutcomeKind, string> = {
	callEnded: 'callOutcomes',
	smsDelivered: 'deliveryOutcomes',
};

/** Sent SMS read in one poll at most (pages of 200, oldest first when the server allows). */
const MAX_SENT_PER_POLL = 2000;

/** The calls of one mode, most recent first, at most 200 (the API has no paging cursor). */
async function fetchCalls(
	ctx: IPollFunctions,
	filter: InboxFilter,
	callMode: CallMode,
	since: string | undefined,
	maxWaitMs?: number,
): Promise<unknown[]> {
	const body = await accountApiRequest(ctx, {
		method: 'GET',
		path: '/v1/calls',
		maxWaitMs,
		qs: {
			mode: callMode,
			phoneDocId: filter.phoneDocId,
			peer: filter.peer,
			since,
			limit: MAX_PAGE_SIZE,
		},
	});
	return Array.isArray(body.calls) ? (body.calls as unknown[]) : [];
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

async function readRecords(
	ctx: IPollFunctions,
	kind: OutcomeKind,
	filter: InboxFilter,
	callMode: CallMode,
	since: string | undefined,
	maxWaitMs: number,
): Promise<unknown[]> {
	if (kind === 'callEnded') return await fetchCalls(ctx, filter, callMode, since, maxWaitMs);
	const { messages } = await collectSms(
		async (query) => await fetchSms(ctx, filter, query, { direction: 'sent', maxWaitMs }),
		{ limit: MAX_SENT_PER_POLL, since },
	);
	return messages;
}

export async function pollOutcomeEvent(
	ctx: IPollFunctions,
	setup: PollSetup,
	kind: OutcomeKind,
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
	const settings = { ...DEFAULT_OUTCOME_SETTINGS, lookBackMs: setup.lookBackMs };
	const staticData = ctx.getWorkflowStaticData('node');
	const key = STATE_KEYS[kind];
	let stored = parseOutcomeState(staticData[key], kind);
	if (staticData[key] !== undefined && !stored)
		ctx.logger.warn(
			'Comms Account Trigger: the stored state could not be read; starting again from now',
		);
	if (forOtherFilters(ctx, stored?.fp, fp)) stored = undefined;
	const read = async (since: string | undefined) =>
		await readRecords(ctx, kind, filter, callMode, since, setup.maxWaitMs);
	// One small request, to read the API's clock (its Date header) for the baseline.
	const readClock = async () =>
		kind === 'callEnded'
			? await fetchCalls(ctx, filter, callMode, undefined, setup.maxWaitMs)
			: await fetchSms(
					ctx,
					filter,
					{ limit: 1 },
					{ direction: 'sent', maxWaitMs: setup.maxWaitMs },
				);
	const state: OutcomeState = stored
		? { ...stored, fp }
		: outcomeBaseline(kind, await startOf(ctx, fp, setup, async () => await readClock()), fp);

	const records = await read(new Date(outcomeSince(state, settings)).toISOString());
	if (kind === 'callEnded' && records.length >= MAX_PAGE_SIZE)
		ctx.logger.warn(
			'Comms Account Trigger: 200 calls or more were made since the oldest call still in progress; the API returns only the most recent 200, so older calls that ended meanwhile are not emitted. Split the trigger by Phone Number or Peer, or poll more often.',
		);
	const result = trackOutcomes(state, records, await apiNow(ctx), settings);
	staticData[key] = result.state as unknown as IDataObject;
	reportSkipped(ctx, result.skipped, kind === 'callEnded' ? 'call' : 'SMS');
	return result.emit.length ? [ctx.helpers.returnJsonArray(result.emit as IDataObject[])] : null;
}

/** "Fetch Test Event": the latest matching record of the event; no state is read or moved. */
export async function testOutcomeEvent(
	ctx: IPollFunctions,
	filter: InboxFilter,
	kind: OutcomeKind,
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
	const ended = (await fetchCalls(ctx, filter, callMode, undefined)).find(
		(record) =>
			typeof record === 'object' &&
			record !== null &&
			!CALL_IN_PROGRESS.has(describeRecord('callEnded', record as SmsRecord).status),
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
