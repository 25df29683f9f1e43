/**
 * How Call Ended and SMS Delivered keep their records in progress between polls: a state read
 * back from static data (and carried over from v1), and the form a poll works on. Pure.
 */
import { baseline, type CursorState, parseState } from './cursorState';
import type {
	FinalStatusEvent,
	InProgressSettings,
	InProgressState,
	InProgressEntry,
} from './inProgressRecords';

/** The state of Call Ended or SMS Delivered that has never polled: its list read from `start` (a time, or a starting state). */
export function inProgressBaseline(
	kind: FinalStatusEvent,
	start: number | CursorState,
	fp?: string,
): InProgressState {
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

function isPendingEntry(entry: unknown): entry is InProgressEntry {
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

/** A state saved before records were tracked by id: `since` was held at the oldest one in progress. */
function fromV1(
	state: Record<string, unknown>,
	kind: FinalStatusEvent,
): InProgressState | undefined {
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
		pending: old.map(([id, at, status]): InProgressEntry => [id, at, status, at, 0, [], 1]),
		...(typeof state.fp === 'string' ? { fp: state.fp } : {}),
	};
}

/** A stored state of this kind, checked (and carried over from v1); undefined when it is not one. */
export function parseInProgressState(
	value: unknown,
	kind: FinalStatusEvent,
): InProgressState | undefined {
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
		pending: (state.pending as InProgressEntry[]).map(
			([id, at, status, seen, check, ref, dated]): InProgressEntry => [
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

export interface Tracked {
	at: number;
	status: string;
	seen: number;
	check: number;
	ref: string[] | undefined;
	/** Whether the list gives the record a usable time (else it is remembered by id alone). */
	dated: boolean;
}

/** When to look at a record in progress again: after half its age, within the settings' bounds. */
export function nextCheck(settings: InProgressSettings, nowMs: number, at: number): number {
	const wait = Math.min(settings.maxRecheckMs, Math.max(settings.minRecheckMs, (nowMs - at) / 2));
	// Never past the end of its watch: the last look is made then.
	return Math.min(nowMs + wait, at + settings.maxPendingMs);
}

/** The stored records in progress, as a poll works on them. */
export function trackedOf(start: InProgressState): Map<string, Tracked> {
	return new Map(
		start.pending.map(([id, at, status, seen, check, ref, dated]) => [
			id,
			{ at, status, seen, check, ref: ref.length ? ref : undefined, dated: dated === 1 },
		]),
	);
}

/** The records in progress as stored, oldest first. */
export function storedPending(pending: Map<string, Tracked>): InProgressEntry[] {
	return [...pending]
		.sort(([, a], [, b]) => a.at - b.at)
		.map(([id, { at, status, seen, check, ref, dated }]): InProgressEntry => [
			id,
			at,
			status,
			seen,
			check,
			ref ?? [],
			dated ? 1 : 0,
		]);
}
