/**
 * Records in progress, watched through the history endpoints until their status is final: a
 * call reaching a final state (GET /v1/calls) and a sent SMS becoming `delivered` (GET
 * /v1/sms?direction=sent). Pure: no n8n, no clock, no I/O; the node gives it the API's answers
 * and stores the state it returns.
 *
 * Neither final status has a time of its own to page by: a record keeps the time it was created
 * (a call's `createdAt`, an SMS's `sentAt`) while its status changes. So a poll:
 *
 * - **reads new records from the position of what has been seen**, through the same cursor as
 *   SMS Received (historyCursor.ts): the window before the newest record seen, paged forward when
 *   the API answers oldest first, up to `maxPages` pages, resumed by the next poll;
 * - **tracks by id** each record it has seen in progress (`pending`: its time, last status,
 *   when it was last seen, when to look at it next, and how to look it up), so a record that
 *   never reaches a final state holds nothing else back. A record in progress the window still
 *   returns is seen there; one that has left it is **looked up by id** (GET /v1/sms?messageId=,
 *   GET /v1/calls?callId=&phoneDocId=), at most `maxLookups` a poll, the earliest due first, each
 *   again after half its age (at least `minRecheckMs`, at most `maxRecheckMs`). A call that can
 *   be looked up by no number (no phoneDocId in the record or the filter) is looked for instead
 *   with one page read from its time, at most one such read a poll;
 * - **emits a record once**, the first time it is seen at a status known to be final
 *   (../api/statuses.ts; a call: any ending; an SMS: `delivered`, while a failure
 *   such as `failed` or `undelivered` ends the wait with nothing emitted, and is reported), and
 *   remembers it (historyCursor.ts) while a poll can return it again; any other status, one
 *   nobody listed included, is in progress (and reported once per status, with a record's id);
 * - **watches a record in progress for `maxPendingMs`** (a day) from its time: then it is looked
 *   up once more, and if still not final a call is emitted as last seen with
 *   `stillInProgress: true`, an SMS is no longer watched (counted, for a log line);
 * - keeps at most `maxPending` records in progress: beyond them, the oldest is let go as at the
 *   end of its watch (counted);
 * - emits a record with no usable time once by id (dated at the poll that first read it),
 *   and never again while the server keeps returning it (historyCursor.ts).
 *
 * State saved before tracking by id (v1: `since` held at the oldest record in progress) is read
 * and carried over: the next poll reads on from the oldest record that was pending, and those
 * records are tracked by id from then on.
 */
import {
	type CursorSettings,
	type CursorState,
	DEFAULT_SETTINGS,
	type RecordShape,
} from './cursorState';
import type { PageRequest, Shortfall, Stop } from './pageReading';
import type { SmsPage, SmsRecord } from '../api/smsPaging';
import { isFinalStatus, type StatusKind } from '../api/statuses';

export type FinalStatusEvent = 'callEnded' | 'smsDelivered';

/**
 * A record seen in progress: `[id, time ms, last status, ms last seen, ms of its next look,
 * how to look it up (SMS: its messageId; calls: callId and phoneDocId; [] when it cannot be),
 * 1 if the list gives it a usable time else 0]`. A record without one is dated when first seen.
 */
export type InProgressEntry = [string, number, string, number, number, string[], 0 | 1];

export interface InProgressState {
	v: 2;
	kind: FinalStatusEvent;
	/** Where the list reads start, and the ids of records emitted or let go. */
	window: CursorState;
	/** Records seen in progress, oldest first. */
	pending: InProgressEntry[];
	/** What the state is for (event and filters). */
	fp?: string;
}

export interface InProgressSettings {
	/** How the list is read (its `lookBackMs` is the Late Arrival Window). */
	reader: CursorSettings;
	/** How long a record in progress is watched, from its time. */
	maxPendingMs: number;
	/** The most records in progress watched at once. */
	maxPending: number;
	/** The most look-ups by id one poll makes. */
	maxLookups: number;
	/** The shortest and longest time between two looks at a record in progress. */
	minRecheckMs: number;
	maxRecheckMs: number;
	/** The trigger's Phone Number filter: a call is looked up on it when its record names none. */
	phoneDocId?: string;
}

const HOUR = 60 * 60_000;

export const DEFAULT_IN_PROGRESS_SETTINGS: InProgressSettings = {
	reader: DEFAULT_SETTINGS,
	maxPendingMs: 24 * HOUR,
	maxPending: 1000,
	maxLookups: 10,
	minRecheckMs: 1000,
	maxRecheckMs: HOUR,
};

function text(value: unknown): string | undefined {
	return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

/** A record's id, time (ms, NaN if none) and status ('' when it has no readable one). */
export function describeRecord(
	kind: FinalStatusEvent,
	record: SmsRecord,
): { id: string | undefined; at: number; status: string } {
	const id = text(
		kind === 'callEnded' ? (record.id ?? record.callSid) : (record.id ?? record.messageId),
	);
	const time =
		kind === 'callEnded'
			? (record.createdAt ?? record.startedAt)
			: (record.sentAt ?? record.createdAt);
	const at = typeof time === 'string' ? Date.parse(time) : NaN;
	const status = typeof record.status === 'string' ? record.status : '';
	return { id, at, status };
}

/** How the cursor tells the records of an event apart and dates them. */
export function inProgressShape(kind: FinalStatusEvent): RecordShape {
	return {
		key: (record) => describeRecord(kind, record).id,
		time: (record) => describeRecord(kind, record).at,
	};
}

export const STATUS_KIND: Record<FinalStatusEvent, StatusKind> = {
	callEnded: 'call',
	smsDelivered: 'sms',
};

/**
 * Whether a status is on the way to a final one: any status not known to be final
 * (../api/statuses.ts), a record without a readable status included.
 */
export function inProgress(kind: FinalStatusEvent, status: string): boolean {
	return !isFinalStatus(STATUS_KIND[kind], status);
}

/** How a record is looked up by id: SMS by messageId; calls by callId on a number. */
export function refOf(
	kind: FinalStatusEvent,
	record: SmsRecord,
	phoneDocId?: string,
): string[] | undefined {
	if (kind === 'smsDelivered') {
		const messageId = text(record.messageId);
		return messageId === undefined ? undefined : [messageId];
	}
	const callId = text(record.callId ?? record.callSid ?? record.id);
	const number = text(record.phoneDocId) ?? (phoneDocId || undefined);
	return callId === undefined || number === undefined ? undefined : [callId, number];
}

/** The API's answers a poll of records in progress needs. */
export interface InProgressIo {
	/** One page of the list. */
	fetchPage(request: PageRequest): Promise<SmsPage>;
	/** One record by id (`ref`: see InProgressEntry); undefined when the API has no such record. */
	lookup(ref: string[]): Promise<SmsRecord | undefined>;
}

export interface InProgressPollOptions {
	settings?: InProgressSettings;
	/** The clock, read once the pages are read (nothing is dated past it). */
	now: () => number;
	/** Asked before each page after the first: false ends the list reading (the time budget). */
	keepReading?: () => boolean;
}

export interface InProgressResult {
	state: InProgressState;
	/** What to emit, oldest first, each once. */
	emit: SmsRecord[];
	/** List pages read, look-ups by id, and pages read to look for calls that have no number. */
	pages: number;
	lookups: number;
	revisits: number;
	shortfall?: Shortfall;
	newMayBeHidden: boolean;
	stopped?: Stop;
	steppedPast?: number[];
	/** Entries that were not records (or had no id), skipped. */
	skipped: number;
	/** Records without a usable time among `emit`. */
	undated: number;
	/** SMS in progress no longer watched: at the end of their watch, or for room. */
	expired: number;
	overflowed: number;
	/** Records in progress the API no longer had (or refused to look up). */
	gone: number;
	/** Records in progress due for a look that waited for the next poll (`maxLookups`). */
	deferred: number;
	/** Statuses the package does not know (as compared: statuses.ts), read this poll, each with a record that had it. */
	unlisted: Array<[status: string, id: string]>;
	/** Sent SMS that ended without being delivered this poll (SMS Delivered does not fire): id and status. */
	undelivered: Array<[id: string, status: string]>;
}
