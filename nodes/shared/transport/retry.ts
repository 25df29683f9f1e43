/**
 * When a failed request may be sent again, and after how long. Pure: the transport supplies
 * the clock and the randomness.
 */

export interface RetryPolicy {
	/** Attempts in all, the first included. */
	maxAttempts: number;
	baseDelayMs: number;
	/** The longest backoff between two attempts. */
	maxDelayMs: number;
	/** The longest any one wait may be, a server's Retry-After included. */
	maxWaitMs: number;
	/**
	 * The longest a request may wait in all after its first 429 without Retry-After (a poll,
	 * which must not outlast its interval). Unset: as long as the server keeps accepting other
	 * requests on the key.
	 */
	maxRateLimitedMs?: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
	maxAttempts: 6,
	baseDelayMs: 500,
	maxDelayMs: 30_000,
	maxWaitMs: 120_000,
};

/**
 * When a write whose outcome is unknown is looked up, as fractions of the span the look-ups
 * cover (the request timeout), counted from the moment the outcome became unknown. A gateway
 * may answer 502/504 while the server is still sending, a history may show a new record a few
 * seconds late, and an answer may come after the client gave up: so the history is read more
 * than once, the last time a whole request timeout later, before the write may be sent again.
 */
const LOOKUP_AT = [0.1, 0.3, 0.6, 1] as const;

/** The instants (ms after the outcome became unknown) at which a write is looked up. */
export function lookupSchedule(spanMs: number): number[] {
	return LOOKUP_AT.map((fraction) => Math.round(fraction * Math.max(0, spanMs)));
}

/** Retry-After as seconds or an HTTP date, in milliseconds from `now`; undefined if absent or unreadable. */
export function parseRetryAfter(header: unknown, now: number): number | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

/** Exponential backoff with full jitter: a random delay up to base * 2^(attempt-1), capped. */
export function backoffDelay(
	attempt: number,
	policy: RetryPolicy,
	random: () => number = Math.random,
): number {
	const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** How a failed attempt ended, as far as retrying is concerned. */
export type FailedEnding =
	/**
	 * 429: the server refused the request without acting on it. `waitedMs`: how long since this
	 * request's first 429; `keyQuietMs`: how long the key has been asking with nothing accepted
	 * (RateLimiter.msSinceAccepted: time with nothing waiting or in flight left out, and none
	 * counted from before an idle spell of a window); `windowMs`: the longest window the key's
	 * limiter may learn.
	 */
	| {
			kind: 'rateLimited';
			retryAfterMs?: number;
			waitedMs: number;
			keyQuietMs: number;
			windowMs: number;
	  }
	/** The connection failed before the request was sent (refused, DNS): nothing reached the server. */
	| { kind: 'notSent' }
	/**
	 * The request may or may not have been carried out: a 500, a gateway's 502/503/504, a
	 * broken connection or a timeout after it was sent. `responded`: whether any answer came.
	 */
	| { kind: 'unknown'; responded: boolean; retryAfterMs?: number };

export type RetryDecision =
	/** Send again after `delayMs`; `holdKeyMs`: hold every other request on the key back as long. */
	| { action: 'retry'; delayMs: number; holdKeyMs?: number }
	/**
	 * A write whose outcome is unknown: look it up before anything else, at each of `atMs`
	 * (after the outcome became unknown) until the history tells.
	 */
	| { action: 'lookUp'; atMs: number[] }
	/**
	 * Give up. `attempts`: the attempts are used up; `waitTooLong`: the server asked to wait
	 * longer than the cap; `unknownOutcome`: a write that may have been carried out.
	 */
	| { action: 'stop'; why: 'attempts' | 'waitTooLong' | 'unknownOutcome' };

/**
 * - 429 is always safe to repeat: the server refused the request without acting on it. A
 *   Retry-After is waited out (and every request on the key waits with it) when it is within
 *   the cap; beyond the cap the request fails at once, saying how long the server asked for.
 *   Without Retry-After, the request is sent again as soon as the key's limiter lets it (which
 *   learned from the 429 when the server will take it), ahead of those not sent yet; it never
 *   fails while the server keeps accepting others on the key: only after its attempts are up
 *   and the key has asked for two of the longest windows the limiter may learn with nothing
 *   accepted,
 *   or when a poll's wait (`maxRateLimitedMs`) is up.
 * - A request that never left is sent again.
 * - A request whose outcome is unknown is sent again only when it is idempotent (a read); a
 *   write is looked up first when the caller can look it up (several times, over the request
 *   timeout: see `LOOKUP_AT`), and is never sent again blindly.
 */
export function decideRetry(
	ending: FailedEnding,
	attempt: number,
	{
		idempotent,
		canLookUp = false,
		lookupSpanMs = 30_000,
		policy = DEFAULT_RETRY,
		random,
	}: {
		idempotent: boolean;
		canLookUp?: boolean;
		/** How long the look-ups of an unknown outcome span: the request timeout. */
		lookupSpanMs?: number;
		policy?: RetryPolicy;
		random?: () => number;
	},
): RetryDecision {
	const lastAttempt = attempt >= policy.maxAttempts;
	const backoff = backoffDelay(attempt, policy, random);
	switch (ending.kind) {
		case 'rateLimited': {
			if (ending.retryAfterMs !== undefined) {
				if (ending.retryAfterMs > policy.maxWaitMs) return { action: 'stop', why: 'waitTooLong' };
				if (lastAttempt) return { action: 'stop', why: 'attempts' };
				return { action: 'retry', delayMs: ending.retryAfterMs, holdKeyMs: ending.retryAfterMs };
			}
			// No Retry-After: the limiter learned from this 429 and paces the retry, which goes
			// before the requests not sent yet. It fails only when the server has accepted nothing
			// on the key for two of the longest windows the limiter may learn, or a poll's wait is up.
			const keyRefusesAll = ending.keyQuietMs >= 2 * ending.windowMs;
			if (lastAttempt && keyRefusesAll) return { action: 'stop', why: 'attempts' };
			if (policy.maxRateLimitedMs !== undefined && ending.waitedMs >= policy.maxRateLimitedMs)
				return { action: 'stop', why: 'attempts' };
			return { action: 'retry', delayMs: 0 };
		}
		case 'notSent':
			return lastAttempt
				? { action: 'stop', why: 'attempts' }
				: { action: 'retry', delayMs: backoff };
		case 'unknown':
			if (idempotent) {
				if (lastAttempt) return { action: 'stop', why: 'attempts' };
				return {
					action: 'retry',
					delayMs: Math.min(ending.retryAfterMs ?? backoff, policy.maxWaitMs),
				};
			}
			// Look-ups are reads: a write that can be looked up is looked up whatever attempt it was.
			if (!canLookUp) return { action: 'stop', why: 'unknownOutcome' };
			return { action: 'lookUp', atMs: lookupSchedule(lookupSpanMs) };
	}
}

/**
 * A circuit breaker for servers that accept a connection and never answer: after `threshold`
 * requests in a row on one key time out, with no answer of any kind between them, the key's
 * circuit opens for `openMs`, and requests on it fail at once instead of waiting out the
 * timeout each. Once that time is over, the next request tries again; if it times out too, the
 * circuit opens again at once. Any answer closes it. Per key and process; pure (the caller
 * gives the time).
 */
export class TimeoutBreaker {
	private readonly keys = new Map<string, { timeouts: number; openUntilMs: number }>();

	constructor(readonly threshold = 3) {}

	/** Until when the key's circuit is open, or undefined when requests may go. */
	openUntil(key: string, nowMs: number): number | undefined {
		const state = this.keys.get(key);
		return state && state.openUntilMs > nowMs ? state.openUntilMs : undefined;
	}

	/** How many requests in a row on the key have timed out. */
	timeouts(key: string): number {
		return this.keys.get(key)?.timeouts ?? 0;
	}

	timedOut(key: string, nowMs: number, openMs: number): void {
		const state = this.keys.get(key) ?? { timeouts: 0, openUntilMs: 0 };
		state.timeouts++;
		if (state.timeouts >= this.threshold) state.openUntilMs = nowMs + openMs;
		this.keys.set(key, state);
	}

	answered(key: string): void {
		this.keys.delete(key);
	}
}

/** How long a key's circuit stays open, in request timeouts (5 minutes at the default 30 s). */
export const BREAKER_OPEN_TIMEOUTS = 10;

/** Keys whose server accepts requests and never answers: their requests fail at once for a while. */
export const breaker = new TimeoutBreaker();
