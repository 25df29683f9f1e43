/**
 * Client-side pacing: never send faster than the API's limit, so a large batch finishes in
 * about the time the limit allows instead of tripping 429s.
 *
 * A request occupies a place in the rate window from the moment it is dispatched until
 * 60 s after its response arrived. The server counted it at some moment in between, so a
 * request sent once that place frees can never land in the same server window, whatever
 * the network latency. Requests still in flight always count.
 */
import { CancelledError, clampTimerMs, type Clock, systemClock } from './clock';

/**
 * The longest a 429 may hold a key's requests back: the longest a request itself waits
 * before a retry (120 s, retry.ts's `maxWaitMs`). A server asking for more makes that request
 * fail at once instead (see the transport), so one answer cannot stall every execution on the
 * key for longer.
 */
export const MAX_PAUSE_MS = 120_000;

export interface RateLimit {
	/** Requests allowed in any window. */
	perWindow: number;
	windowMs: number;
	/** Requests in flight at once. */
	concurrency: number;
	/**
	 * A window's worth of requests goes out over at least this long (default: none), so that
	 * when another client fills the server's window first, only the few requests sent in the
	 * moment before the first 429 comes back are refused, not a whole burst.
	 */
	spreadMs?: number;
}

/** Share of the window a full window's worth of requests is spread over (3 s of a minute). */
export const SPREAD_OF_WINDOW = 1 / 20;

/** How an attempt ended, as far as the rate limit is concerned. */
export type ReleaseResult =
	/** The server answered and did not refuse it for the rate: it counted. */
	| 'accepted'
	/** A 429 without Retry-After: the server's window is full; the request was not counted. */
	| 'rateLimited'
	/**
	 * A 429 naming its own wait (Retry-After): not counted either, and the pause it asks for
	 * (pauseFor) holds the key; the server said when to come back, so the allowance stays.
	 */
	| 'deferred'
	/** No answer: it may have counted. */
	| 'unknown';

export type Release = (result?: ReleaseResult) => void;

/**
 * The limiter's view of the API's rate limit for one key, shared by every execution in this
 * process. It adapts to what the server says, so that several processes (n8n workers in queue
 * mode, two n8n instances, n8n beside another client) sharing one key converge on their shares
 * without talking to each other:
 *
 * - **Allowance.** The limiter lets at most `allowance` requests into any window; it starts at
 *   the documented limit.
 * - **Cut.** A 429 without Retry-After (the API documents none) means the server's window is
 *   full, and says nothing of when it frees. The requests this limiter saw accepted in
 *   the last window are then exactly its share of it: the allowance becomes that (at least 1).
 *   Requests already in flight when the cut was made do not cut again (they were sent before it),
 *   and each of them that is accepted adds its place back (the server had counted it).
 * - **Probes.** The allowance stays at the share until a probe time: a second after a first
 *   cut (a sixtieth of the window), twice as long after each cut that follows within a window,
 *   at most a twelfth of the window (5 s). From then on a limiter held back by its allowance sends one request more;
 *   each request accepted then adds two places, so the free places double with each round trip while
 *   the server has room, back to the documented limit when the others have gone quiet, and the
 *   next 429 cuts it to the share again. A key shared by busy processes thus sees a few probes
 *   past the share, then about one every five seconds; a key the others have left is back to full speed
 *   within seconds.
 * - **Spread.** A window's worth goes out over at least `spreadMs`, so a probe past the share
 *   costs only the few requests sent before the first 429 is back.
 *
 * A 429 with Retry-After does not cut: the key waits what the server asked (pauseFor) and the
 * allowance stays. A refused request takes no place in the window (servers do not count what
 * they refuse); one without an answer keeps its place, as it may have counted.
 */
export class RateLimiter {
	private inFlight = 0;
	/** Finished requests still inside the window, oldest first: answer time, and whether accepted. */
	private readonly finished: Array<{ at: number; accepted: boolean }> = [];
	private readonly waiters: Array<() => void> = [];
	private pausedUntil = 0;
	private cancelTimer: (() => void) | undefined;
	private timerAt = Infinity;
	private allowanceNow: number;
	private lastCutAt = -Infinity;
	/** From when the allowance may grow past the share again, and how long after the cut that was. */
	private growsAt = -Infinity;
	private probeAfterMs = 0;
	/** Requests granted so far, and how many had been when the allowance was last cut. */
	private grants = 0;
	private grantsAtCut = 0;
	private lastGrantAt = -Infinity;
	/** 429s that cut the allowance (for tests and benchmarks). */
	cuts = 0;

	constructor(
		readonly limit: RateLimit,
		private readonly clock: Clock = systemClock,
	) {
		this.allowanceNow = limit.perWindow;
	}

	/** Requests this limiter lets into a window now: the documented limit, or its share after a 429. */
	get allowance(): number {
		return Math.max(1, Math.floor(this.allowanceNow));
	}

	/** Waits for a free place; resolves with the function that gives it back, saying how it ended. */
	async acquire(signal?: AbortSignal): Promise<Release> {
		let grantNumber = 0;
		await new Promise<void>((resolve, reject) => {
			if (signal?.aborted) return reject(new CancelledError());
			const grant = () => {
				grantNumber = ++this.grants;
				signal?.removeEventListener('abort', onAbort);
				resolve();
			};
			const onAbort = () => {
				const at = this.waiters.indexOf(grant);
				if (at >= 0) this.waiters.splice(at, 1);
				reject(new CancelledError());
			};
			signal?.addEventListener('abort', onAbort, { once: true });
			this.waiters.push(grant);
			this.pump();
		});
		let released = false;
		return (result: ReleaseResult = 'unknown') => {
			if (released) return;
			released = true;
			this.inFlight--;
			const now = this.clock.now();
			if (result === 'accepted' || result === 'unknown')
				this.finished.push({ at: now, accepted: result === 'accepted' });
			if (result === 'rateLimited') this.onRefused(grantNumber, now);
			if (result === 'accepted') this.onAccepted(grantNumber, now);
			this.pump();
		};
	}

	private onRefused(grantNumber: number, now: number): void {
		// Sent before the last cut: the cut already accounts for it.
		if (grantNumber <= this.grantsAtCut) return;
		this.prune(now);
		const share = this.finished.filter((entry) => entry.accepted).length;
		this.allowanceNow = Math.max(1, Math.min(this.allowanceNow, share));
		// The next probe past the share: soon after a first cut, twice as late after each cut
		// that follows within a window, at most a twelfth of the window (5 s of a minute): a probe costs one 429, a late one leaves places unused.
		const firstProbeMs = this.limit.windowMs / 60;
		this.probeAfterMs =
			now - this.lastCutAt < this.limit.windowMs
				? Math.min(this.limit.windowMs / 12, this.probeAfterMs * 2)
				: firstProbeMs;
		this.lastCutAt = now;
		this.growsAt = now + this.probeAfterMs;
		this.grantsAtCut = this.grants;
		this.cuts++;
	}

	private onAccepted(grantNumber: number, now: number): void {
		const ceiling = this.limit.perWindow;
		// Sent before the cut: the server counted it before it was full, so it is part of the share.
		// Sent after the probe time: the server had room, so the allowance grows, and the free
		// places double with each round trip while it keeps having room.
		if (grantNumber <= this.grantsAtCut) {
			this.allowanceNow = Math.min(ceiling, this.allowanceNow + 1);
		} else if (now >= this.growsAt) {
			// Two places: one for the request that now holds its place in the window, one more.
			this.allowanceNow = Math.min(ceiling, this.allowanceNow + 2);
		}
	}

	/**
	 * Holds every request on this limiter back for `ms` from now (after a 429), at most
	 * MAX_PAUSE_MS. Durations only: the limiter reads its own (monotonic) clock, so no wall-clock
	 * time is ever mixed into its times.
	 */
	pauseFor(ms: number): void {
		const now = this.clock.now();
		const until =
			now + Math.min(MAX_PAUSE_MS, Math.max(0, Number.isFinite(ms) ? ms : MAX_PAUSE_MS));
		if (until > this.pausedUntil) this.pausedUntil = until;
	}

	/** Holds every request back until `time` on this limiter's clock, at most MAX_PAUSE_MS from now. */
	pauseUntil(time: number): void {
		this.pauseFor(time - this.clock.now());
	}

	/**
	 * Milliseconds until a request this limiter counts leaves the window and frees a place under
	 * the current allowance (at the earliest, the oldest): by then the server's window has freed
	 * one too, whatever the server's window is aligned to. A whole window when this limiter
	 * counts no request that could free one (the window may be full of requests from elsewhere).
	 */
	msUntilWindowFrees(): number {
		const now = this.clock.now();
		this.prune(now);
		const over = Math.max(0, this.inFlight + this.finished.length - this.allowance);
		if (over >= this.finished.length) return this.limit.windowMs;
		return Math.max(0, this.finished[over].at + this.limit.windowMs - now + 1);
	}

	/** Requests counted in the current window (for tests and benchmarks). */
	get used(): number {
		this.prune(this.clock.now());
		return this.inFlight + this.finished.length;
	}

	private prune(now: number): void {
		const horizon = now - this.limit.windowMs;
		let drop = 0;
		while (drop < this.finished.length && this.finished[drop].at <= horizon) drop++;
		if (drop) this.finished.splice(0, drop);
	}

	/** Milliseconds until the next request may go: 0 now, Infinity when only a release helps. */
	private waitTime(now: number): number {
		if (this.inFlight >= this.limit.concurrency) return Infinity;
		if (now < this.pausedUntil) return this.pausedUntil - now;
		const gap = (this.limit.spreadMs ?? 0) / this.limit.perWindow;
		if (gap > 0 && now < this.lastGrantAt + gap) return this.lastGrantAt + gap - now;
		this.prune(now);
		const over = this.inFlight + this.finished.length - this.allowance;
		if (over < 0) return 0;
		const frees =
			over >= this.finished.length
				? Infinity
				: this.finished[over].at + this.limit.windowMs - now + 1;
		if (this.allowance >= this.limit.perWindow) return frees;
		// Held by a cut allowance. From the probe time on, probe: one more request, whose
		// acceptance lets the allowance double from there. Only with nothing in flight, as an
		// answer still to come grows it anyway.
		const growsAt = this.growsAt;
		if (now >= growsAt) {
			if (over === 0 && this.inFlight === 0) {
				this.allowanceNow = this.allowance + 1;
				return 0;
			}
			return frees;
		}
		return Math.min(frees, growsAt - now);
	}

	private pump(): void {
		while (this.waiters.length) {
			const now = this.clock.now();
			const wait = this.waitTime(now);
			if (wait === Infinity) return;
			if (wait > 0) {
				this.schedule(now + wait);
				return;
			}
			this.inFlight++;
			this.lastGrantAt = now;
			this.waiters.shift()!();
		}
	}

	private schedule(at: number): void {
		if (this.cancelTimer && this.timerAt <= at) return;
		this.cancelTimer?.();
		this.timerAt = at;
		// A timer longer than the runtime holds would fire at once; a clamped one fires early and
		// pump() simply arms the next.
		this.cancelTimer = this.clock.setTimer(
			() => {
				this.cancelTimer = undefined;
				this.timerAt = Infinity;
				this.pump();
			},
			clampTimerMs(at - this.clock.now()),
		);
	}
}

/**
 * One limiter per credential and scope for the whole process: every execution and every
 * node using the same key shares it, as the API's limit is per key.
 */
const registry = new Map<string, RateLimiter>();

export function sharedLimiter(scope: string, limit: RateLimit): RateLimiter {
	let limiter = registry.get(scope);
	if (!limiter) {
		limiter = new RateLimiter(spread(limit));
		registry.set(scope, limiter);
	}
	return limiter;
}

/**
 * Replaces the limiter of a scope. For tests and benchmarks, which run the API's limits on a
 * shorter window so that a run takes seconds instead of minutes; nodes never call it.
 */
export function setSharedLimit(scope: string, limit: RateLimit): RateLimiter {
	const limiter = new RateLimiter(spread(limit));
	registry.set(scope, limiter);
	return limiter;
}

/** A limit with the default spread (SPREAD_OF_WINDOW of its window) unless it names one. */
function spread(limit: RateLimit): RateLimit {
	return { ...limit, spreadMs: limit.spreadMs ?? limit.windowMs * SPREAD_OF_WINDOW };
}
