/**
 * The inbound-SMS cursor: which messages of GET /v1/sms a poll emits, and what the trigger
 * remembers between polls. Pure: no n8n, no clock, no I/O. The node feeds it the pages it
 * reads and stores the state it returns in the workflow's static data.
 *
 * What the API gives (account-api-v1.md): `since` is an inclusive lower bound on `sentAt`,
 * `limit` is at most 200, `nextSince` is the oldest `sentAt` returned, and the order of the
 * results is not stated. So:
 *
 * - **Inclusive `since`**: the messages at the cursor come back on every poll. Messages are
 *   told apart by id: every id emitted is remembered, with its `sentAt`, for as long as a
 *   poll can return it again.
 * - **Look-back**: a poll asks for `since = cursor - lookBack`, so a message stored late with
 *   a `sentAt` up to `lookBack` older than the cursor is still found; the remembered ids keep
 *   the rest of that window from being emitted twice. Ids older than the window are dropped
 *   (bounded in age), and at most `maxSeen` are kept (bounded in number): when more would be
 *   needed, the oldest are dropped together with every id sharing their `sentAt`, and the
 *   `floor` below which no poll looks rises past them, so a dropped id can never come back.
 * - **Draining**: a full page means there may be more. Results oldest first are paged forward
 *   (the next `since` is the newest `sentAt` of the page) until a page is not full. Results
 *   newest first cannot be paged with `since` alone: a full page hides whatever lies between
 *   `since` and its oldest message, and asking again returns the same page. Nothing more can
 *   be read; the poll says so (`notice`) when new messages may be among the hidden ones.
 *   More than a page of messages sharing one `sentAt` cannot be paged past in either order.
 * - **All or nothing**: the state moves only in `endPoll`, after the last page read. A poll
 *   that fails part way is dropped with everything it read; the next one starts from the
 *   same state and reads it again.
 * - **Oldest first**: a poll emits what it found sorted by `sentAt`, and messages sharing a
 *   `sentAt` in the order the server received them, as the server's order shows it (learnt
 *   from any page with two sentAt values, or once by `probeOrder`, and then remembered).
 * - **Never past the clock**: the cursor never moves beyond the time the caller gives, so one
 *   message dated in the future cannot make the polls after it skip the messages that follow.
 *   The times remembered with ids are clamped to that time plus `FUTURE_TOLERANCE_MS` (and
 *   clamped again, to a later now, each time the server returns the id), so neither the
 *   `floor` nor the cursor can pass now, however many future-dated messages a server sends.
 * - **Never below the lower bound**: a record older than the `since` the poll started from
 *   (a server ignoring `since`, or answering with older records) is never emitted: its id may
 *   have been forgotten already. The `floor` rises with the window (`cursor - lookBack`) at the
 *   end of every poll, so widening the window later does not reach back past what was
 *   remembered.
 * - **Only records**: an entry of a page that is not an object (null, a number, a string, an
 *   array) is skipped and counted (`skipped`), so the caller can say so once.
 */
import {
	isSmsRecord,
	MAX_PAGE_SIZE,
	recordKey,
	type SmsPage,
	type SmsRecord,
} from '../shared/smsPaging';

export type SmsOrder = 'oldestFirst' | 'newestFirst';

/** What the trigger keeps between polls (JSON: it is stored in the workflow's static data). */
export interface CursorState {
	v: 1;
	/** Epoch ms: the newest `sentAt` emitted so far (never past the clock), or the baseline. */
	cursor: number;
	/** Epoch ms: no poll asks for older messages (the baseline, or past ids dropped for room). */
	floor: number;
	/** `[id, sentAt ms]` of emitted messages a poll may return again, oldest first. */
	seen: Array<[string, number]>;
	/** The order the server was last seen to use. */
	order?: SmsOrder;
	/** What the cursor is for (event and filters): another fingerprint starts afresh. */
	fp?: string;
}

export interface CursorSettings {
	/** How far before the cursor each poll looks again, for messages stored late. */
	lookBackMs: number;
	/** Page size asked for (the API's maximum, 200). */
	pageSize: number;
	/** The most ids remembered. */
	maxSeen: number;
}

export const DEFAULT_LOOK_BACK_MINUTES = 5;
const MAX_SEEN = 5000;
/** How far past the caller's clock a remembered time may be (a server's clock a little ahead). */
export const FUTURE_TOLERANCE_MS = 60_000;
/**
 * How far the caller's clock and the server's may disagree unnoticed (the Date header has whole
 * seconds): ids dropped for room move the floor at most this far past now.
 */
export const CLOCK_PRECISION_MS = 2000;

export const DEFAULT_SETTINGS: CursorSettings = {
	lookBackMs: DEFAULT_LOOK_BACK_MINUTES * 60_000,
	pageSize: MAX_PAGE_SIZE,
	maxSeen: MAX_SEEN,
};

/** The state of a trigger that has never polled: messages sent at or after `startMs` are new. */
export function baseline(startMs: number, fp?: string): CursorState {
	return { v: 1, cursor: startMs, floor: startMs, seen: [], ...(fp === undefined ? {} : { fp }) };
}

const finite = (value: unknown): value is number =>
	typeof value === 'number' && Number.isFinite(value);

/** A stored state, checked; undefined when there is none or it is not one of ours. */
export function parseState(value: unknown): CursorState | undefined {
	if (!value || typeof value !== 'object') return undefined;
	const state = value as Partial<CursorState>;
	if (state.v !== 1 || !finite(state.cursor) || !finite(state.floor) || !Array.isArray(state.seen))
		return undefined;
	const seen = state.seen.filter(
		(entry): entry is [string, number] =>
			Array.isArray(entry) && typeof entry[0] === 'string' && finite(entry[1]),
	);
	if (seen.length !== state.seen.length) return undefined;
	const order =
		state.order === 'oldestFirst' || state.order === 'newestFirst' ? state.order : undefined;
	const fp = typeof state.fp === 'string' ? state.fp : undefined;
	return {
		v: 1,
		cursor: state.cursor,
		floor: state.floor,
		seen,
		...(order ? { order } : {}),
		...(fp === undefined ? {} : { fp }),
	};
}

/** The next request of a poll. */
export interface PageRequest {
	since: string;
	limit: number;
}

/** Why a poll stopped before it had read everything that matched. */
export type Shortfall =
	/** Newest first, a full page: messages between `since` and the page's oldest were out of reach. */
	| 'newestFirstFull'
	/** A full page of messages that all share one `sentAt`: the rest at that `sentAt` were out of reach. */
	| 'sameSentAt'
	/** A full page in no order by `sentAt`: paging cannot be trusted. */
	| 'unordered'
	/** Oldest first, a page that did not move past `since` (a server ignoring it). */
	| 'noProgress'
	/** The caller stopped (the poll's time budget): the rest is read by the next poll. */
	| 'stopped';

interface Found {
	record: SmsRecord;
	key: string;
	/** sentAt in ms; NaN when the record has none that parses. */
	at: number;
	page: number;
	position: number;
}

export interface Poll {
	readonly start: CursorState;
	readonly settings: CursorSettings;
	/** What to ask for next; undefined once the poll has read all it can. */
	request: PageRequest | undefined;
	readonly found: Found[];
	/** Order of each page read, by page number (undefined: the page could not tell). */
	readonly pageOrders: Array<SmsOrder | 'unordered' | undefined>;
	order: SmsOrder | undefined;
	shortfall: Shortfall | undefined;
	/** Whether a shortfall may have hidden messages newer than the cursor (not only late ones). */
	newMayBeHidden: boolean;
	readonly known: Set<string>;
	sinceMs: number;
	/** The `since` the poll started from: nothing older is emitted. */
	readonly lowerMs: number;
	/** Remembered ids the server returned again, with their sentAt (to clamp them again). */
	readonly resighted: Map<string, number>;
	/** Entries of the pages that were not records (null, numbers, strings, arrays). */
	skipped: number;
}

function iso(ms: number): string {
	return new Date(ms).toISOString();
}

function timeOf(record: SmsRecord): number {
	return typeof record.sentAt === 'string' ? Date.parse(record.sentAt) : NaN;
}

const isRecord = isSmsRecord;

/** Starts a poll from a stored state: its first request looks back from the cursor. */
export function beginPoll(start: CursorState, settings: CursorSettings = DEFAULT_SETTINGS): Poll {
	const sinceMs = Math.max(start.cursor - settings.lookBackMs, start.floor);
	return {
		start,
		settings,
		request: { since: iso(sinceMs), limit: settings.pageSize },
		found: [],
		pageOrders: [],
		order: undefined,
		shortfall: undefined,
		newMayBeHidden: false,
		known: new Set(start.seen.map(([id]) => id)),
		sinceMs,
		lowerMs: sinceMs,
		resighted: new Map(),
		skipped: 0,
	};
}

/** The order a page shows by its `sentAt` values. */
export function pageOrder(messages: unknown[]): SmsOrder | 'unordered' | undefined {
	const times = messages
		.filter(isRecord)
		.map(timeOf)
		.filter((t) => !Number.isNaN(t));
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

/**
 * Folds the answer to `poll.request` into the poll and decides the next request:
 * another page only when the answer was full, came oldest first, and moves past `since`.
 */
export function readPage(poll: Poll, page: SmsPage): Poll {
	const request = poll.request;
	if (!request) throw new Error('readPage: the poll has nothing left to read');
	const entries: unknown[] = page && Array.isArray(page.messages) ? page.messages : [];
	const messages = entries.filter(isRecord);
	poll.skipped += entries.length - messages.length;
	const pageNumber = poll.pageOrders.length;
	messages.forEach((record, position) => {
		const key = recordKey(record);
		const at = timeOf(record);
		if (poll.known.has(key)) {
			if (!Number.isNaN(at)) poll.resighted.set(key, at);
			return;
		}
		// Older than this poll's lower bound: its id may be forgotten, so it is never new.
		if (at < poll.lowerMs) return;
		poll.known.add(key);
		poll.found.push({ record, key, at, page: pageNumber, position });
	});
	const order = pageOrder(messages);
	poll.pageOrders.push(order);
	if (order === 'oldestFirst' || order === 'newestFirst') poll.order = order;

	poll.request = undefined;
	if (entries.length < request.limit) return poll;
	// A full page: there may be more.
	const times = messages.map(timeOf).filter((t) => !Number.isNaN(t));
	const newest = times.length ? Math.max(...times) : NaN;
	const oldest = times.length ? Math.min(...times) : NaN;
	const remembered = poll.order ?? poll.start.order;
	if (order === 'oldestFirst') {
		if (newest > poll.sinceMs) {
			poll.sinceMs = newest;
			poll.request = { since: iso(newest), limit: request.limit };
		} else {
			// Nothing past `since` on a full page: the server does not honour it.
			poll.shortfall = 'noProgress';
			poll.newMayBeHidden = true;
		}
	} else if (order === 'newestFirst') {
		// Out of reach: whatever lies between `since` and the page's oldest message. New
		// messages can be among it only if that reaches the cursor; below it, only late ones.
		poll.shortfall = 'newestFirstFull';
		poll.newMayBeHidden = oldest >= poll.start.cursor;
	} else if (order === 'unordered') {
		poll.shortfall = 'unordered';
		poll.newMayBeHidden = true;
	} else if (remembered === 'newestFirst' && newest > poll.sinceMs) {
		// Newest first, a whole page at one sentAt: the rest at it and anything older are out of reach.
		poll.shortfall = 'newestFirstFull';
		poll.newMayBeHidden = newest >= poll.start.cursor;
	} else {
		// A whole page at one sentAt (or none readable): in either order, asking again from
		// that sentAt returns the same page, so the rest at that sentAt, and anything after
		// it when results come oldest first, are out of reach.
		poll.shortfall = 'sameSentAt';
		poll.newMayBeHidden = true;
	}
	return poll;
}

/** Ends the reading early (the poll's time budget is spent): what was read is emitted, the rest comes next poll. */
export function stopPoll(poll: Poll): Poll {
	if (poll.request) {
		poll.request = undefined;
		poll.shortfall = 'stopped';
	}
	return poll;
}

export interface PollOutcome {
	/** The state to store, now that every page of the poll has been read. */
	state: CursorState;
	/** The new messages, oldest first, each once. */
	emit: SmsRecord[];
	/** Pages read. */
	pages: number;
	shortfall?: Shortfall;
	/** Whether messages newer than the cursor may have been out of reach (worth a warning). */
	newMayBeHidden: boolean;
	/** Entries of the pages that were not records, skipped. */
	skipped: number;
}

function rankOrder(poll: Poll, page: number): SmsOrder {
	const order = poll.pageOrders[page];
	if (order === 'oldestFirst' || order === 'newestFirst') return order;
	return poll.order ?? poll.start.order ?? 'oldestFirst';
}

/**
 * Finishes a poll: the messages to emit, oldest first, and the state to store.
 * `nowMs`: the caller's clock; the cursor never moves past it.
 */
export function endPoll(poll: Poll, nowMs: number): PollOutcome {
	const { start, settings } = poll;
	const emit = [...poll.found]
		.sort((a, b) => {
			const byTime =
				(Number.isNaN(a.at) ? Infinity : a.at) - (Number.isNaN(b.at) ? Infinity : b.at);
			if (byTime !== 0 && !Number.isNaN(byTime)) return byTime;
			if (a.page !== b.page) return a.page - b.page;
			const direction = rankOrder(poll, a.page) === 'newestFirst' ? -1 : 1;
			return direction * (a.position - b.position);
		})
		.map((found) => found.record);

	// Never past now: neither the cursor, nor the floor, nor (beyond a small tolerance) a time
	// remembered with an id, whatever dates the server gives.
	let cursor = Math.min(start.cursor, nowMs);
	for (const found of poll.found)
		if (!Number.isNaN(found.at)) cursor = Math.max(cursor, Math.min(found.at, nowMs));
	const latest = nowMs + FUTURE_TOLERANCE_MS;
	const clamp = (at: number) => Math.min(at, latest);

	// Remember every id a later poll may return again: those at or after its `since`. An id
	// remembered at a clamped time and returned again is clamped again, to this poll's now.
	const entries: Array<[string, number]> = [
		...start.seen.map(([key, at]): [string, number] => {
			const again = poll.resighted.get(key);
			return [key, clamp(again === undefined ? at : Math.max(at, again))];
		}),
		...poll.found.map((found): [string, number] => [
			found.key,
			Number.isNaN(found.at) ? cursor : clamp(found.at),
		]),
	];
	// The floor never goes down (a clock that steps back must not reopen history), never rises
	// past now, and a floor already far past now (a state from before this rule) comes back.
	let floor = Math.max(
		Math.min(start.floor, latest),
		Math.min(cursor - settings.lookBackMs, nowMs + 1),
	);
	let kept = entries.filter(([, at]) => at >= floor);
	if (kept.length > settings.maxSeen) {
		kept.sort((a, b) => b[1] - a[1]);
		const boundary = kept[settings.maxSeen][1];
		kept = kept.filter(([, at]) => at > boundary);
		// Past the dropped ids, but never past now: a message sent after this poll is never below it.
		floor = Math.max(floor, Math.min(boundary + 1, nowMs + CLOCK_PRECISION_MS + 1));
	}
	kept.sort((a, b) => a[1] - b[1]);

	const order = poll.order ?? start.order;
	return {
		state: {
			v: 1,
			cursor,
			floor,
			seen: kept,
			...(order ? { order } : {}),
			...(start.fp === undefined ? {} : { fp: start.fp }),
		},
		emit,
		pages: poll.pageOrders.length,
		...(poll.shortfall ? { shortfall: poll.shortfall } : {}),
		newMayBeHidden: poll.newMayBeHidden,
		skipped: poll.skipped,
	};
}

export interface RunPollOptions {
	settings?: CursorSettings;
	/** The clock, read once the pages are read (the cursor never moves past it). */
	now: () => number;
	/** Asked before each request once something new was found: false ends the reading (the time budget). */
	keepReading?: () => boolean;
	/**
	 * Asked when messages sharing a sentAt must be put in order and no page of this poll showed
	 * which way the server sorts (it may change between polls): one more request that may show it.
	 */
	probeOrder?: () => Promise<SmsOrder | undefined>;
}

/** Whether messages sharing a sentAt came on a page that could not show the server's order. */
function tiesNeedOrder(poll: Poll): boolean {
	// Only this poll's pages count: the server may have changed its order since the last one.
	if (poll.order) return false;
	const groups = new Set<string>();
	for (const found of poll.found) {
		const group = `${found.page}:${found.at}`;
		if (groups.has(group)) return true;
		groups.add(group);
	}
	return false;
}

/**
 * One poll: reads pages through `fetchPage` until there is nothing more to read (or
 * `keepReading` says stop), then returns what to emit and the state to store. If a page
 * fails, the error propagates and nothing of this poll counts: the stored state is untouched.
 */
export async function runPoll(
	state: CursorState,
	fetchPage: (request: PageRequest) => Promise<SmsPage>,
	options: RunPollOptions,
): Promise<PollOutcome> {
	const poll = beginPoll(state, options.settings ?? DEFAULT_SETTINGS);
	let pages = 0;
	while (poll.request) {
		// The budget counts only once something new was found: re-reading the look-back window
		// (messages already emitted) must never use it all, or no poll would get past it.
		if (pages > 0 && poll.found.length > 0 && options.keepReading && !options.keepReading()) {
			stopPoll(poll);
			break;
		}
		readPage(poll, await fetchPage(poll.request));
		pages++;
	}
	if (options.probeOrder && tiesNeedOrder(poll)) poll.order = await options.probeOrder();
	return endPoll(poll, options.now());
}
