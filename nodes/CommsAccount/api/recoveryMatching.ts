/**
 * Unknown-outcome recovery, the Account API's pure half: does a page of the SMS or call history
 * hold the record a write whose outcome is unknown may have made? Matching only; the requests
 * are in `recoveryLookups.ts`, when they happen in `../../shared/transport/recovery.ts`.
 */
import type { IDataObject } from 'n8n-workflow';

import type { LookupResult, LookupWindow } from '../../shared/transport';

function text(value: unknown): string | undefined {
	return typeof value === 'string' && value !== ''
		? value
		: typeof value === 'number'
			? String(value)
			: undefined;
}

function timeOf(record: IDataObject, keys: string[]): number | undefined {
	for (const key of keys) {
		const value = record[key];
		if (typeof value === 'string') {
			const ms = Date.parse(value);
			if (!Number.isNaN(ms)) return ms;
		}
	}
	return undefined;
}

function idsOf(record: IDataObject, keys: string[]): string[] {
	return keys.map((key) => text(record[key])).filter((id): id is string => id !== undefined);
}

/** Identifiers of an SMS: in a send result (`messageId`) or a history record (`messageId`, `id`). */
export function smsIds(body: IDataObject): string[] {
	return idsOf(body, ['messageId', 'id']).map((id) => `sms:${id}`);
}

/** Identifiers of a call: in a create result (`callId`, `callSid`) or a history record (`id`, `callId`, `callSid`). */
export function callIds(body: IDataObject): string[] {
	return idsOf(body, ['callId', 'callSid', 'id']).map((id) => `call:${id}`);
}

/** The records of a history page, or why there are none to read. */
function recordsOf(page: unknown, listKey: string): IDataObject[] | string {
	if (!page || typeof page !== 'object') return 'the history could not be read';
	const list = (page as IDataObject)[listKey];
	if (!Array.isArray(list)) return `the history answer has no "${listKey}" list`;
	return list.filter(
		(entry): entry is IDataObject =>
			entry !== null && typeof entry === 'object' && !Array.isArray(entry),
	);
}

/**
 * Decides from the candidates: records that match the request, are stamped where its record can
 * be whatever the API's clock (from `window.sinceMs` on) and are not another item's. None, on a
 * page that holds all there is: absent. `unsure`: records that match but whose time cannot be
 * read. Of the candidates, one made once the request had been sent (from `window.madeAfterMs` on,
 * as what was measured of the clock tells) is the request's; one stamped before that, where the
 * API's clock is not known well enough to tell it from an earlier identical record (or stepped),
 * is neither taken nor ruled out: with no other, the history cannot tell.
 */
function decide(
	matching: IDataObject[],
	{
		timeFields,
		window,
		full,
		ids,
		shape,
		noun,
	}: {
		/** The record's fields that date it, in order of preference. */
		timeFields: string[];
		/** Where this item's record can be, and from when it is told for this item's (read now: after the request). */
		window: LookupWindow;
		full: boolean;
		ids: (record: IDataObject) => string[];
		shape: (record: IDataObject) => IDataObject;
		noun: string;
	},
): LookupResult {
	const { sinceMs, madeAfterMs } = window;
	const times = matching.map((record) => timeOf(record, timeFields));
	const candidates = matching.filter((_, i) => times[i] !== undefined && times[i]! >= sinceMs);
	// Made once the request had been sent (within the same moment): it, or a later identical one.
	const after = candidates.filter((record) => timeOf(record, timeFields)! >= madeAfterMs);
	const unsure = times.filter((time) => time === undefined).length;
	if (after.length > 1) {
		return {
			kind: 'undecided',
			reason: `${after.length} matching ${noun} records were made since it was sent, and nothing tells which one, if any, is this item's`,
		};
	}
	if (unsure > 0)
		return {
			kind: 'undecided',
			reason: `a matching ${noun} record has no readable time, so it cannot be told apart from an earlier one`,
		};
	if (after.length === 1) return { kind: 'found', result: shape(after[0]), ids: ids(after[0]) };
	if (candidates.length > 0)
		return {
			kind: 'undecided',
			reason: `a matching ${noun} record is stamped ${new Date(timeOf(candidates[0], timeFields)!).toISOString()}, and the API's clock is not known well enough to tell whether it was made by this request or is an earlier identical one`,
		};
	if (full)
		return {
			kind: 'undecided',
			reason: `the history returned a full page, so a matching ${noun} record may be on a page it did not return`,
		};
	return { kind: 'absent' };
}

/** An SMS send as the request had it. */
export interface SmsSend {
	phoneDocId: string;
	to: string;
	message: string;
}

/**
 * Finds the SMS a send created, in a page of GET /v1/sms (asked for with that phoneDocId,
 * peer = the recipient, direction sent, since just before the send). A record matches when it
 * was sent to that recipient, carries exactly that text, was sent at or after `sinceMs`, came
 * through this API (when its `source` says) and is not already another item's. The filters
 * are checked here again, whatever the server applied.
 */
export function matchSentSms(
	page: unknown,
	sms: SmsSend,
	window: LookupWindow,
	pageLimit: number,
): LookupResult {
	const records = recordsOf(page, 'messages');
	if (typeof records === 'string') return { kind: 'undecided', reason: records };
	const matching = records.filter(
		(record) =>
			(record.direction === undefined || record.direction === 'sent') &&
			record.toNumber === sms.to &&
			record.body === sms.message &&
			(record.source === undefined || record.source === 'account-api') &&
			!window.isClaimed(smsIds(record)),
	);
	return decide(matching, {
		timeFields: ['sentAt', 'createdAt'],
		window,
		full: records.length >= pageLimit,
		ids: smsIds,
		shape: (record) => sendResultOf(record, sms),
		noun: 'SMS',
	});
}

/** The record as the send result the API would have returned. */
function sendResultOf(record: IDataObject, sms: SmsSend): IDataObject {
	const result: IDataObject = {
		success: true,
		messageId: record.messageId ?? record.id,
		status: record.status,
		from: record.fromNumber,
		to: record.toNumber,
		phoneDocId: sms.phoneDocId,
	};
	if (typeof record.segments === 'number') result.segmentsUsed = record.segments;
	if (record.sentAt !== undefined) result.sentAt = record.sentAt;
	return result;
}

/** A call creation as the request had it. */
export interface CallCreate {
	phoneDocId: string;
	to: string;
	mode: 'manual' | 'ai';
	agentPhone?: string;
	customerName?: string;
	callPurpose?: string;
}

/** A field the record may leave out, but must agree with when it has it and the request set it. */
function agrees(record: IDataObject, key: string, wanted: unknown): boolean {
	return (
		wanted === undefined ||
		record[key] === undefined ||
		record[key] === null ||
		record[key] === wanted
	);
}

/**
 * Finds the call a creation made, in a page of GET /v1/calls (asked for with that mode and
 * phoneDocId, peer = the customer, since just before the request). A record matches when it
 * is to that customer, of that mode, from that number, created at or after `sinceMs`, agrees
 * with what the request said (agent phone, customer name, purpose) where it says it, and is
 * not already another item's.
 */
export function matchCreatedCall(
	page: unknown,
	call: CallCreate,
	window: LookupWindow,
	pageLimit: number,
): LookupResult {
	const records = recordsOf(page, 'calls');
	if (typeof records === 'string') return { kind: 'undecided', reason: records };
	const matching = records.filter(
		(record) =>
			record.to === call.to &&
			agrees(record, 'mode', call.mode) &&
			agrees(record, 'direction', 'outbound') &&
			agrees(record, 'phoneDocId', call.phoneDocId) &&
			agrees(record, 'agentPhone', call.agentPhone) &&
			agrees(record, 'customerName', call.customerName) &&
			agrees(record, 'callPurpose', call.callPurpose) &&
			!window.isClaimed(callIds(record)),
	);
	return decide(matching, {
		timeFields: ['createdAt', 'startedAt'],
		window,
		full: records.length >= pageLimit,
		ids: callIds,
		shape: (record) => createResultOf(record, call),
		noun: 'call',
	});
}

/** The record as the creation result the API would have returned. */
function createResultOf(record: IDataObject, call: CallCreate): IDataObject {
	const callSid = record.callSid ?? record.id;
	const result: IDataObject = {
		success: true,
		callId: call.mode === 'ai' ? callSid : (record.callId ?? record.id),
		callSid,
		status: record.status,
		phoneDocId: call.phoneDocId,
		from: record.from,
		to: record.to,
	};
	if (call.mode === 'ai') {
		result.mode = 'ai';
		if (record.voiceName !== undefined) result.voiceUsed = { name: record.voiceName };
	} else if (record.agentPhone !== undefined) {
		result.agentPhone = record.agentPhone;
	}
	if (record.createdAt !== undefined) result.createdAt = record.createdAt;
	return result;
}
