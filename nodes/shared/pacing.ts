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
}

export type Release = () => void;

export class RateLimiter {
	private inFlight = 0;
	/** Response times of finished requests still inside the window, oldest first. */
	private readonly finished: number[] = [];
	private readonly waiters: Array<() => void> = [];
	private pausedUntil = 0;
	private cancelTimer: (() => void) | undefined;
	private timerAt = Infinity;

	constructor(
		readonly limit: RateLimit,
		private readonly clock: Clock = systemClock,
	) {}

	/** Waits for a free place; resolves with the function that gives it back. */
	async acquire(signal?: AbortSignal): Promise<Release> {
		await new Promise<void>((resolve, reject) => {
			if (signal?.aborted) return reject(new CancelledError());
			const grant = () => {
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
		return () => {
			if (released) return;
			released = true;
			this.inFlight--;
			this.finished.push(this.clock.now());
			this.pump();
		};
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
	 * Milliseconds until the oldest request this limiter counts leaves the rate window: by then
	 * the server's window has freed a place, whatever the server's window is aligned to. A whole
	 * window when it counts none (the window may be full of requests from elsewhere).
	 */
	msUntilWindowFrees(): number {
		const now = this.clock.now();
		this.prune(now);
		if (this.finished.length === 0) return this.limit.windowMs;
		return Math.max(0, this.finished[0] + this.limit.windowMs - now + 1);
	}

	/** Requests counted in the current window (for tests and benchmarks). */
	get used(): number {
		this.prune(this.clock.now());
		return this.inFlight + this.finished.length;
	}

	private prune(now: number): void {
		const horizon = now - this.limit.windowMs;
		let drop = 0;
		while (drop < this.finished.length && this.finished[drop] <= horizon) drop++;
		if (drop) this.finished.splice(0, drop);
	}

	/** Milliseconds until the next request may go: 0 now, Infinity when only a release helps. */
	private waitTime(now: number): number {
		if (this.inFlight >= this.limit.concurrency) return Infinity;
		if (now < this.pausedUntil) return this.pausedUntil - now;
		this.prune(now);
		if (this.inFlight + this.finished.length < this.limit.perWindow) return 0;
		if (this.finished.length === 0) return Infinity;
		return this.finished[0] + this.limit.windowMs - now + 1;
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
		limiter = new RateLimiter(limit);
		registry.set(scope, limiter);
	}
	return limiter;
}

/**
 * Replaces the limiter of a scope. For tests and benchmarks, which run the API's limits on a
 * shorter window so that a run takes seconds instead of minutes; nodes never call it.
 */
export function setSharedLimit(scope: string, limit: RateLimit): RateLimiter {
	const limiter = new RateLimiter(limit);
	registry.set(scope, limiter);
	return limiter;
}

/** The limits the API documents. */
export const ACCOUNT_LIMIT: RateLimit = { perWindow: 600, windowMs: 60_000, concurrency: 25 };

export type UnifiedService = 'voice' | 'sms' | 'email' | 'ai';

export const UNIFIED_LIMITS: Record<UnifiedService, RateLimit> = {
	voice: { perWindow: 10, windowMs: 60_000, concurrency: 5 },
	sms: { perWindow: 100, windowMs: 60_000, concurrency: 50 },
	email: { perWindow: 200, windowMs: 60_000, concurrency: 100 },
	ai: { perWindow: 30, windowMs: 60_000, concurrency: 10 },
};
