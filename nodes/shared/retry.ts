/**
 * When a failed request may be sent again, and after how long. Pure: the transport supplies
 * the clock and the randomness.
 */

export interface RetryPolicy {
	/** Attempts in all, the first included. */
	maxAttempts: number;
	baseDelayMs: number;
	maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 6, baseDelayMs: 500, maxDelayMs: 30_000 };

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
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
	const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** How a failed attempt ended, as far as retrying is concerned. */
export type Outcome =
	| { kind: 'status'; status: number; retryAfterMs?: number }
	/** The connection failed before the request was sent (refused, DNS): nothing reached the server. */
	| { kind: 'notSent' }
	/** The request may have reached the server (reset, timeout): its outcome is unknown. */
	| { kind: 'unknown' };

export interface RetryDecision {
	retry: boolean;
	delayMs: number;
}

/**
 * 429 is always safe to repeat: the server refused the request without acting on it.
 * `retryableStatuses` are those the API documents as retryable (Account: 500).
 * A Retry-After the server sent is honoured for either.
 * A request whose outcome is unknown is repeated only when it is idempotent (a read).
 */
export function decideRetry(
	outcome: Outcome,
	attempt: number,
	{
		idempotent,
		retryableStatuses,
		policy = DEFAULT_RETRY,
		random,
	}: { idempotent: boolean; retryableStatuses: readonly number[]; policy?: RetryPolicy; random?: () => number },
): RetryDecision {
	const no = { retry: false, delayMs: 0 };
	if (attempt >= policy.maxAttempts) return no;
	const backoff = backoffDelay(attempt, policy, random);
	switch (outcome.kind) {
		case 'status':
			if (outcome.status === 429) {
				return { retry: true, delayMs: outcome.retryAfterMs !== undefined ? Math.min(outcome.retryAfterMs, 120_000) : backoff };
			}
			if (!retryableStatuses.includes(outcome.status)) return no;
			return { retry: true, delayMs: outcome.retryAfterMs !== undefined ? Math.min(outcome.retryAfterMs, 120_000) : backoff };
		case 'notSent':
			return { retry: true, delayMs: backoff };
		case 'unknown':
			return idempotent ? { retry: true, delayMs: backoff } : no;
	}
}
