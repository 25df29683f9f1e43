/**
 * One poll of Call Ended or SMS Delivered (inProgressRecords.ts says what it promises), in steps:
 * fold what the list returned, look up the records in progress it did not return, look for those
 * that cannot be looked up with one page, let go the records at the end of their watch or
 * beyond room, and put what to emit in order. Pure: no n8n, no clock, no I/O.
 */
import { FUTURE_TOLERANCE_MS } from './cursorState';
import { endPoll, inTimeOrder } from './historyCursor';
import { type Poll, readPoll } from './pageReading';
import {
	DEFAULT_IN_PROGRESS_SETTINGS,
	describeRecord,
	inProgress,
	type InProgressIo,
	type FinalStatusEvent,
	type InProgressPollOptions,
	type InProgressResult,
	type InProgressSettings,
	inProgressShape,
	type InProgressState,
	refOf,
	STATUS_KIND,
} from './inProgressRecords';
import { nextCheck, storedPending, type Tracked, trackedOf } from './inProgressState';
import { isSmsRecord, type SmsRecord } from '../api/smsPaging';
import { isDelivered, isKnownStatus, statusOf } from '../api/statuses';

/** Whether the event fires at this final status: a call at any ending, an SMS once delivered. */
function fires(kind: FinalStatusEvent, status: string): boolean {
	return kind === 'callEnded' || isDelivered(status);
}

/** What one poll has made of its records so far. */
interface Round {
	kind: FinalStatusEvent;
	settings: InProgressSettings;
	nowMs: number;
	pending: Map<string, Tracked>;
	emit: Array<{ id: string; record: SmsRecord; at: number }>;
	remember: Array<[string, number]>;
	/** Records read or looked up this poll. */
	looked: Set<string>;
	lastRecord: Map<string, SmsRecord>;
	unlisted: Map<string, string>;
	undelivered: Array<[string, string]>;
	undated: number;
}

/** Whether a record in progress is at the end of its watch. */
function expiring(round: Round, entry: Tracked): boolean {
	return round.nowMs >= entry.at + round.settings.maxPendingMs;
}

/** A record of the list or a look-up: tracked while in progress, emitted once final. */
function fold(round: Round, id: string, record: SmsRecord): void {
	const { kind, settings, nowMs, pending } = round;
	const { at: listAt, status } = describeRecord(kind, record);
	if (!isKnownStatus(STATUS_KIND[kind], status) && !round.unlisted.has(statusOf(status)))
		round.unlisted.set(statusOf(status), id);
	round.looked.add(id);
	round.lastRecord.set(id, record);
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
	round.remember.push([id, listAt]);
	if (fires(kind, status)) {
		round.emit.push({ id, record, at });
		if (Number.isNaN(listAt)) round.undated++;
	} else round.undelivered.push([id, status]);
}

/** Folds the records the list returned; one read more than once (on two pages, or twice on one) counts as last read. */
function foldList(round: Round, poll: Poll): void {
	const read = new Map<string, SmsRecord>();
	for (const found of [...poll.found, ...poll.sightings].sort((a, b) => a.page - b.page))
		read.set(found.key, found.record);
	for (const [id, record] of read) fold(round, id, record);
}

/**
 * Looks up by id the records in progress the list did not return that are due for a look: those at
 * the end of their watch first, then the earliest due. Returns those that cannot be looked up
 * by id (to be looked for by page) and the counts.
 */
async function lookUpDue(
	round: Round,
	io: InProgressIo,
): Promise<{ byPage: Array<[string, Tracked]>; lookups: number; gone: number; deferred: number }> {
	const { kind, settings, nowMs, pending } = round;
	const due = [...pending]
		.filter(
			([id, entry]) => !round.looked.has(id) && (entry.check <= nowMs || expiring(round, entry)),
		)
		.sort(
			([, a], [, b]) =>
				Number(expiring(round, b)) - Number(expiring(round, a)) || a.check - b.check || a.at - b.at,
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
			round.looked.add(id);
			gone++;
			continue;
		}
		fold(round, id, record);
	}
	return { byPage, lookups, gone, deferred };
}

/**
 * Looks for records that cannot be looked up by id with one page from the oldest of them: on
 * an API answering oldest first it holds each record after it too; newest first, only while
 * fewer than a page came after it. Returns the pages read (0 or 1).
 */
async function revisitByPage(
	round: Round,
	io: InProgressIo,
	byPage: Array<[string, Tracked]>,
): Promise<number> {
	if (!byPage.length) return 0;
	const { kind, settings, nowMs, pending } = round;
	const since = Math.min(...byPage.map(([, entry]) => entry.at));
	const page = await io.fetchPage({
		since: new Date(since).toISOString(),
		limit: settings.reader.pageSize,
	});
	const shape = inProgressShape(kind);
	for (const record of Array.isArray(page?.messages) ? page.messages : []) {
		if (!isSmsRecord(record)) continue;
		const id = shape.key(record);
		if (id !== undefined && pending.has(id) && !round.looked.has(id)) fold(round, id, record);
	}
	for (const [id, entry] of byPage) {
		round.looked.add(id);
		const still = pending.get(id);
		if (still === entry) still.check = nextCheck(settings, nowMs, entry.at);
	}
	return 1;
}

/**
 * The end of a watch, and room: a call is emitted as last seen, flagged; an SMS is let go.
 * Returns the SMS let go at the end of their watch, and the records let go for room.
 */
function letGo(round: Round): { expired: number; overflowed: number } {
	const { kind, settings, pending } = round;
	let expired = 0;
	let overflowed = 0;
	const release = (id: string, entry: Tracked) => {
		pending.delete(id);
		// Remembered until the list can no longer return it: at its own time where it was read
		// this poll, else at the latest a record can be taken for now (tracked, a time past now
		// plus the tolerance is held there, and the list may return the id until its own).
		const read = round.lastRecord.get(id);
		const listAt = read ? describeRecord(kind, read).at : NaN;
		const until = Number.isNaN(listAt) ? round.nowMs + FUTURE_TOLERANCE_MS : listAt;
		round.remember.push([id, entry.dated ? Math.max(entry.at, until) : NaN]);
		if (kind === 'callEnded')
			round.emit.push({
				id,
				record: {
					...(round.lastRecord.get(id) ?? { id, status: entry.status }),
					stillInProgress: true,
				},
				at: entry.at,
			});
	};
	for (const [id, entry] of [...pending])
		if (expiring(round, entry) && round.looked.has(id)) {
			release(id, entry);
			if (kind === 'smsDelivered') expired++;
		}
	if (pending.size > settings.maxPending) {
		const oldestFirst = [...pending].sort(([, a], [, b]) => a.at - b.at);
		for (const [id, entry] of oldestFirst.slice(0, pending.size - settings.maxPending)) {
			release(id, entry);
			overflowed++;
		}
	}
	return { expired, overflowed };
}

/**
 * What to emit, oldest first; records sharing a time in the order the server received them (as
 * its pages show it), then those a look-up found.
 */
function inEmitOrder(round: Round, poll: Poll): SmsRecord[] {
	const rank = new Map<string, number>();
	inTimeOrder(poll, [...poll.found, ...poll.sightings]).forEach((found, index) => {
		if (!rank.has(found.key)) rank.set(found.key, index);
	});
	const rankOf = (id: string) => rank.get(id) ?? Number.MAX_SAFE_INTEGER;
	round.emit.sort((a, b) => a.at - b.at || rankOf(a.id) - rankOf(b.id));
	return round.emit.map((e) => e.record);
}

/**
 * One poll: reads the list through `io.fetchPage`, looks up records in progress by id, and returns
 * what to emit and the state to store. If a request fails, the error propagates and nothing of
 * this poll counts: the stored state is untouched.
 */
export async function pollInProgress(
	start: InProgressState,
	io: InProgressIo,
	options: InProgressPollOptions,
): Promise<InProgressResult> {
	const settings = options.settings ?? DEFAULT_IN_PROGRESS_SETTINGS;
	const kind = start.kind;
	const pending = trackedOf(start);
	const poll = await readPoll(start.window, (request) => io.fetchPage(request), {
		settings: settings.reader,
		keepReading: options.keepReading,
		shape: inProgressShape(kind),
		tracked: new Set(pending.keys()),
	});
	const round: Round = {
		kind,
		settings,
		nowMs: options.now(),
		pending,
		emit: [],
		remember: [],
		looked: new Set(),
		lastRecord: new Map(),
		unlisted: new Map(),
		undelivered: [],
		undated: 0,
	};
	foldList(round, poll);
	const { byPage, lookups, gone, deferred } = await lookUpDue(round, io);
	const revisits = await revisitByPage(round, io, byPage);
	const { expired, overflowed } = letGo(round);

	const ended = endPoll(poll, round.nowMs, round.remember);
	const emit = inEmitOrder(round, poll);
	return {
		state: {
			v: 2,
			kind,
			window: ended.state,
			pending: storedPending(pending),
			...(start.fp === undefined ? {} : { fp: start.fp }),
		},
		emit,
		pages: ended.pages,
		lookups,
		revisits,
		...(ended.shortfall ? { shortfall: ended.shortfall } : {}),
		newMayBeHidden: ended.newMayBeHidden,
		...(ended.stopped ? { stopped: ended.stopped } : {}),
		...(ended.steppedPast === undefined ? {} : { steppedPast: ended.steppedPast }),
		skipped: ended.skipped,
		undated: round.undated,
		expired,
		overflowed,
		gone,
		deferred,
		unlisted: [...round.unlisted],
		undelivered: round.undelivered,
	};
}
