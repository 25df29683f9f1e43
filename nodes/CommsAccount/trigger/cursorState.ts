/**
 * What the trigger's reading cursor keeps between polls, its settings, and how a stored state
 * is read back. The reading itself is in pageReading.ts, its end in historyCursor.ts (which says
 * what the cursor promises).
 */
import { MAX_PAGE_SIZE, recordKey, type SmsRecord } from '../api/smsPaging';

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
	/** Epoch ms: the times of the groups of more than a page that polls said they stepped past. */
	overflow?: number[];
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
/** Groups of more than a page that were said, remembered (the newest) so as not to say them again. */
export const MAX_OVERFLOW = 100;
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
	// One time: a state from before polls remembered every group they said.
	const overflow = (Array.isArray(state.overflow) ? state.overflow : [state.overflow]).filter(
		finite,
	);
	return {
		v: 1,
		cursor: state.cursor,
		floor: state.floor,
		seen,
		...(undated.length ? { undated } : {}),
		...(finite(state.resume) ? { resume: state.resume } : {}),
		...(finite(state.sweep) ? { sweep: state.sweep } : {}),
		...(overflow.length ? { overflow } : {}),
		...(order ? { order } : {}),
		...(fp === undefined ? {} : { fp }),
	};
}
