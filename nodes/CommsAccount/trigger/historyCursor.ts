/**
 * The trigger's reading cursor: which records of a history list (GET /v1/sms, GET /v1/calls)
 * a poll reads and finds new, and what it remembers between polls. Pure: no n8n, no clock, no
 * I/O. The node feeds it the pages it reads and stores the state it returns in the workflow's
 * static data. SMS Received uses it alone; Call Ended and SMS Delivered read through it and
 * track what they find (inProgressRecords.ts).
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
 *   beyond the page cannot be read, and the poll says so unless a warning covered that group
 *   before); a full page in no order is paged on from its newest time, with a warning. Results
 *   newest first cannot be paged with `since` alone: a full page hides whatever lies between
 *   `since` and its oldest record, and asking again returns the same page. Nothing more can be
 *   read; the poll says so (`shortfall`).
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
 *   Neither the `floor` nor the cursor can pass now (plus `FUTURE_TOLERANCE_MS`), however
 *   many future-dated records a server sends; an id is remembered at the time the server gives
 *   it, so one dated ahead is not forgotten while a later poll may return it.
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
	type CursorState,
	FUTURE_TOLERANCE_MS,
	CLOCK_PRECISION_MS,
	MAX_OVERFLOW,
	MAX_UNDATED,
	type SmsOrder,
} from './cursorState';
import {
	type Found,
	type PageRequest,
	type Poll,
	readPoll,
	type ReadOptions,
	type Shortfall,
	type Stop,
} from './pageReading';
import type { SmsPage, SmsRecord } from '../api/smsPaging';

export interface PollResult {
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
	/** The times of the pages of records sharing one time that the poll's warning names. */
	steppedPast?: number[];
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
): PollResult {
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

	// Remember every id a later poll may return again: those at or after its `since`, at the time
	// the server gives (the latest it gave): an id is forgotten only once the floor has passed
	// that time, however far past now it is dated.
	const entries: Array<[string, number]> = [
		...start.seen.map(([key, at]): [string, number] => {
			const again = poll.resighted.get(key);
			return [key, again === undefined ? at : Math.max(at, again)];
		}),
		...remember.filter(([, at]) => !Number.isNaN(at)),
	];
	// The floor never goes down (a clock that steps back must not reopen history: the ids under
	// it are forgotten), never rises past now, and a floor more than the tolerance past where it
	// may lie (a state from before this rule, or n8n's clock stepped back by more than a minute)
	// comes back there. While a pass from `sweep` (or `resume`) is to come, nothing from there on
	// is forgotten.
	let floor = Math.max(
		start.floor > latest + FUTURE_TOLERANCE_MS ? latest : start.floor,
		Math.min(cursor - settings.lookBackMs, nowMs + 1, resume ?? Infinity, sweep ?? Infinity),
	);
	let kept = entries.filter(([, at]) => at >= floor);
	if (kept.length > settings.maxSeen) {
		// Too many: the oldest go first; those dated past now (beyond the tolerance) count as
		// dated then, and the floor that follows never passes now.
		kept.sort((a, b) => clamp(b[1]) - clamp(a[1]));
		const boundary = clamp(kept[settings.maxSeen][1]);
		kept = kept.filter(([, at]) => clamp(at) > boundary);
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
	// The groups this poll's warning names (none if it is about something else), then all so far.
	const named = poll.shortfall === 'sameSentAt' ? poll.steppedPast : [];
	const overflow = [...new Set([...(start.overflow ?? []), ...named])]
		.filter((at) => at >= floor)
		.sort((a, b) => a - b)
		.slice(-MAX_OVERFLOW);
	return {
		state: {
			v: 1,
			cursor,
			floor,
			seen: kept,
			...(undatedKept.length ? { undated: undatedKept } : {}),
			...(resume === undefined ? {} : { resume }),
			...(sweep === undefined ? {} : { sweep }),
			...(overflow.length ? { overflow } : {}),
			...(order ? { order } : {}),
			...(start.fp === undefined ? {} : { fp: start.fp }),
		},
		emit,
		pages: poll.pageOrders.length,
		...(poll.shortfall ? { shortfall: poll.shortfall } : {}),
		newMayBeHidden: poll.newMayBeHidden,
		...(poll.stopped ? { stopped: poll.stopped } : {}),
		...(named.length ? { steppedPast: named } : {}),
		skipped: poll.skipped,
		undated: poll.found.filter((found) => Number.isNaN(found.at)).length,
	};
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
): Promise<PollResult> {
	const poll = await readPoll(state, fetchPage, options);
	if (options.probeOrder && tiesNeedOrder(poll)) poll.order = await options.probeOrder();
	return endPoll(poll, options.now());
}
