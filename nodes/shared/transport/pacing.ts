/**
 * Client-side pacing: never send faster than the API's documented limit, and no faster than
 * the server really allows, learned from what it does (learnedLimit.ts), so a large batch
 * finishes in about the least time the server allows instead of tripping 429s.
 *
 * A request holds a place in the rate windows from the moment it is dispatched until a window
 * after its answer arrived (`Places` in limitState.ts): a request sent once that place frees can never land in
 * the same server window, whatever the latency.
 */
import { CancelledError, clampTimerMs, type Clock, systemClock } from './serverClock';
import { LearnedLimit } from './learnedLimit';
import { type GrantKind, Places, type Ticket } from './limitState';

/**
 * The longest a 429 may hold a key's requests back: the longest a request itself waits
 * before a retry (120 s, retry.ts's `maxWaitMs`). A server asking for more makes that request
 * fail at once instead (see the transport), so one answer cannot stall every execution on the
 * key for longer.
 */
export const MAX_PAUSE_MS = 120_000;

export interface RateLimit {
	/** Requests allowed in any window: the documented limit, never exceeded. */
	perWindow: number;
	windowMs: number;
	/** Requests in flight at once. */
	concurrency: number;
	/**
	 * The first requests of a window go out one every `spreadMs / perWindow` (default: none),
	 * and faster as more are accepted (see `gapMs`), so that when the server allows fewer than
	 * documented, or another client fills its window first, only the few requests sent in the
	 * moment before the first 429 comes back are refused, not a whole burst.
	 */
	spreadMs?: number;
}

/** Share of the window that sets the first requests' spacing (3 s of a minute: 5 ms at 600). */
export const SPREAD_OF_WINDOW = 1 / 20;
/** The spacing holds for a quarter of the limit (150 of 600), then shrinks as 1/count. */
const RAMP_SHARE = 1 / 4;

/** How an attempt ended, as far as the rate limit is concerned. */
export type ReleaseResult =
	/** The server answered and did not refuse it for the rate: it counted. */
	| 'accepted'
	/** A 429 without Retry-After: the server's window is full; the request was not counted. */
	| 'rateLimited'
	/**
	 * A 429 naming its own wait (Retry-After): not counted either, and the pause it asks for
	 * (pauseFor) holds the key; the server said when to come back, so what was learned stays.
	 */
	| 'deferred'
	/** No answer: it may have counted. */
	| 'unknown';

export type Release = (result?: ReleaseResult) => void;

/**
 * The limiter of one key, shared by every execution in this process. It learns what the
 * server allows from the 429s (learnedLimit.ts), so several processes sharing one key (n8n
 * workers in queue mode, two n8n instances, n8n beside another client) converge on their
 * shares without talking to each other: each cuts its allowance to what it saw accepted, and
 * probes for more now and then. A 429 with Retry-After teaches nothing: the key waits what the
 * server asked (pauseFor).
 */
export class RateLimiter {
	private readonly places = new Places();
	private readonly learnt: LearnedLimit;
	private readonly waiters: Array<(ticket: Ticket) => void> = [];
	private pausedUntil = 0;
	private cancelTimer: (() => void) | undefined;
	private timerAt = Infinity;
	private lastGrantAt = -Infinity;
	/** Since when nothing has waited or been in flight (undefined: busy). */
	private idleSince: number | undefined;

	constructor(
		readonly limit: RateLimit,
		private readonly clock: Clock = systemClock,
	) {
		this.learnt = new LearnedLimit(limit, clock.now());
		this.idleSince = clock.now();
	}

	/** Requests this limiter lets into its window now: the documented limit, or what it learned. */
	get allowance(): number {
		return this.learnt.allowance;
	}

	/** The window it counts its allowance over: the documented one, or what it learned. */
	get windowMs(): number {
		return this.learnt.windowMs;
	}

	/** Refusals that taught it something (for tests and benchmarks). */
	get cuts(): number {
		return this.learnt.cuts;
	}

	/**
	 * How long this key has been asking with nothing accepted: since the server last accepted a
	 * request of it (or the limiter was made), the time nothing waited or was in flight left out.
	 */
	msSinceAccepted(): number {
		return (this.idleSince ?? this.clock.now()) - this.learnt.lastAcceptedAt;
	}

	/** The longest window it may learn. */
	get longestWindowMs(): number {
		return this.learnt.maxWindowMs();
	}

	/**
	 * Waits for a place; resolves with the function that gives it back, saying how it ended.
	 * `retry`: a request the server refused goes before those that have not been sent yet.
	 */
	async acquire(signal?: AbortSignal, { retry = false } = {}): Promise<Release> {
		let ticket: Ticket | undefined;
		await new Promise<void>((resolve, reject) => {
			if (signal?.aborted) return reject(new CancelledError());
			const grant = (granted: Ticket) => {
				ticket = granted;
				signal?.removeEventListener('abort', onAbort);
				resolve();
			};
			const onAbort = () => {
				const at = this.waiters.indexOf(grant);
				if (at >= 0) this.waiters.splice(at, 1);
				this.idleIfNothingLeft(this.clock.now());
				reject(new CancelledError());
			};
			signal?.addEventListener('abort', onAbort, { once: true });
			this.busy();
			if (retry) this.waiters.unshift(grant);
			else this.waiters.push(grant);
			this.pump();
		});
		let released = false;
		return (result: ReleaseResult = 'unknown') => {
			if (released) return;
			released = true;
			this.places.inFlight--;
			const now = this.clock.now();
			if (result === 'accepted' || result === 'unknown')
				this.places.add({ sentAt: ticket!.sentAt, at: now, accepted: result === 'accepted' });
			if (result === 'accepted' || result === 'rateLimited') {
				const pauseMs = this.learnt.ended(ticket!, result, now, this.places);
				if (pauseMs > 0) this.pauseFor(pauseMs);
			}
			this.pump();
			this.idleIfNothingLeft(now);
		};
	}

	/** Nothing waiting and nothing in flight: the key is idle from `now` (see busy()). */
	private idleIfNothingLeft(now: number): void {
		if (this.places.inFlight === 0 && this.waiters.length === 0) this.idleSince = now;
	}

	/**
	 * A request asked for: if the key was idle, the time it was idle does not count as time
	 * with nothing accepted (a worker's limiter lives for days; one that had sent nothing for an
	 * hour, refused once, failed its item after 6 tries, 31 s, instead of after 4 minutes); idle
	 * a documented window or more, the key starts afresh: refusals before (an item that failed,
	 * a poll that gave up, a run cancelled) say nothing of now.
	 */
	private busy(): void {
		if (this.idleSince === undefined) return;
		const now = this.clock.now();
		const idleMs = now - this.idleSince;
		this.idleSince = undefined;
		if (idleMs >= this.limit.windowMs) this.learnt.afresh(now);
		else this.learnt.lastAcceptedAt += idleMs;
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

	/** Requests counted in the current window (for tests and benchmarks). */
	get used(): number {
		return this.places.count(this.clock.now(), this.learnt.windowMs);
	}

	/**
	 * The least spacing between two requests: `spreadMs / perWindow` for the first quarter of
	 * the limit in the window, then shrinking as 1/count, so a window's worth goes out in about
	 * three fifths of `spreadMs` (1.8 s of 3 s), while a server that allows only a few refuses
	 * only a few.
	 */
	private gapMs(now: number): number {
		const { spreadMs = 0, perWindow, windowMs } = this.limit;
		if (spreadMs <= 0) return 0;
		const held = this.places.count(now, windowMs);
		const free = Math.max(1, perWindow * RAMP_SHARE);
		return (spreadMs / perWindow) * Math.min(1, free / Math.max(1, held));
	}

	/** Milliseconds until the next request may go, or how it goes now. */
	private next(now: number): { kind: GrantKind; windowMs: number; bisecting?: boolean } | number {
		const { perWindow, windowMs, concurrency } = this.limit;
		if (this.places.inFlight >= concurrency) return Infinity;
		if (now < this.pausedUntil) return this.pausedUntil - now;
		const gap = this.gapMs(now);
		if (gap > 0 && now < this.lastGrantAt + gap) return this.lastGrantAt + gap - now;
		this.places.prune(now, Math.max(windowMs, this.learnt.windowMs) * 2);
		const documented = this.places.freesAt(now, windowMs, perWindow);
		if (documented > now) {
			this.learnt.heldByDocumented(now);
			return documented - now;
		}
		const decision = this.learnt.decide(now, this.places);
		return 'waitMs' in decision ? decision.waitMs : decision;
	}

	private pump(): void {
		while (this.waiters.length) {
			const now = this.clock.now();
			const next = this.next(now);
			if (next === Infinity) return;
			if (typeof next === 'number') {
				this.schedule(now + Math.max(0, next));
				return;
			}
			this.places.inFlight++;
			this.lastGrantAt = now;
			this.waiters.shift()!(this.learnt.granted(now, next));
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
