/**
 * Request limits (a sliding window, a fixed window, or a token bucket) and concurrency caps,
 * measured on the sandbox clock.
 */

export type LimitVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** How the per-key limit is counted: `slidingWindow` (the default), `fixedWindow` or `tokenBucket`. */
export type RateAlgorithm = 'slidingWindow' | 'fixedWindow' | 'tokenBucket';

export const RATE_ALGORITHMS: readonly RateAlgorithm[] = [
	'slidingWindow',
	'fixedWindow',
	'tokenBucket',
];

export interface RateCounter {
	take(key: string, limit: number, nowMs: number, windowMs?: number, burst?: number): LimitVerdict;
	clear(): void;
}

const WINDOW_MS = 60_000;

/**
 * Counts requests per key over the last window (60 seconds unless the `rateWindowSeconds`
 * setting shortens it). A rejected request is not counted, so a client that backs off for
 * `Retry-After` seconds is let through again.
 */
export class SlidingWindow implements RateCounter {
	private readonly hits = new Map<string, number[]>();

	/** Records a request for `key` at `nowMs` if fewer than `limit` are in the window. */
	take(key: string, limit: number, nowMs: number, windowMs = WINDOW_MS): LimitVerdict {
		const recent = (this.hits.get(key) ?? []).filter((t) => t > nowMs - windowMs);
		this.hits.set(key, recent);
		if (recent.length < limit) {
			recent.push(nowMs);
			return { allowed: true };
		}
		// The request is allowed once enough of the oldest hits have left the window.
		const freeingHit = recent[recent.length - Math.max(limit, 1)] ?? nowMs;
		const waitMs = freeingHit + windowMs - nowMs;
		return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
	}

	/** Requests counted in the window that ends at `nowMs`. */
	count(key: string, nowMs: number, windowMs = WINDOW_MS): number {
		return (this.hits.get(key) ?? []).filter((t) => t > nowMs - windowMs).length;
	}

	clear(): void {
		this.hits.clear();
	}
}

/**
 * Counts requests per key in clock-aligned windows: at most `limit` from each multiple of the
 * window on the sandbox clock to the next (so up to twice the limit across a window's turn). A
 * rejected request is not counted.
 */
export class FixedWindow implements RateCounter {
	private readonly windows = new Map<string, { start: number; count: number }>();

	take(key: string, limit: number, nowMs: number, windowMs = WINDOW_MS): LimitVerdict {
		const start = Math.floor(nowMs / windowMs) * windowMs;
		const current = this.windows.get(key);
		const window = current && current.start === start ? current : { start, count: 0 };
		this.windows.set(key, window);
		if (window.count < limit) {
			window.count++;
			return { allowed: true };
		}
		const waitMs = start + windowMs - nowMs;
		return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
	}

	clear(): void {
		this.windows.clear();
	}
}

/**
 * A token bucket per key: it holds at most `burst` tokens (the limit unless set) and refills at
 * `limit` per window, continuously; a request takes one token. A burst goes at once, and after
 * that requests go at the steady rate, never bunched at a window's edge. A rejected request
 * takes no token.
 */
export class TokenBucket implements RateCounter {
	private readonly buckets = new Map<string, { tokens: number; at: number }>();

	take(
		key: string,
		limit: number,
		nowMs: number,
		windowMs = WINDOW_MS,
		burst = limit,
	): LimitVerdict {
		const perMs = limit / windowMs;
		const bucket = this.buckets.get(key) ?? { tokens: burst, at: nowMs };
		bucket.tokens = Math.min(burst, bucket.tokens + Math.max(0, nowMs - bucket.at) * perMs);
		bucket.at = nowMs;
		this.buckets.set(key, bucket);
		if (bucket.tokens >= 1) {
			bucket.tokens -= 1;
			return { allowed: true };
		}
		const waitMs = (1 - bucket.tokens) / perMs;
		return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
	}

	clear(): void {
		this.buckets.clear();
	}
}

/** Every counter, so a settings change takes effect at the next request. */
export class RateLimits {
	private readonly counters: Record<RateAlgorithm, RateCounter> = {
		slidingWindow: new SlidingWindow(),
		fixedWindow: new FixedWindow(),
		tokenBucket: new TokenBucket(),
	};

	/** `burst`: a token bucket's size (the limit unless given); the windows ignore it. */
	take(
		algorithm: RateAlgorithm,
		key: string,
		limit: number,
		nowMs: number,
		windowMs: number,
		burst?: number,
	): LimitVerdict {
		return this.counters[algorithm].take(key, limit, nowMs, windowMs, burst);
	}

	clear(): void {
		for (const counter of Object.values(this.counters)) counter.clear();
	}
}

/** Counts requests in progress per key; `acquire` returns a release function, or null when full. */
export class ConcurrencyGate {
	private readonly inFlight = new Map<string, number>();

	acquire(key: string, limit: number): (() => void) | null {
		const current = this.inFlight.get(key) ?? 0;
		if (current >= limit) return null;
		this.inFlight.set(key, current + 1);
		let released = false;
		return () => {
			if (released) return;
			released = true;
			this.inFlight.set(key, (this.inFlight.get(key) ?? 1) - 1);
		};
	}

	current(key: string): number {
		return this.inFlight.get(key) ?? 0;
	}

	snapshot(): Record<string, number> {
		return Object.fromEntries([...this.inFlight].filter(([, n]) => n > 0));
	}
}
