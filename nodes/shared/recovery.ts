/**
 * Finding out what became of a write whose outcome is unknown (a 500, a gateway's 502/503/504,
 * a broken connection or a timeout after the request was sent), so that it is neither sent
 * twice nor lost.
 *
 * Pure: the matching of history records against the request, the per-execution set of
 * records already claimed by an item, and the gate that keeps a look-up from racing the
 * sends it could be confused with. The transport and `accountLookups.ts` do the requests.
 */
import type { IDataObject } from 'n8n-workflow';

/** What a look-up found. */
export type LookupResult =
	/** The request's record, in the shape of the create result, and the identifiers to claim. */
	| { kind: 'found'; result: IDataObject; ids: string[] }
	/** The history shows the request was not carried out: it may be sent again. */
	| { kind: 'absent' }
	/** The history cannot tell (ambiguous, incomplete or unreadable): why, in a sentence. */
	| { kind: 'undecided'; reason: string };

/** Where in time to look, and which records other items of this execution already own. */
export interface LookupWindow {
	/** Records from before this instant (epoch ms, server time) are not the request's. */
	sinceMs: number;
	isClaimed(ids: string[]): boolean;
}

/**
 * What is known of a server's clock, from the `Date` header of one answer: the server's time
 * when it wrote the header lies between `lowMs` and `lowMs + spreadMs` after subtracting our
 * own clock (the header's whole second, and how long that request took, start to end).
 */
export interface ServerClock {
	/** The least the server's clock can be ahead of ours (ms; negative when behind). */
	lowOffsetMs: number;
}

/**
 * Margin below the moment the request was first sent, on top of what the clocks' uncertainty
 * already allows: the server may stamp a record a little before the request is in full.
 */
export const SINCE_MARGIN_MS = 1_000;
/**
 * The margin when the server gave no `Date` header (some gateways strip it): the n8n host's
 * clock is then taken for the server's, and hosts kept by NTP agree within this much. Wider
 * would take an earlier identical message for this one; narrower, miss this one.
 */
export const SINCE_MARGIN_UNKNOWN_CLOCK_MS = 5_000;

/**
 * The `since` of a look-up: the earliest instant, on the server's clock, at which a record the
 * request made can be stamped. With the server's clock known, the request's start moved by the
 * least offset the `Date` header allows; otherwise our own clock, with a margin for skew.
 */
export function lookupSince(firstSentWallMs: number, clock: ServerClock | undefined): number {
	return clock === undefined
		? firstSentWallMs - SINCE_MARGIN_UNKNOWN_CLOCK_MS
		: firstSentWallMs + clock.lowOffsetMs - SINCE_MARGIN_MS;
}

/**
 * What an answer's `Date` header says of the server's clock, for a request sent at
 * `sentWallMs` whose answer arrived at `receivedWallMs` (our clock). The server wrote the
 * header between the two, in whole seconds: so its clock is ahead of ours by at least
 * `date - received`. Undefined without a readable header.
 */
export function serverClockOf(
	dateHeader: unknown,
	sentWallMs: number,
	receivedWallMs: number,
): ServerClock | undefined {
	const value = Array.isArray(dateHeader) ? dateHeader[0] : dateHeader;
	if (typeof value !== 'string') return undefined;
	const serverMs = Date.parse(value);
	if (Number.isNaN(serverMs)) return undefined;
	return { lowOffsetMs: serverMs - Math.max(sentWallMs, receivedWallMs) };
}

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
 * Decides from the candidates: records that match the request, are recent enough and are not
 * another item's. `unsure`: records that match but whose time cannot be read.
 */
function decide(
	matching: IDataObject[],
	{
		timeFields,
		sinceMs,
		full,
		ids,
		shape,
		noun,
	}: {
		/** The record's fields that date it, in order of preference. */
		timeFields: string[];
		/** Only records made since then can be this item's. */
		sinceMs: number;
		full: boolean;
		ids: (record: IDataObject) => string[];
		shape: (record: IDataObject) => IDataObject;
		noun: string;
	},
): LookupResult {
	const times = matching.map((record) => timeOf(record, timeFields));
	const candidates = matching.filter((_, i) => times[i] !== undefined && times[i]! >= sinceMs);
	const unsure = times.filter((time) => time === undefined).length;
	if (candidates.length > 1) {
		return {
			kind: 'undecided',
			reason: `${candidates.length} matching ${noun} records were made since it was sent, and nothing tells which one, if any, is this item's`,
		};
	}
	if (unsure > 0)
		return {
			kind: 'undecided',
			reason: `a matching ${noun} record has no readable time, so it cannot be told apart from an earlier one`,
		};
	if (candidates.length === 1)
		return { kind: 'found', result: shape(candidates[0]), ids: ids(candidates[0]) };
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
		sinceMs: window.sinceMs,
		full: records.length >= pageLimit,
		ids: smsIds,
		shape: (record) => sendResultOf(record, sms),
		noun: 'SMS',
	});
}

/**
 * The latest SMS in a page of GET /v1/sms that was sent to `sms.to` with exactly `sms.message`
 * at or after `sinceMs` (the page asked for that sender and recipient), in the shape of a send
 * result; undefined when there is none.
 */
export function latestSentSms(
	page: unknown,
	sms: SmsSend,
	sinceMs: number,
): IDataObject | undefined {
	const records = recordsOf(page, 'messages');
	if (typeof records === 'string') return undefined;
	let latest: { record: IDataObject; time: number } | undefined;
	for (const record of records) {
		if (
			(record.direction !== undefined && record.direction !== 'sent') ||
			record.toNumber !== sms.to ||
			record.body !== sms.message
		)
			continue;
		const time = timeOf(record, ['sentAt', 'createdAt']);
		if (time === undefined || time < sinceMs) continue;
		if (!latest || time > latest.time) latest = { record, time };
	}
	return latest && sendResultOf(latest.record, sms);
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
		sinceMs: window.sinceMs,
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

/**
 * The records sends in this process have claimed as theirs (their own successes, and what
 * their look-ups found), so that no other send, of this execution or another, takes them.
 * Bounded: a claim is dropped `ttlMs` after it was made, long after any look-up that could
 * meet the record (look-ups only read records made since just before their own send).
 */
export class ClaimLedger {
	private readonly claimed = new Map<string, number>();

	constructor(private readonly ttlMs = 60 * 60_000) {}

	isClaimed(ids: string[]): boolean {
		return ids.some((id) => this.claimed.has(id));
	}

	claim(ids: string[], nowMs: number): void {
		// Oldest first (a Map keeps insertion order): drop what has expired.
		for (const [id, at] of this.claimed) {
			if (nowMs - at < this.ttlMs) break;
			this.claimed.delete(id);
		}
		for (const id of ids) {
			this.claimed.delete(id);
			this.claimed.set(id, nowMs);
		}
	}

	get size(): number {
		return this.claimed.size;
	}
}

/**
 * Per key (say, calls to one customer from one number), sends may overlap one another, but a
 * look-up waits for every send in flight to finish and claim its record, and holds new sends
 * back until it is done. Otherwise a look-up could take the record of a send whose answer was
 * still on its way, and that item's request would be lost. First come, first served.
 */
export class LookupGate {
	private readonly keys = new Map<
		string,
		{
			sending: number;
			lookingUp: boolean;
			queue: Array<{ kind: 'send' | 'lookUp'; grant: () => void }>;
		}
	>();

	/** Waits for the key's turn; resolves with the function that leaves. */
	enter(key: string, kind: 'send' | 'lookUp'): Promise<() => void> {
		let state = this.keys.get(key);
		if (!state) {
			state = { sending: 0, lookingUp: false, queue: [] };
			this.keys.set(key, state);
		}
		const entry = state;
		return new Promise((resolve) => {
			entry.queue.push({
				kind,
				grant: () => {
					let left = false;
					resolve(() => {
						if (left) return;
						left = true;
						if (kind === 'send') entry.sending--;
						else entry.lookingUp = false;
						this.pump(key);
					});
				},
			});
			this.pump(key);
		});
	}

	private pump(key: string): void {
		const state = this.keys.get(key);
		if (!state) return;
		while (state.queue.length && !state.lookingUp) {
			const next = state.queue[0];
			if (next.kind === 'lookUp' && state.sending > 0) break;
			state.queue.shift();
			if (next.kind === 'send') state.sending++;
			else state.lookingUp = true;
			next.grant();
		}
		if (!state.queue.length && !state.sending && !state.lookingUp) this.keys.delete(key);
	}
}
