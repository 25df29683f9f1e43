/**
 * The two clocks the transport reads. n8n's own (`systemClock`), as pacing and retries see it, so
 * tests can drive it with a fake one: it waits with n8n-workflow's `sleep` (community nodes may
 * not arm timers of their own), reads time from the monotonic `performance.now()` so a wall-clock
 * step cannot shrink or stretch a rate window, and never arms a timer beyond what the runtime can
 * hold.
 *
 * The API's clock, as far as the API itself has shown it: learnt only from what only the API
 * writes, the times on its records, never from a `Date` header (a gateway in front of the API may
 * write its own: nginx replaces it on every answer).
 *
 * What is known is kept per key and address (the pacing scope) as bounds on the offset, the API's
 * clock minus n8n's, in both directions: a record this process made (a write's answer names it)
 * and a read later returns was stamped between the write's start and its answer, so the offset
 * lay between its time less the answer's arrival and its time less the start (a time on a whole
 * second may have been written in whole seconds, up to a second early). Nothing else is taken as
 * a measurement: the newest record of a read says nothing of the clock now if the clock stepped
 * back since it was stamped, or another server behind the same address stamped it. Newer evidence
 * wins over older evidence it contradicts (the clock was set again, or another server answered),
 * and evidence is believed for an hour.
 *
 * The API's clock can step (an NTP correction, a restart) and can differ between its servers, so
 * what is measured is never what a decision to send, or to drop an event, rests on:
 * - Where a history is read from (`since`): every moment a record made after n8n's instant can
 *   carry under any clock the API may have, as far as `UNMEASURED_SKEW_MS` behind n8n's (further
 *   where a record the node made showed it further behind), less the same-moment floor, whatever
 *   was measured. A look-up that finds nothing there has proof of absence.
 * - Which record is a send's own (`madeAfter`): what was measured sharpens it, with the floor for
 *   "the same moment"; where it cannot tell (a match stamped before, an identical earlier record,
 *   a clock that stepped) the outcome stays unknown, and nothing is sent again.
 * - The trigger's "now" (`now`): an estimate, off by as much as the clock stepped, within the
 *   minute the trigger tolerates.
 * docs/decisions.md says why these numbers.
 */
import { sleep as n8nSleep } from 'n8n-workflow';

export interface Clock {
	/** Milliseconds on a monotonic scale (only differences mean anything). */
	now(): number;
	/** Calls `fn` after `ms`; returns a function that cancels it. */
	setTimer(fn: () => void, ms: number): () => void;
}

/** Node.js timers hold at most 2^31 - 1 ms; a longer delay would fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

export function clampTimerMs(ms: number): number {
	if (!Number.isFinite(ms)) return ms > 0 ? MAX_TIMER_MS : 0;
	return Math.min(MAX_TIMER_MS, Math.max(0, ms));
}

export const systemClock: Clock = {
	now: () => performance.now(),
	setTimer(fn, ms) {
		const controller = new AbortController();
		let cancelled = false;
		// n8n-workflow's sleep stops early on the signal (older n8n versions ignore it and
		// resolve later; `cancelled` makes that harmless).
		n8nSleep(clampTimerMs(ms), controller.signal).then(
			() => {
				if (!cancelled) fn();
			},
			() => undefined,
		);
		return () => {
			cancelled = true;
			controller.abort();
		};
	},
};

export class CancelledError extends Error {
	constructor() {
		super('The execution was cancelled');
		this.name = 'CancelledError';
	}
}

/** Waits `ms` on `clock`; rejects at once with CancelledError when `signal` aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) return reject(new CancelledError());
		const cancel = clock.setTimer(() => {
			signal?.removeEventListener('abort', onAbort);
			resolve();
		}, ms);
		const onAbort = () => {
			cancel();
			reject(new CancelledError());
		};
		signal?.addEventListener('abort', onAbort, { once: true });
	});
}

/**
 * Two instants of the API's records this close are "the same moment": it covers a record time
 * written in whole seconds (up to a second early, and a measurement from one up to a second
 * wider), the API stamping a record a moment before the request is in full, and a request of up
 * to a second. An identical SMS stamped this little before this one was sent cannot be told from
 * it; every window on record times is widened by this much.
 */
export const SAME_MOMENT_MS = 3_000;
/** A record time on a whole second may have been written in whole seconds: up to this much early. */
const WHOLE_SECOND_MS = 999;
/** How far the API's clock may be from n8n's, either way, on a side nothing has measured. */
export const UNMEASURED_SKEW_MS = 60_000;
/** How long one measurement is believed (clocks drift, and may be set again). */
export const EVIDENCE_MAX_AGE_MS = 60 * 60_000;
/** Measurements kept per scope, newest last. */
const MAX_EVIDENCE = 32;
/** Records this process made, remembered per scope until a read shows their time. */
const MAX_MADE = 2_000;

/**
 * Bounds on the API's clock minus n8n's (ms): the offset lies in [lowMs, highMs]. A side is
 * undefined when nothing has measured it.
 */
export interface ClockBounds {
	lowMs: number | undefined;
	highMs: number | undefined;
}

/** A record an answer returned: its identifiers, and the time the API wrote on it (its creation). */
export interface RecordTime {
	ids: string[];
	atMs: number;
}

interface Evidence {
	lowMs: number;
	highMs: number;
	/** When the clock was as measured (n8n's clock): when the record was made, not when it was read. */
	atMs: number;
}

/** What this process knows of each scope's API clock, and the records it made there. */
export class ApiClocks {
	private readonly evidence = new Map<string, Evidence[]>();
	private readonly made = new Map<string, Map<string, [sentMs: number, receivedMs: number]>>();

	/** A write succeeded: the record named by `ids` was stamped between `sentMs` and `receivedMs`. */
	madeRecord(scope: string, ids: string[], sentMs: number, receivedMs: number): void {
		if (!ids.length) return;
		let mine = this.made.get(scope);
		if (!mine) this.made.set(scope, (mine = new Map()));
		for (const id of ids) mine.set(id, [sentMs, receivedMs]);
		for (const id of mine.keys()) {
			if (mine.size <= MAX_MADE) break;
			mine.delete(id);
		}
	}

	/**
	 * A read returned these records: those this process made measure the clock, both ways, as it
	 * was when they were made (see above); the others show nothing of it. What a record shows is
	 * dated by when it was made, not when it was read: one made before the clock stepped and read
	 * back after a later one counts as the older.
	 */
	readRecords(scope: string, records: RecordTime[]): void {
		const mine = this.made.get(scope);
		if (!mine) return;
		for (const { ids, atMs } of records) {
			if (!Number.isFinite(atMs)) continue;
			const window = ids.map((id) => mine.get(id)).find((known) => known !== undefined);
			if (!window) continue;
			// Stamped between the two; a time on a whole second may be that much early.
			const early = atMs % 1000 === 0 ? WHOLE_SECOND_MS : 0;
			this.observe(scope, atMs - window[1], atMs + early - window[0], window[0]);
			for (const id of ids) mine.delete(id);
		}
	}

	/** One measurement: the offset lay in [lowMs, highMs] at `atMs`. Kept in order of `atMs`. */
	observe(scope: string, lowMs: number, highMs: number, atMs: number): void {
		if (Number.isNaN(lowMs) || Number.isNaN(highMs) || lowMs > highMs) return;
		const list = this.evidence.get(scope) ?? [];
		let at = list.length;
		while (at > 0 && list[at - 1].atMs > atMs) at--;
		list.splice(at, 0, { lowMs, highMs, atMs });
		if (list.length > MAX_EVIDENCE) list.splice(0, list.length - MAX_EVIDENCE);
		this.evidence.set(scope, list);
	}

	/**
	 * What is known at `nowMs`: the measurements of the last hour, newest first, intersected until
	 * one contradicts the newer ones (the clock was set again: what came before it no longer holds).
	 */
	bounds(scope: string, nowMs: number): ClockBounds {
		let low = -Infinity;
		let high = Infinity;
		const list = this.evidence.get(scope) ?? [];
		for (let i = list.length - 1; i >= 0; i--) {
			const { lowMs, highMs, atMs } = list[i];
			if (nowMs - atMs > EVIDENCE_MAX_AGE_MS) break;
			if (lowMs > high || highMs < low) break;
			low = Math.max(low, lowMs);
			high = Math.min(high, highMs);
		}
		return {
			lowMs: Number.isFinite(low) ? low : undefined,
			highMs: Number.isFinite(high) ? high : undefined,
		};
	}

	/** Forgets everything (tests: a reset sandbox). */
	clear(): void {
		this.evidence.clear();
		this.made.clear();
	}
}

/** The process-wide knowledge: every node and execution of this n8n process shares it. */
export const apiClocks = new ApiClocks();

/** Forgets every API clock and made record (for tests: a reset sandbox hands out its ids again). */
export function forgetApiClocks(): void {
	apiClocks.clear();
}

/**
 * The least the offset may be, whatever was measured: as far behind as any API's clock may
 * plausibly be (`UNMEASURED_SKEW_MS`), or further where a record the node made showed it further
 * behind. What was measured never narrows it: the clock may have stepped back since, or another
 * server may answer.
 */
function leastOffset({ lowMs }: ClockBounds): number {
	return Math.min(lowMs ?? -UNMEASURED_SKEW_MS, -UNMEASURED_SKEW_MS);
}

/**
 * The earliest the API's clock may read when n8n's reads `wallMs`, under any clock it may have
 * (`leastOffset`), less the same-moment floor: a record the API stamps at or after that instant
 * of n8n's is stamped at or after this, whatever was measured. Where every history read starts.
 */
export function earliestApiTime(wallMs: number, bounds: ClockBounds): number {
	return wallMs + leastOffset(bounds) - SAME_MOMENT_MS;
}

/**
 * From this API time on, a record was made after n8n's `wallMs` (within the same-moment floor),
 * as far as what was measured tells: a record made before it was stamped before this. Where
 * nothing has measured how far ahead the API's clock may be, the two clocks are taken to agree
 * within the floor. For telling a send's own record from an earlier identical one only: a clock
 * that stepped, or another server's, can make a record stamped before this the send's own.
 */
export function madeAfterApiTime(wallMs: number, bounds: ClockBounds): number {
	return Math.max(earliestApiTime(wallMs, bounds), wallMs + (bounds.highMs ?? 0) - SAME_MOMENT_MS);
}

/**
 * Now on the API's clock, as the records the node made have shown it: n8n's clock, moved into
 * the bounds they measured (a small offset measured is never taken for none). Not a bound: for
 * the time a trigger keeps (how old a record is, the clock its position never passes), where
 * either way off by what nothing measured is harmless within a minute (the trigger takes records
 * dated up to a minute past it as they are).
 */
export function apiNowEstimate(wallMs: number, { lowMs, highMs }: ClockBounds): number {
	if (lowMs !== undefined && lowMs > 0) return wallMs + lowMs;
	if (highMs !== undefined && highMs < 0) return wallMs + highMs;
	return wallMs;
}

/**
 * An API's clock as this process knows it, for time windows on the API's records (look-ups,
 * history checks, a trigger's starting point). Each call reads what is known at that moment, so a
 * window asked for after a read already uses what that read showed.
 */
export interface ApiClock {
	/** Bounds on the API's clock minus n8n's (ms), each undefined while nothing measured it. */
	bounds(): ClockBounds;
	/** `since` for records the API stamped at or after n8n's `wallMs`, whatever its clock (see `earliestApiTime`). */
	since(wallMs: number): number;
	/** Records stamped at or after this were made after n8n's `wallMs` (see `madeAfterApiTime`). */
	madeAfter(wallMs: number): number;
	/** Now on the API's clock, as far as it was measured (see `apiNowEstimate`). */
	now(): number;
}

/** The clock of the API at one scope (a key at an address). */
export function apiClockOf(scope: string): ApiClock {
	const bounds = () => apiClocks.bounds(scope, Date.now());
	return {
		bounds,
		since: (wallMs) => earliestApiTime(wallMs, bounds()),
		madeAfter: (wallMs) => madeAfterApiTime(wallMs, bounds()),
		now: () => apiNowEstimate(Date.now(), bounds()),
	};
}
