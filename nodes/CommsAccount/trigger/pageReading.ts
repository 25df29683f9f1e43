/**
 * A poll's reading of a history list: the requests it makes, one page after another, and what
 * it finds on them (historyCursor.ts says what the cursor promises). Pure: no n8n, no clock, no
 * I/O.
 */
import {
	type CursorSettings,
	type CursorState,
	DEFAULT_SETTINGS,
	MAX_PAGES_PER_POLL,
	type RecordShape,
	SMS_SHAPE,
	type SmsOrder,
} from './cursorState';
import { isSmsRecord, type SmsPage, type SmsRecord } from '../api/smsPaging';

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
	/** The times of the pages of records sharing one time that this poll said it stepped past. */
	readonly steppedPast: number[];
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
		steppedPast: [],
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

/**
 * Notes records out of reach. The first reason is the one reported, unless it hid nothing new
 * (a group a warning covered before, stepped past quietly) and this one may.
 */
function fallShort(poll: Poll, shortfall: Shortfall, newMayBeHidden: boolean): void {
	if (poll.shortfall === undefined || (newMayBeHidden && !poll.newMayBeHidden))
		poll.shortfall = shortfall;
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
	// Said when the page brought records not read before, or when no poll has said the group:
	// one under the position can fill its page after it was read (a record stored late, an
	// undated record on every page), hiding a record nobody read. Later polls re-reading the
	// window step past a group said before quietly.
	const said = fresh > 0 || !(poll.start.overflow ?? []).includes(newest);
	if (said) poll.steppedPast.push(newest);
	fallShort(poll, 'sameSentAt', said);
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
