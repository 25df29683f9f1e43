/**
 * Outcomes read back through the history endpoints: a call reaching a final state (GET
 * /v1/calls) and a sent SMS becoming `delivered` (GET /v1/sms?direction=sent). Pure: no n8n,
 * no clock, no I/O; the node gives it the API's answers and stores the state it returns.
 *
 * Neither outcome has a time of its own to page by: a record keeps the time it was created
 * (a call's `createdAt`, an SMS's `sentAt`) while its status changes. So a poll:
 *
 * - **reads new records from the position of what has been seen**, through the same cursor as
 *   SMS Received (historyCursor.ts): the window before the newest record seen, paged forward when
 *   the API answers oldest first, up to `maxPages` pages, resumed by the next poll;
 * - **tracks by id** each record it has seen in progress (`pending`: its time, last status,
 *   when it was last seen, when to look at it next, and how to look it up), so a record that
 *   never reaches a final state holds nothing else back. A pending record the window still
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
 * - **watches a pending record for `maxPendingMs`** (a day) from its time: then it is looked
 *   up once more, and if still not final a call is emitted as last seen with
 *   `stillInProgress: true`, an SMS is no longer watched (counted, for a log line);
 * - keeps at most `maxPending` pending records: beyond them, the oldest is let go as at the
 *   end of its watch (counted);
 * - emits a record with no usable time once by id (dated at the poll that first read it),
 *   and never again while the server keeps returning it (historyCursor.ts).
 *
 * State saved before tracking by id (v1: `since` held at the oldest pending record) is read
 * and carried over: the next poll reads on from the oldest record that was pending, and those
 * records are tracked by id from then on.
 */
import {
	baseline,
	type CursorSettings,
	type CursorState,
	DEFAULT_SETTINGS,
	endPoll,
	FUTURE_TOLERANCE_MS,
	inTimeOrder,
	type PageRequest,
	parseState,
	readPoll,
	type RecordShape,
	type Shortfall,
	type Stop,
} from './historyCursor';
import { isSmsRecord, type SmsPage, type SmsRecord } from '../api/smsPaging';
import {
	isDelivered,
	isFinalStatus,
	isKnownStatus,
	statusOf,
	type StatusKind,
} from '../api/statuses';

export type OutcomeKind = 'callEnded' | 'smsDelivered';

/**
 * A record seen in progress: `[id, time ms, last status, ms last seen, ms of its next look,
 * how to look it up (SMS: its messageId; calls: callId and phoneDocId; [] when it cannot be),
 * 1 if the list gives it a usable time else 0]`. A record without one is dated when first seen.
 */
export type PendingEntry = [string, number, string, number, number, string[], 0 | 1];

export interface OutcomeState {
	v: 2;
	kind: OutcomeKind;
	/** Where the list reads start, and the ids of records emitted or let go. */
	window: CursorState;
	/** Records seen in progress, oldest first. */
	pending: PendingEntry[];
	/** What the state is for (event and filters). */
	fp?: string;
}

export interface OutcomeSettings {
	/** How the list is read (its `lookBackMs` is the Late Arrival Window). */
	reader: CursorSettings;
	/** How long a record in progress is watched, from its time. */
	maxPendingMs: number;
	/** The most records in progress watched at once. */
	maxPending: number;
	/** The most look-ups by id one poll makes. */
	maxLookups: number;
	/** The shortest and longest time between two looks at a pending record. */
	minRecheckMs: number;
	maxRecheckMs: number;
	/** The trigger's Phone Number filter: a call is looked up on it when its record names none. */
	phoneDocId?: string;
}

const HOUR = 60 * 60_000;

export const DEFAULT_OUTCOME_SETTINGS: OutcomeSettings = {
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
	kind: OutcomeKind,
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

/** How the cursor tells the records of an outcome apart and dates them. */
export function outcomeShape(kind: OutcomeKind): RecordShape {
	return {
		key: (record) => describeRecord(kind, record).id,
		time: (record) => describeRecord(kind, record).at,
	};
}

const STATUS_KIND: Record<OutcomeKind, StatusKind> = { callEnded: 'call', smsDelivered: 'sms' };

/**
 * Whether a status is on the way to a final one: any status not known to be final
 * (../api/statuses.ts), a record without a readable status included.
 */
export function inProgress(kind: OutcomeKind, status: string): boolean {
	return !isFinalStatus(STATUS_KIND[kind], status);
}

/** Whether the event fires at this final status: a call at any ending, an SMS once delivered. */
function fires(kind: OutcomeKind, status: string): boolean {
	return kind === 'callEnded' || isDelivered(status);
}

/** How a record is looked up by id: SMS by messageId; calls by callId on a number. */
function refOf(kind: OutcomeKind, record: SmsRecord, phoneDocId?: string): string[] | undefined {
	if (kind === 'smsDelivered') {
		const messageId = text(record.messageId);
		return messageId === undefined ? undefined : [messageId];
	}
	const callId = text(record.callId ?? record.callSid ?? record.id);
	const number = text(record.phoneDocId) ?? (phoneDocId || undefined);
	return callId === undefined || number === undefined ? undefined : [callId, number];
}

/** The state of an outcome trigger that has never polled: its list read from `start` (a time, or a starting state). */
export function outcomeBaseline(
	kind: OutcomeKind,
	start: number | CursorState,
	fp?: string,
): OutcomeState {
	return {
		v: 2,
		kind,
		window: typeof start === 'number' ? baseline(start) : start,
		pending: [],
		...(fp === undefined ? {} : { fp }),
	};
}

const finite = (value: unknown): value is number =>
	typeof value === 'number' && Number.isFinite(value);

function isPendingEntry(entry: unknown): entry is PendingEntry {
	return (
		Array.isArray(entry) &&
		entry.length === 7 &&
		typeof entry[0] === 'string' &&
		finite(entry[1]) &&
		typeof entry[2] === 'string' &&
		finite(entry[3]) &&
		finite(entry[4]) &&
		Array.isArray(entry[5]) &&
		entry[5].every((part: unknown) => typeof part === 'string') &&
		(entry[6] === 0 || entry[6] === 1)
	);
}

/** A state saved before records were tracked by id: `since` was held at the oldest pending one. */
function fromV1(state: Record<string, unknown>, kind: OutcomeKind): OutcomeState | undefined {
	const { floor, cursor, pending, done } = state;
	if (!finite(floor) || !finite(cursor) || !Array.isArray(pending) || !Array.isArray(done))
		return undefined;
	const pendingOk = pending.every(
		(e) => Array.isArray(e) && typeof e[0] === 'string' && finite(e[1]) && typeof e[2] === 'string',
	);
	const doneOk = done.every((e) => Array.isArray(e) && typeof e[0] === 'string' && finite(e[1]));
	if (!pendingOk || !doneOk) return undefined;
	const old = pending as Array<[string, number, string]>;
	// The next poll reads on from the oldest record that was pending (done ids from there on
	// were kept): each is seen again, with what it takes to look it up, or looked for by page.
	const oldest = old.reduce((min, [, at]) => Math.min(min, at), Infinity);
	return {
		v: 2,
		kind,
		window: {
			v: 1,
			cursor,
			floor,
			seen: (done as Array<[string, number]>).map(([id, at]) => [id, at]),
			...(old.length ? { resume: Math.max(floor, oldest) } : {}),
		},
		pending: old.map(([id, at, status]): PendingEntry => [id, at, status, at, 0, [], 1]),
		...(typeof state.fp === 'string' ? { fp: state.fp } : {}),
	};
}

/** A stored state of this kind, checked (and carried over from v1); undefined when it is not one. */
export function parseOutcomeState(value: unknown, kind: OutcomeKind): OutcomeState | undefined {
	if (!value || typeof value !== 'object') return undefined;
	const state = value as Record<string, unknown>;
	if (state.kind !== kind) return undefined;
	if (state.v === 1) return fromV1(state, kind);
	if (state.v !== 2 || !Array.isArray(state.pending)) return undefined;
	const window = parseState(state.window);
	if (!window || !state.pending.every(isPendingEntry)) return undefined;
	return {
		v: 2,
		kind,
		window,
		pending: (state.pending as PendingEntry[]).map(
			([id, at, status, seen, check, ref, dated]): PendingEntry => [
				id,
				at,
				status,
				seen,
				check,
				[...ref],
				dated,
			],
		),
		...(typeof state.fp === 'string' ? { fp: state.fp } : {}),
	};
}

/** The API's answers an outcome poll needs. */
export interface OutcomeIo {
	/** One page of the list. */
	fetchPage(request: PageRequest): Promise<SmsPage>;
	/** One record by id (`ref`: see PendingEntry); undefined when the API has no such record. */
	lookup(ref: string[]): Promise<SmsRecord | undefined>;
}

export interface OutcomePollOptions {
	settings?: OutcomeSettings;
	/** The clock, read once the pages are read (nothing is dated past it). */
	now: () => number;
	/** Asked before each page after the first: false ends the list reading (the time budget). */
	keepReading?: () => boolean;
}

export interface OutcomeResult {
	state: OutcomeState;
	/** What to emit, oldest first, each once. */
	emit: SmsRecord[];
	/** List pages read, look-ups by id, and pages read to look for calls that have no number. */
	pages: number;
	lookups: number;
	revisits: number;
	shortfall?: Shortfall;
	newMayBeHidden: boolean;
	stopped?: Stop;
	steppedPast?: number;
	/** Entries that were not records (or had no id), skipped. */
	skipped: number;
	/** Records without a usable time among `emit`. */
	undated: number;
	/** Pending SMS no longer watched: at the end of their watch, or for room. */
	expired: number;
	overflowed: number;
	/** Pending records the API no longer had (or refused to look up). */
	gone: number;
	/** Pending records due for a look that waited for the next poll (`maxLookups`). */
	deferred: number;
	/** Statuses the package does not know (as compared: statuses.ts), read this poll, each with a record that had it. */
	unlisted: Array<[status: string, id: string]>;
	/** Sent SMS that ended without being delivered this poll (SMS Delivered does not fire): id and status. */
	undelivered: Array<[id: string, status: string]>;
}

interface Tracked {
	at: number;
	status: string;
	seen: number;
	check: number;
	ref: string[] | undefined;
	/** Whether the list gives the record a usable time (else it is remembered by id alone). */
	dated: boolean;
}

/** When to look at a pending record again: after half its age, within the settings' bounds. */
function nextCheck(settings: OutcomeSettings, nowMs: number, at: number): number {
	const wait = Math.min(settings.maxRecheckMs, Math.max(settings.minRecheckMs, (nowMs - at) / 2));
	// Never past the end of its watch: the last look is made then.
	return Math.min(nowMs + wait, at + settings.maxPendingMs);
}

/**
 * One poll: reads the list through `io.fetchPage`, looks up pending records by id, and returns
 * what to emit and the state to store. If a request fails, the error propagates and nothing of
 * this poll counts: the stored state is untouched.
 */
export async function pollOutcomes(
	start: OutcomeState,
	io: OutcomeIo,
	options: OutcomePollOptions,
): Promise<OutcomeResult> {
	const settings = options.settings ?? DEFAULT_OUTCOME_SETTINGS;
	const kind = start.kind;
	const shape = outcomeShape(kind);
	const pending = new Map<string, Tracked>(
		start.pending.map(([id, at, status, seen, check, ref, dated]) => [
			id,
			{ at, status, seen, check, ref: ref.length ? ref : undefined, dated: dated === 1 },
		]),
	);
	const poll = await readPoll(start.window, (request) => io.fetchPage(request), {
		settings: settings.reader,
		keepReading: options.keepReading,
		shape,
		tracked: new Set(pending.keys()),
	});
	const nowMs = options.now();

	const emit: Array<{ id: string; record: SmsRecord; at: number }> = [];
	const remember: Array<[string, number]> = [];
	const looked = new Set<string>();
	const lastRecord = new Map<string, SmsRecord>();
	let undated = 0;
	const unlisted = new Map<string, string>();
	const undelivered: Array<[string, string]> = [];
	/** A record of the list or a look-up: tracked while in progress, emitted once final. */
	const fold = (id: string, record: SmsRecord) => {
		const { at: listAt, status } = describeRecord(kind, record);
		if (!isKnownStatus(STATUS_KIND[kind], status) && !unlisted.has(statusOf(status)))
			unlisted.set(statusOf(status), id);
		looked.add(id);
		lastRecord.set(id, record);
		const known = pending.get(id);
		// Dated by the list, never further past now than the cursor remembers a time (a record the
		// API dates a little ahead of the earliest its clock can read is still at its own time).
		const at =
			known?.at ?? (Number.isNaN(listAt) ? nowMs : Math.min(listAt, nowMs + FUTURE_TOLERANCE_MS));
		if (inProgress(kind, status)) {
			pending.set(id, {
				at,
				status: status || known?.status || '',
				seen: nowMs,
				check: nextCheck(settings, nowMs, at),
				ref: refOf(kind, record, settings.phoneDocId) ?? known?.ref,
				dated: !Number.isNaN(listAt),
			});
			return;
		}
		pending.delete(id);
		// Remembered as the list dates it: a record the list gives no usable time is remembered by id.
		remember.push([id, listAt]);
		if (fires(kind, status)) {
			emit.push({ id, record, at });
			if (Number.isNaN(listAt)) undated++;
		} else undelivered.push([id, status]);
	};
	// A record a poll read more than once (on two pages, or twice on one) counts as last read.
	const read = new Map<string, SmsRecord>();
	for (const found of [...poll.found, ...poll.sightings].sort((a, b) => a.page - b.page))
		read.set(found.key, found.record);
	for (const [id, record] of read) fold(id, record);

	// Pending records the list did not return, due for a look: those at the end of their watch
	// first, then the earliest due; by id where a record says how, else by one page from its time.
	const expiring = (entry: Tracked) => nowMs >= entry.at + settings.maxPendingMs;
	const due = [...pending]
		.filter(([id, entry]) => !looked.has(id) && (entry.check <= nowMs || expiring(entry)))
		.sort(
			([, a], [, b]) =>
				Number(expiring(b)) - Number(expiring(a)) || a.check - b.check || a.at - b.at,
		);
	let lookups = 0;
	let gone = 0;
	let deferred = 0;
	const byPage: Array<[string, Tracked]> = [];
	for (const [id, entry] of due) {
		const ref = entry.ref ?? refOf(kind, { id }, settings.phoneDocId);
		if (!ref) {
			byPage.push([id, entry]);
			continue;
		}
		if (lookups >= settings.maxLookups) {
			deferred++;
			continue;
		}
		lookups++;
		const record = await io.lookup(ref);
		if (record === undefined || !isSmsRecord(record)) {
			pending.delete(id);
			looked.add(id);
			gone++;
			continue;
		}
		fold(id, record);
	}
	let revisits = 0;
	if (byPage.length) {
		// One page from the oldest of them: on an API answering oldest first it holds each record
		// after it too; newest first, only while fewer than a page came after it.
		const since = Math.min(...byPage.map(([, entry]) => entry.at));
		revisits++;
		const page = await io.fetchPage({
			since: new Date(since).toISOString(),
			limit: settings.reader.pageSize,
		});
		for (const record of Array.isArray(page?.messages) ? page.messages : []) {
			if (!isSmsRecord(record)) continue;
			const id = shape.key(record);
			if (id !== undefined && pending.has(id) && !looked.has(id)) fold(id, record);
		}
		for (const [id, entry] of byPage) {
			looked.add(id);
			const still = pending.get(id);
			if (still === entry) still.check = nextCheck(settings, nowMs, entry.at);
		}
	}

	// The end of a watch, and room: a call is emitted as last seen, flagged; an SMS is let go.
	let expired = 0;
	let overflowed = 0;
	const letGo = (id: string, entry: Tracked) => {
		pending.delete(id);
		remember.push([id, entry.dated ? entry.at : NaN]);
		if (kind === 'callEnded')
			emit.push({
				id,
				record: {
					...(lastRecord.get(id) ?? { id, status: entry.status }),
					stillInProgress: true,
				},
				at: entry.at,
			});
	};
	for (const [id, entry] of [...pending])
		if (expiring(entry) && looked.has(id)) {
			letGo(id, entry);
			if (kind === 'smsDelivered') expired++;
		}
	if (pending.size > settings.maxPending) {
		const oldestFirst = [...pending].sort(([, a], [, b]) => a.at - b.at);
		for (const [id, entry] of oldestFirst.slice(0, pending.size - settings.maxPending)) {
			letGo(id, entry);
			overflowed++;
		}
	}

	const ended = endPoll(poll, nowMs, remember);
	// Oldest first; records sharing a time in the order the server received them (as its pages
	// show it), then those a look-up found.
	const rank = new Map<string, number>();
	inTimeOrder(poll, [...poll.found, ...poll.sightings]).forEach((found, index) => {
		if (!rank.has(found.key)) rank.set(found.key, index);
	});
	const rankOf = (id: string) => rank.get(id) ?? Number.MAX_SAFE_INTEGER;
	emit.sort((a, b) => a.at - b.at || rankOf(a.id) - rankOf(b.id));
	return {
		state: {
			v: 2,
			kind,
			window: ended.state,
			pending: [...pending]
				.sort(([, a], [, b]) => a.at - b.at)
				.map(([id, { at, status, seen, check, ref, dated }]): PendingEntry => [
					id,
					at,
					status,
					seen,
					check,
					ref ?? [],
					dated ? 1 : 0,
				]),
			...(start.fp === undefined ? {} : { fp: start.fp }),
		},
		emit: emit.map((e) => e.record),
		pages: ended.pages,
		lookups,
		revisits,
		...(ended.shortfall ? { shortfall: ended.shortfall } : {}),
		newMayBeHidden: ended.newMayBeHidden,
		...(ended.stopped ? { stopped: ended.stopped } : {}),
		...(ended.steppedPast === undefined ? {} : { steppedPast: ended.steppedPast }),
		skipped: ended.skipped,
		undated,
		expired,
		overflowed,
		gone,
		deferred,
		unlisted: [...unlisted],
		undelivered,
	};
}
