/**
 * The trigger's reading cursor: which records of a history list (GET /v1/sms, GET /v1/calls)
 * a poll reads and finds new, and what it remembers between polls. Pure: no n8n, no clock, no
 * I/O. The node feeds it the pages it reads and stores the state it returns in the workflow's
 * static data. SMS Received uses it alone; Call Ended and SMS Delivered read through it and
 * track what they find (pendingRecords.ts).
 *
 * What the API gives (docs/api.md): `since` is an inclusive lower bound on the record's
 * time, `limit` is at most 200, and the order of the results is not stated (calls: most recent
 * first). So:
 *
 * - **Inclusive `since`**: the records at the cursor come back on every poll. Records are
 *   told apart by id: every id emitted is remembered, with its time, for as long as a poll can
 *   return it again.
 * - **Look-back**: a poll asks for `since = cursor - lookBack`, so a record stored late with a
 *   time up to `lookBack` older than the cursor is still found; the remembered ids keep the
 *   rest of that window from being emitted twice. Ids older than the window are dropped
 *   (bounded in age), and at most `maxSeen` are kept (bounded in number): when more would be
 *   needed, the oldest are dropped together with every id sharing their time, and the `floor`
 *   below which no poll looks rises past them, so a dropped id can never come back.
 * - **Every request moves on**: within a poll, each request's `since` is later than the one
 *   before, so no state leads to the same requests for ever. Results oldest first are paged
 *   forward (the next `since` is the newest time of the page); a full page whose records all
 *   share one time is stepped past (`since` one millisecond later: the records at that time
 *   beyond the page cannot be read, and the poll says so); a full page in no order is paged
 *   on from its newest time, with a warning. Results newest first cannot be paged with `since`
 *   alone: a full page hides whatever lies between `since` and its oldest record, and asking
 *   again returns the same page. Nothing more can be read; the poll says so (`shortfall`).
 * - **A bounded poll that resumes**: a poll reads at most `maxPages` pages (and stops earlier
 *   when its caller's time budget says so). Where it stopped is kept (`resume`), and the next
 *   poll reads on from there instead of the window, so a backlog is caught up over the next
 *   polls and a slow server cannot keep every poll inside the same pages. Where the window
 *   began when the first of those polls stopped is kept too (`sweep`): once the reading has
 *   caught up, one more pass reads from there, so a record stored late meanwhile (inside the
 *   window of the newest record when it came) is still found; the ids from there on are kept
 *   for it.
 * - **All or nothing**: the state moves only in `endPoll`, after the last page read. A poll
 *   that fails part way is dropped with everything it read; the next one starts from the
 *   same state and reads it again. Nothing here changes the state it was given, so two polls
 *   from one state (overlapping polls) cannot disturb each other.
 * - **Oldest first**: a poll finds its records sorted by time, and records sharing a time in
 *   the order the server received them, as the server's order shows it (learnt from any page
 *   with two times, or once by `probeOrder`, and then remembered).
 * - **Never past the clock**: the cursor never moves beyond the time the caller gives, so one
 *   record dated in the future cannot make the polls after it skip the records that follow.
 *   The times remembered with ids are clamped to that time plus `FUTURE_TOLERANCE_MS` (and
 *   clamped again, to a later now, each time the server returns the id), so neither the
 *   `floor` nor the cursor can pass now, however many future-dated records a server sends.
 * - **Never below the lower bound**: a record older than the `since` the poll started from
 *   (a server ignoring `since`, or answering with older records) is never new: its id may have
 *   been forgotten already. The `floor` rises with the window (`cursor - lookBack`) at the end
 *   of every poll, so widening the window later does not reach back past what was remembered.
 * - **Records without a usable time**: found once by id and remembered in their own list
 *   (`undated`, the `maxUndated` most recently read), refreshed each time the server returns
 *   them, so they are never found twice however long the server keeps sending them. They sort
 *   after the dated records of their poll and never move the cursor.
 * - **Only records**: an entry of a page that is not an object (null, a number, a string, an
 *   array), or that has no identity, is skipped and counted (`skipped`).
 */
import {
	isSmsRecord,
	MAX_PAGE_SIZE,
	recordKey,
	type SmsPage,
	type SmsRecord,
} from '../api/smsPaging';

export type SmsOrder = 'oldestFirst' | 'newestFirst';

/** What the trigger keeps between polls (JSON: it is stored in the workflow's static data). */
export interface CursorState {
	v: 1;
	/** Epoch ms: the newest time found so far (never past the clock), or the baseline. */
	cursor: number;
	/** Epoch ms: no poll asks for older records (the baseline, or past ids dropped for room). */
	floor: number;
	/** `[id, time ms]` of records found that a poll may return again, oldest first. */
	seen: Array<[string, number]>;
	/** `[id, ms last read]` of records found without a usable time, least recently read first. */
	undated?: Array<[string, number]>;
	/** Epoch ms: where the last poll stopped reading before the end; the next one reads on from it. */
	resume?: number;
	/** Epoch ms: where the window began when a poll first stopped; read again once caught up. */
	sweep?: number;
	/** Epoch ms: the time of the last group of more than a page that a poll said it stepped past. */
	overflow?: number;
	/** The order the server was last seen to use. */
	order?: SmsOrder;
	/** What the cursor is for (event and filters): another fingerprint starts afresh. */
	fp?: string;
}

export interface CursorSettings {
	/** How far before the cursor each poll looks again, for records stored late. */
	lookBackMs: number;
	/** Page size asked for (the API's maximum, 200). */
	pageSize: number;
	/** The most ids remembered. */
	maxSeen: number;
	/** The most pages one poll reads (default `MAX_PAGES_PER_POLL`); the next poll reads on. */
	maxPages?: number;
	/** The most ids of records without a usable time remembered (default `MAX_UNDATED`). */
	maxUndated?: number;
}

/** How one kind of record is told apart and dated. */
export interface RecordShape {
	/** The record's identity; undefined when it has none (the entry is skipped and counted). */
	key(record: SmsRecord): string | undefined;
	/** The record's time in ms; NaN when it has none that parses. */
	time(record: SmsRecord): number;
}

function dateOf(value: unknown): number {
	return typeof value === 'string' ? Date.parse(value) : NaN;
}

/** An SMS: its id (or messageId, or its whole content) and its `sentAt`. */
export const SMS_SHAPE: RecordShape = {
	key: recordKey,
	time: (record) => dateOf(record.sentAt),
};

export const DEFAULT_LOOK_BACK_MINUTES = 5;
const MAX_SEEN = 5000;
/** Pages one poll reads at most: 5,000 records at the API's page size. */
export const MAX_PAGES_PER_POLL = 25;
/** Records without a usable time whose ids are remembered. */
export const MAX_UNDATED = 1000;
/** How far past the caller's clock a remembered time may be (a server's clock a little ahead). */
export const FUTURE_TOLERANCE_MS = 60_000;
/**
 * Two record times this close are the same moment (a time written in whole seconds, a record
 * stamped a moment early: ../../shared/transport/serverClock.ts): ids dropped for room move the floor
 * at most this far past now.
 */
export const CLOCK_PRECISION_MS = 2000;

export const DEFAULT_SETTINGS: CursorSettings = {
	lookBackMs: DEFAULT_LOOK_BACK_MINUTES * 60_000,
	pageSize: MAX_PAGE_SIZE,
	maxSeen: MAX_SEEN,
	maxPages: MAX_PAGES_PER_POLL,
	maxUndated: MAX_UNDATED,
};

/** The state of a trigger that has never polled: records at or after `startMs` are new. */
export function baseline(startMs: number, fp?: string): CursorState {
	return { v: 1, cursor: startMs, floor: startMs, seen: [], ...(fp === undefined ? {} : { fp }) };
}

const finite = (value: unknown): value is number =>
	typeof value === 'number' && Number.isFinite(value);

function idTimes(value: unknown): Array<[string, number]> | undefined {
	if (!Array.isArray(value)) return undefined;
	const pairs = value.filter(
		(entry): entry is [string, number] =>
			Array.isArray(entry) && typeof entry[0] === 'string' && finite(entry[1]),
	);
	return pairs.length === value.length ? pairs.map(([id, at]) => [id, at]) : undefined;
}

/**
 * A stored state, checked; undefined when there is none or it is not one of ours. States saved
 * before `undated`, `resume`, `sweep` and `overflow` existed read as they were.
 */
export function parseState(value: unknown): CursorState | undefined {
	if (!value || typeof value !== 'object') return undefined;
	const state = value as Partial<CursorState>;
	if (state.v !== 1 || !finite(state.cursor) || !finite(state.floor)) return undefined;
	const seen = idTimes(state.seen);
	const undated = state.undated === undefined ? [] : idTimes(state.undated);
	if (!seen || !undated) return undefined;
	const order =
		state.order === 'oldestFirst' || state.order === 'newestFirst' ? state.order : undefined;
	const fp = typeof state.fp === 'string' ? state.fp : undefined;
	return {
		v: 1,
		cursor: state.cursor,
		floor: state.floor,
		seen,
		...(undated.length ? { undated } : {}),
		...(finite(state.resume) ? { resume: state.resume } : {}),
		...(finite(state.sweep) ? { sweep: state.sweep } : {}),
		...(finite(state.overflow) ? { overflow: state.overflow } : {}),
		...(order ? { order } : {}),
		...(fp === undefined ? {} : { fp }),
	};
}

/** The next request of a poll. */
export interface PageRequest {
	since: string;
	limit: number;
}

/** Why a poll read less than everything that matched. */
export type Shortfall =
	/** Newest first, a full page: records between `since` and the page's oldest were out of reach. */
	| 'newestFirstFull'
	/** A full page of records that all share one time: it was stepped past; the rest at that time were out of reach. */
	| 'sameSentAt'
	/** A full page in no order by time: paged on from its newest time; records it skipped were out of reach. */
	| 'unordered'
	/** A full page with nothing at or after `since` (a server ignoring it): nothing further can be read. */
	| 'noProgress'
	/** A full page without one usable time: nothing further can be read. */
	| 'undated';

/**
 * Why a poll stopped before the end, the rest being read by the next polls: it read its most
 * pages (`maxPages`), or its caller's time budget ran out.
 */
export type Stop = 'pageBudget' | 'timeBudget';

export interface Found {
	record: SmsRecord;
	key: string;
	/** The record's time in ms; NaN when it has none that parses. */
	at: number;
	page: number;
	position: number;
}

export interface Poll {
	readonly start: CursorState;
	readonly settings: CursorSettings;
	readonly shape: RecordShape;
	/** What to ask for next; undefined once the poll has read all it can. */
	request: PageRequest | undefined;
	/** Records not found by an earlier poll (nor tracked by the caller). */
	readonly found: Found[];
	/** Records the caller tracks (`tracked`), each time a page returned them, whatever their time. */
	readonly sightings: Found[];
	/** Order of each page read, by page number (undefined: the page could not tell). */
	readonly pageOrders: Array<SmsOrder | 'unordered' | undefined>;
	order: SmsOrder | undefined;
	/** The first reason records were out of reach of this poll's pages. */
	shortfall: Shortfall | undefined;
	/** Whether a shortfall may have hidden records newer than the cursor (not only late ones). */
	newMayBeHidden: boolean;
	/** Why the poll stopped reading before the end (the next one reads on from `sinceMs`). */
	stopped: Stop | undefined;
	/** The time of the page of records sharing one time that was stepped past, if any. */
	steppedPast: number | undefined;
	readonly known: Set<string>;
	readonly tracked: ReadonlySet<string>;
	sinceMs: number;
	/** The `since` the poll started from: nothing older is new. */
	readonly lowerMs: number;
	/** Remembered ids the server returned again, with their time (to clamp them again). */
	readonly resighted: Map<string, number>;
	/** Remembered ids of records without a usable time that the server returned again. */
	readonly resightedUndated: Set<string>;
	/** Entries of the pages that were not records (null, numbers, strings, arrays) or had no identity. */
	skipped: number;
}

function iso(ms: number): string {
	return new Date(ms).toISOString();
}

export interface BeginOptions {
	shape?: RecordShape;
	/** Ids the caller tracks: returned as `sightings` every time, never as found. */
	tracked?: ReadonlySet<string>;
}

/** The `since` a poll starts from: where the last one stopped, or the window before the cursor. */
export function startSince(start: CursorState, settings: CursorSettings): number {
	const window = Math.max(start.cursor - settings.lookBackMs, start.floor);
	return start.resume === undefined ? window : Math.max(start.resume, start.floor);
}

/** Starts a poll from a stored state: its first request looks back from the cursor (or resumes). */
export function beginPoll(
	start: CursorState,
	settings: CursorSettings = DEFAULT_SETTINGS,
	{ shape = SMS_SHAPE, tracked = new Set() }: BeginOptions = {},
): Poll {
	const sinceMs = startSince(start, settings);
	return {
		start,
		settings,
		shape,
		request: { since: iso(sinceMs), limit: settings.pageSize },
		found: [],
		sightings: [],
		pageOrders: [],
		order: undefined,
		shortfall: undefined,
		newMayBeHidden: false,
		stopped: undefined,
		steppedPast: undefined,
		known: new Set([...start.seen.map(([id]) => id), ...(start.undated ?? []).map(([id]) => id)]),
		tracked,
		sinceMs,
		lowerMs: sinceMs,
		resighted: new Map(),
		resightedUndated: new Set(),
		skipped: 0,
	};
}

/** The order a list of times shows. */
function orderOf(times: number[]): SmsOrder | 'unordered' | undefined {
	let up = false;
	let down = false;
	for (let i = 1; i < times.length; i++) {
		if (times[i] > times[i - 1]) up = true;
		else if (times[i] < times[i - 1]) down = true;
	}
	if (up && down) return 'unordered';
	if (up) return 'oldestFirst';
	if (down) return 'newestFirst';
	return undefined;
}

/** The order a page of SMS shows by its `sentAt` values. */
export function pageOrder(
	messages: unknown[],
	shape: RecordShape = SMS_SHAPE,
): SmsOrder | 'unordered' | undefined {
	return orderOf(
		messages
			.filter(isSmsRecord)
			.map((record) => shape.time(record))
			.filter((t) => !Number.isNaN(t)),
	);
}

/** Notes records out of reach; the first reason is the one reported. */
function fallShort(poll: Poll, shortfall: Shortfall, newMayBeHidden: boolean): void {
	poll.shortfall ??= shortfall;
	poll.newMayBeHidden ||= newMayBeHidden;
}

/**
 * Folds the answer to `poll.request` into the poll and decides the next request: another page
 * only when the answer was full and a later `since` can reach past it.
 */
export function readPage(poll: Poll, page: SmsPage): Poll {
	const request = poll.request;
	if (!request) throw new Error('readPage: the poll has nothing left to read');
	const entries: unknown[] = page && Array.isArray(page.messages) ? page.messages : [];
	const records = entries.filter(isSmsRecord);
	poll.skipped += entries.length - records.length;
	const pageNumber = poll.pageOrders.length;
	const times: number[] = [];
	let fresh = 0;
	records.forEach((record, position) => {
		const key = poll.shape.key(record);
		if (key === undefined) {
			poll.skipped++;
			return;
		}
		const at = poll.shape.time(record);
		if (!Number.isNaN(at)) times.push(at);
		if (poll.tracked.has(key)) {
			poll.sightings.push({ record, key, at, page: pageNumber, position });
			return;
		}
		if (poll.known.has(key)) {
			if (Number.isNaN(at)) poll.resightedUndated.add(key);
			else poll.resighted.set(key, at);
			return;
		}
		// Older than this poll's lower bound: its id may be forgotten, so it is never new.
		if (at < poll.lowerMs) return;
		poll.known.add(key);
		poll.found.push({ record, key, at, page: pageNumber, position });
		fresh++;
	});
	const order = orderOf(times);
	poll.pageOrders.push(order);
	if (order === 'oldestFirst' || order === 'newestFirst') poll.order = order;

	poll.request = undefined;
	if (entries.length < request.limit) return poll;
	// A full page: there may be more.
	if (times.length === 0) {
		// Nothing on it to page by: whatever follows it is out of reach.
		fallShort(poll, 'undated', true);
		return poll;
	}
	const newest = Math.max(...times);
	const oldest = Math.min(...times);
	const next = (sinceMs: number) => {
		poll.sinceMs = sinceMs;
		poll.request = { since: iso(sinceMs), limit: request.limit };
	};
	const remembered = poll.order ?? poll.start.order;
	if (order === 'newestFirst' || (order === undefined && remembered === 'newestFirst')) {
		// Out of reach: whatever lies between `since` and the page's oldest record. New records
		// can be among it only if that reaches the cursor; below it, only late ones.
		fallShort(poll, 'newestFirstFull', oldest >= poll.start.cursor);
		return poll;
	}
	if (newest < poll.sinceMs || (newest === poll.sinceMs && oldest < newest)) {
		// Nothing after `since` on a full page, and records before it: the server does not honour
		// it, and asking again returns the same page.
		fallShort(poll, 'noProgress', true);
		return poll;
	}
	if (order === 'unordered') {
		// Paging cannot be trusted, but must move on: from the newest time seen.
		fallShort(poll, 'unordered', true);
		next(newest > poll.sinceMs ? newest : poll.sinceMs + 1);
		return poll;
	}
	if (newest > poll.sinceMs && oldest < newest) {
		next(newest);
		return poll;
	}
	// A whole page at one time (at `since`, or one later): asking again from that time returns
	// the same page, and `since` is inclusive to the millisecond, so one millisecond later reads
	// past it. The records at that time beyond the page cannot be read.
	// Said when the page brought records not read before, or when the group is newer than the
	// position and not said before (later polls re-reading the window step past it quietly).
	poll.steppedPast = newest;
	fallShort(
		poll,
		'sameSentAt',
		fresh > 0 || (newest >= poll.start.cursor && newest !== poll.start.overflow),
	);
	next(newest + 1);
	return poll;
}

/** Ends the reading early: what was read counts, and the next poll reads on from here. */
export function stopPoll(poll: Poll, why: Stop = 'timeBudget'): Poll {
	if (poll.request) {
		poll.request = undefined;
		poll.stopped = why;
	}
	return poll;
}

export interface PollOutcome {
	/** The state to store, now that every page of the poll has been read. */
	state: CursorState;
	/** The new records, oldest first, each once. */
	emit: SmsRecord[];
	/** Pages read. */
	pages: number;
	/** Why records were out of reach of this poll (a documented limit), if they were. */
	shortfall?: Shortfall;
	/** Whether records newer than the cursor may have been out of reach (worth a warning). */
	newMayBeHidden: boolean;
	/** Why the poll stopped before the end; the next poll reads on from there. */
	stopped?: Stop;
	/** The time of a page of records sharing one time that was stepped past. */
	steppedPast?: number;
	/** Entries of the pages that were not records, skipped. */
	skipped: number;
	/** Records without a usable time among `emit`. */
	undated: number;
}

function rankOrder(poll: Poll, page: number): SmsOrder {
	const order = poll.pageOrders[page];
	if (order === 'oldestFirst' || order === 'newestFirst') return order;
	return poll.order ?? poll.start.order ?? 'oldestFirst';
}

/** Sorts records of a poll oldest first; records sharing a time in the order the server received them. */
export function inTimeOrder(poll: Poll, found: Found[]): Found[] {
	return [...found].sort((a, b) => {
		const byTime = (Number.isNaN(a.at) ? Infinity : a.at) - (Number.isNaN(b.at) ? Infinity : b.at);
		if (byTime !== 0 && !Number.isNaN(byTime)) return byTime;
		if (a.page !== b.page) return a.page - b.page;
		const direction = rankOrder(poll, a.page) === 'newestFirst' ? -1 : 1;
		return direction * (a.position - b.position);
	});
}

/**
 * Finishes a poll: the state to store. `nowMs` is the caller's clock; the cursor never moves
 * past it. `remember` lists the records to remember as found, with their times (NaN: no usable
 * time); by default every record the poll found.
 */
export function endPoll(
	poll: Poll,
	nowMs: number,
	remember: Array<[string, number]> = poll.found.map((found) => [found.key, found.at]),
): PollOutcome {
	const { start, settings } = poll;
	const emit = inTimeOrder(poll, poll.found).map((found) => found.record);

	// Never past now: neither the cursor, nor the floor, nor (beyond a small tolerance) a time
	// remembered with an id, whatever dates the server gives.
	let cursor = Math.min(start.cursor, nowMs);
	for (const found of [...poll.found, ...poll.sightings])
		if (!Number.isNaN(found.at) && found.at >= poll.lowerMs)
			cursor = Math.max(cursor, Math.min(found.at, nowMs));
	const latest = nowMs + FUTURE_TOLERANCE_MS;
	const clamp = (at: number) => Math.min(at, latest);

	// Where the next poll starts. Stopped before the end: where this one stopped, and the window
	// it began in is read again once caught up. Caught up after a stop: from that window.
	let resume: number | undefined;
	let sweep: number | undefined;
	if (poll.stopped) {
		resume = poll.sinceMs;
		sweep = Math.min(
			start.sweep ?? Infinity,
			Math.max(start.cursor - settings.lookBackMs, start.floor),
		);
	} else if (start.resume !== undefined && start.sweep !== undefined) resume = start.sweep;

	// Remember every id a later poll may return again: those at or after its `since`. An id
	// remembered at a clamped time and returned again is clamped again, to this poll's now.
	const entries: Array<[string, number]> = [
		...start.seen.map(([key, at]): [string, number] => {
			const again = poll.resighted.get(key);
			return [key, clamp(again === undefined ? at : Math.max(at, again))];
		}),
		...remember
			.filter(([, at]) => !Number.isNaN(at))
			.map(([key, at]): [string, number] => [key, clamp(at)]),
	];
	// The floor never goes down (a clock that steps back must not reopen history), never rises
	// past now, and a floor already far past now (a state from before this rule) comes back.
	// While a pass from `sweep` (or `resume`) is to come, nothing from there on is forgotten.
	let floor = Math.max(
		Math.min(start.floor, latest),
		Math.min(cursor - settings.lookBackMs, nowMs + 1, resume ?? Infinity, sweep ?? Infinity),
	);
	let kept = entries.filter(([, at]) => at >= floor);
	if (kept.length > settings.maxSeen) {
		kept.sort((a, b) => b[1] - a[1]);
		const boundary = kept[settings.maxSeen][1];
		kept = kept.filter(([, at]) => at > boundary);
		// Past the dropped ids, but never past now: a record sent after this poll is never below it.
		floor = Math.max(floor, Math.min(boundary + 1, nowMs + CLOCK_PRECISION_MS + 1));
	}
	kept.sort((a, b) => a[1] - b[1]);

	// Records without a usable time: every one read again is refreshed, the least recently read
	// go first when there are too many.
	const undated = new Map<string, number>();
	for (const [key, at] of start.undated ?? [])
		undated.set(key, poll.resightedUndated.has(key) ? nowMs : at);
	for (const [key, at] of remember) if (Number.isNaN(at)) undated.set(key, nowMs);
	const undatedKept = [...undated]
		.sort((a, b) => a[1] - b[1])
		.slice(-(settings.maxUndated ?? MAX_UNDATED));

	const order = poll.order ?? start.order;
	const overflow =
		poll.shortfall === 'sameSentAt' && poll.newMayBeHidden ? poll.steppedPast : start.overflow;
	return {
		state: {
			v: 1,
			cursor,
			floor,
			seen: kept,
			...(undatedKept.length ? { undated: undatedKept } : {}),
			...(resume === undefined ? {} : { resume }),
			...(sweep === undefined ? {} : { sweep }),
			...(overflow === undefined || overflow < floor ? {} : { overflow }),
			...(order ? { order } : {}),
			...(start.fp === undefined ? {} : { fp: start.fp }),
		},
		emit,
		pages: poll.pageOrders.length,
		...(poll.shortfall ? { shortfall: poll.shortfall } : {}),
		newMayBeHidden: poll.newMayBeHidden,
		...(poll.stopped ? { stopped: poll.stopped } : {}),
		...(poll.steppedPast === undefined ? {} : { steppedPast: poll.steppedPast }),
		skipped: poll.skipped,
		undated: poll.found.filter((found) => Number.isNaN(found.at)).length,
	};
}

export interface ReadOptions extends BeginOptions {
	settings?: CursorSettings;
	/** Asked before each request after the first: false ends the reading (the time budget). */
	keepReading?: () => boolean;
}

/**
 * Reads pages through `fetchPage` until there is nothing more to read, the poll has read its
 * most pages, or `keepReading` says stop. If a page fails, the error propagates and nothing of
 * the poll counts.
 */
export async function readPoll(
	state: CursorState,
	fetchPage: (request: PageRequest) => Promise<SmsPage>,
	options: ReadOptions = {},
): Promise<Poll> {
	const settings = options.settings ?? DEFAULT_SETTINGS;
	const poll = beginPoll(state, settings, options);
	const maxPages = Math.max(1, settings.maxPages ?? MAX_PAGES_PER_POLL);
	while (poll.request) {
		if (poll.pageOrders.length >= maxPages) stopPoll(poll, 'pageBudget');
		else if (poll.pageOrders.length > 0 && options.keepReading && !options.keepReading())
			stopPoll(poll, 'timeBudget');
		else readPage(poll, await fetchPage(poll.request));
	}
	return poll;
}

export interface RunPollOptions extends ReadOptions {
	/** The clock, read once the pages are read (the cursor never moves past it). */
	now: () => number;
	/**
	 * Asked when records sharing a time must be put in order and no page of this poll showed
	 * which way the server sorts (it may change between polls): one more request that may show it.
	 */
	probeOrder?: () => Promise<SmsOrder | undefined>;
}

/** Whether records sharing a time came on a page that could not show the server's order. */
function tiesNeedOrder(poll: Poll): boolean {
	// Only this poll's pages count: the server may have changed its order since the last one.
	if (poll.order) return false;
	const groups = new Set<string>();
	for (const found of poll.found) {
		if (Number.isNaN(found.at)) continue;
		const group = `${found.page}:${found.at}`;
		if (groups.has(group)) return true;
		groups.add(group);
	}
	return false;
}

/**
 * One poll of records that are new once found (SMS Received): reads pages through `fetchPage`,
 * then returns what to emit and the state to store. If a page fails, the error propagates and
 * nothing of this poll counts: the stored state is untouched.
 */
export async function runPoll(
	state: CursorState,
	fetchPage: (request: PageRequest) => Promise<SmsPage>,
	options: RunPollOptions,
): Promise<PollOutcome> {
	const poll = await readPoll(state, fetchPage, options);
	if (options.probeOrder && tiesNeedOrder(poll)) poll.order = await options.probeOrder();
	return endPoll(poll, options.now());
}
