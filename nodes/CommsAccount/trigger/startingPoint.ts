/**
 * Where the trigger starts at its first activation. Pure: no n8n, no clock, no I/O; the node
 * gives it the pages it reads and the API's clock as it knows it (../../shared/transport/serverClock.ts).
 *
 * "From the moment of publishing" is a moment of n8n's clock, and the API stamps its records with
 * its own, which may be behind or ahead by more than anything has measured. A time alone cannot
 * say which records were there before the trigger: one the API stamps a moment before the moment
 * of publishing (its clock behind n8n's) may arrive after it. So the history is read at
 * activation, and what that read finds was there before: it is history, told apart by id, and
 * any other record is new. The read reaches back a day (`LOOK_BACK_MS`), to find the newest
 * record there is: a record that arrives later is stamped after it, whatever the API's clock
 * says; and no further back than the moment of publishing on the API's clock, at the earliest
 * (less the same moment), unless that newest record is older. Only the ids from there on are
 * kept.
 */
import {
	baseline,
	type CursorSettings,
	type CursorState,
	DEFAULT_SETTINGS,
	FUTURE_TOLERANCE_MS,
	MAX_PAGES_PER_POLL,
	type RecordShape,
} from './cursorState';
import { type PageRequest, type Poll, readPoll } from './pageReading';
import type { SmsPage } from '../api/smsPaging';

/** How far back the read at activation looks for the newest record there is. */
export const LOOK_BACK_MS = 24 * 60 * 60_000;
/** Pages one read at activation reads at most (it also stops at the caller's time budget). */
export const ACTIVATION_MAX_PAGES = MAX_PAGES_PER_POLL;

/**
 * The starting state from a read of the history made at activation (`poll`, from `baseline(x)`):
 * what it found before `newFromMs` is history, and the position starts at `bandStartMs` (the
 * moment of publishing on the API's clock, at the earliest, less Include Last Minutes), or at the
 * newest record it found if that is older (or where it read from, if it found none: nothing there
 * could be taken for new). Where the read could not see everything, what it did not see is told
 * by time: with results newest first, the unseen are older than the page; otherwise the position
 * starts past the newest record read. `nowMs` dates records without a usable time (remembered by
 * id, never new).
 */
export function activationState(
	poll: Poll,
	bandStartMs: number,
	nowMs: number,
	newFromMs = Infinity,
): CursorState {
	let newest = -Infinity;
	let oldest = Infinity;
	for (const found of poll.found)
		if (!Number.isNaN(found.at)) {
			newest = Math.max(newest, found.at);
			oldest = Math.min(oldest, found.at);
		}
	let floor = Math.max(
		poll.start.floor,
		newest > -Infinity ? Math.min(bandStartMs, newest) : poll.start.floor,
	);
	if (poll.shortfall === 'newestFirstFull') floor = Math.max(floor, oldest);
	else if (
		(poll.stopped || (poll.shortfall && poll.shortfall !== 'sameSentAt')) &&
		newest > -Infinity
	)
		floor = Math.max(floor, newest + 1);
	// Never past now (with the tolerance every poll gives future-dated records): a poll brings a
	// floor past that back, so the records between are kept by id, not left to the floor.
	floor = Math.min(floor, nowMs + FUTURE_TOLERANCE_MS);
	const seen = poll.found
		.filter((found) => !Number.isNaN(found.at) && found.at >= floor && found.at < newFromMs)
		.map((found): [string, number] => [found.key, found.at])
		.sort((a, b) => a[1] - b[1]);
	const undated = poll.found
		.filter((found) => Number.isNaN(found.at))
		.map((found): [string, number] => [found.key, nowMs]);
	const order = poll.order ?? poll.start.order;
	return {
		v: 1,
		cursor: floor,
		floor,
		seen,
		...(undated.length ? { undated } : {}),
		...(order ? { order } : {}),
		...(poll.start.fp === undefined ? {} : { fp: poll.start.fp }),
	};
}

export interface ActivationOptions {
	/** The moment of publishing, on n8n's clock. */
	publishedMs: number;
	/**
	 * The moment of publishing on the API's clock, at the earliest and less the same moment, as far
	 * as the clock is known when asked (asked after each read: what it showed counts).
	 */
	since: () => number;
	/** Now on the API's clock, at the earliest (asked once the reading is done). */
	now: () => number;
	/** Include Last Minutes, in ms: records from that long before the moment of publishing are new. */
	includeLastMs: number;
	settings?: CursorSettings;
	shape?: RecordShape;
	keepReading?: () => boolean;
	fp?: string;
}

/**
 * The starting state of a trigger at its first activation. The history of the last day is read,
 * and what it holds is history (`activationState`); if that read could not reach its end, the
 * records from the moment of publishing (on the API's clock, at the earliest) are read instead.
 * With Include Last Minutes, records from that long before the moment of publishing (on the
 * API's clock, at the earliest, as that read showed it) are new; if the read of the day could not
 * reach its end, from there on, by time alone.
 */
export async function activate(
	fetchPage: (request: PageRequest) => Promise<SmsPage>,
	options: ActivationOptions,
): Promise<CursorState> {
	const { includeLastMs, fp } = options;
	const settings = options.settings ?? DEFAULT_SETTINGS;
	const read = (fromMs: number) =>
		readPoll(baseline(fromMs, fp), fetchPage, {
			settings: { ...settings, maxPages: ACTIVATION_MAX_PAGES },
			shape: options.shape,
			keepReading: options.keepReading,
		});
	const day = await read(options.publishedMs - LOOK_BACK_MS);
	const includeFromMs = options.since() - includeLastMs;
	if (!day.stopped)
		return includeLastMs > 0
			? activationState(day, includeFromMs, options.now(), includeFromMs)
			: activationState(day, options.since(), options.now());
	if (includeLastMs > 0) return baseline(includeFromMs, fp);
	const band = await read(options.since());
	return activationState(band, options.since(), options.now());
}
