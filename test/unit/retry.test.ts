import fc from 'fast-check';

import {
	backoffDelay,
	decideRetry,
	DEFAULT_RETRY,
	lookupSchedule,
	parseRetryAfter,
	TimeoutBreaker,
} from '../../nodes/shared/transport/retry';
import { MAX_PAUSE_MS } from '../../nodes/shared/transport/pacing';

describe('parseRetryAfter', () => {
	it('reads seconds', () => expect(parseRetryAfter('7', 0)).toBe(7000));
	it('reads fractional seconds', () => expect(parseRetryAfter('0.5', 0)).toBe(500));
	it('reads an HTTP date', () =>
		expect(
			parseRetryAfter('Wed, 21 Oct 2026 07:28:10 GMT', Date.parse('Wed, 21 Oct 2026 07:28:00 GMT')),
		).toBe(10_000));
	it('treats a date in the past as now', () =>
		expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.now())).toBe(0));
	it('ignores garbage and absence', () => {
		expect(parseRetryAfter('soon', 0)).toBeUndefined();
		expect(parseRetryAfter(undefined, 0)).toBeUndefined();
	});
	it('takes the first of repeated headers', () =>
		expect(parseRetryAfter(['2', '9'], 0)).toBe(2000));
});

describe('backoffDelay', () => {
	it('doubles per attempt, with jitter between half and the whole ceiling', () => {
		expect(backoffDelay(1, DEFAULT_RETRY, () => 0)).toBe(250);
		expect(backoffDelay(1, DEFAULT_RETRY, () => 1)).toBe(500);
		expect(backoffDelay(3, DEFAULT_RETRY, () => 1)).toBe(2000);
	});
	it('is capped', () =>
		expect(backoffDelay(30, DEFAULT_RETRY, () => 1)).toBe(DEFAULT_RETRY.maxDelayMs));
});

describe('decideRetry', () => {
	const write = { idempotent: false, canLookUp: false, random: () => 1 };
	const lookedUp = { ...write, canLookUp: true };
	const read = { ...write, idempotent: true };
	/** A key whose server accepted a request a second ago; its limiter learns windows up to 120 s. */
	const window = { windowMs: 120_000, keyQuietMs: 1000, waitedMs: 0 };

	describe('429', () => {
		it('waits the Retry-After the server asked for, and holds the key that long, reads and writes alike', () => {
			expect(decideRetry({ kind: 'rateLimited', retryAfterMs: 3000, ...window }, 1, write)).toEqual(
				{ action: 'retry', delayMs: 3000, holdKeyMs: 3000 },
			);
			expect(decideRetry({ kind: 'rateLimited', retryAfterMs: 3000, ...window }, 1, read)).toEqual({
				action: 'retry',
				delayMs: 3000,
				holdKeyMs: 3000,
			});
		});
		it('waits up to the cap (120 s)', () => {
			expect(
				decideRetry({ kind: 'rateLimited', retryAfterMs: 120_000, ...window }, 1, write),
			).toMatchObject({ action: 'retry', delayMs: 120_000 });
		});
		it('fails at once when the server asks for longer than the cap, and holds nobody back', () => {
			expect(
				decideRetry({ kind: 'rateLimited', retryAfterMs: 120_001, ...window }, 1, write),
			).toEqual({ action: 'stop', why: 'waitTooLong' });
			expect(
				decideRetry({ kind: 'rateLimited', retryAfterMs: 99999999 * 1000, ...window }, 1, read),
			).toEqual({ action: 'stop', why: 'waitTooLong' });
		});
		it('without Retry-After, goes again at once, holding nobody: the limiter, which learned from the 429, paces it', () => {
			expect(decideRetry({ kind: 'rateLimited', ...window }, 1, write)).toEqual({
				action: 'retry',
				delayMs: 0,
			});
		});
		it('without Retry-After, never fails a request while the server keeps accepting others on the key', () => {
			// Twenty attempts and ten minutes of waiting: the key's server accepted a request a second ago.
			expect(decideRetry({ kind: 'rateLimited', ...window, waitedMs: 600_000 }, 20, write)).toEqual(
				{ action: 'retry', delayMs: 0 },
			);
		});
		it('without Retry-After, fails after the last attempt once the key has had nothing accepted for two of the longest windows', () => {
			const last = DEFAULT_RETRY.maxAttempts;
			const refusingAll = { ...window, keyQuietMs: 240_000 };
			expect(decideRetry({ kind: 'rateLimited', ...refusingAll }, last - 1, write)).toEqual({
				action: 'retry',
				delayMs: 0,
			});
			expect(decideRetry({ kind: 'rateLimited', ...refusingAll }, last, write)).toEqual({
				action: 'stop',
				why: 'attempts',
			});
			expect(
				decideRetry({ kind: 'rateLimited', ...window, keyQuietMs: 239_999 }, last, write),
			).toEqual({ action: 'retry', delayMs: 0 });
		});
		it('without Retry-After, a poll stops once it has waited what it may (maxRateLimitedMs)', () => {
			const policy = { ...DEFAULT_RETRY, maxRateLimitedMs: 30_000 };
			expect(
				decideRetry({ kind: 'rateLimited', ...window, waitedMs: 29_999 }, 2, { ...read, policy }),
			).toEqual({ action: 'retry', delayMs: 0 });
			expect(
				decideRetry({ kind: 'rateLimited', ...window, waitedMs: 30_000 }, 2, { ...read, policy }),
			).toEqual({ action: 'stop', why: 'attempts' });
		});
		it('with Retry-After, stops after the last attempt', () => {
			expect(
				decideRetry(
					{ kind: 'rateLimited', retryAfterMs: 1000, ...window },
					DEFAULT_RETRY.maxAttempts,
					write,
				),
			).toEqual({ action: 'stop', why: 'attempts' });
		});
	});

	describe('a request that never left', () => {
		it('is sent again, read or write', () => {
			expect(decideRetry({ kind: 'notSent' }, 1, write)).toEqual({ action: 'retry', delayMs: 500 });
		});
		it('up to the last attempt', () => {
			expect(decideRetry({ kind: 'notSent' }, DEFAULT_RETRY.maxAttempts, write)).toEqual({
				action: 'stop',
				why: 'attempts',
			});
		});
	});

	describe('an outcome that is unknown (500, a gateway 502/503/504, a broken connection, a timeout)', () => {
		it('a read is sent again, after Retry-After if the server sent one (capped)', () => {
			expect(decideRetry({ kind: 'unknown', responded: true }, 2, read)).toEqual({
				action: 'retry',
				delayMs: 1000,
			});
			expect(
				decideRetry({ kind: 'unknown', responded: true, retryAfterMs: 5000 }, 2, read),
			).toEqual({ action: 'retry', delayMs: 5000 });
			expect(
				decideRetry({ kind: 'unknown', responded: true, retryAfterMs: 3_600_000 }, 2, read),
			).toEqual({ action: 'retry', delayMs: 120_000 });
			expect(
				decideRetry({ kind: 'unknown', responded: false }, DEFAULT_RETRY.maxAttempts, read),
			).toEqual({ action: 'stop', why: 'attempts' });
		});
		it('a write is never sent again blindly', () => {
			expect(decideRetry({ kind: 'unknown', responded: true }, 1, write)).toEqual({
				action: 'stop',
				why: 'unknownOutcome',
			});
			expect(decideRetry({ kind: 'unknown', responded: false }, 1, write)).toEqual({
				action: 'stop',
				why: 'unknownOutcome',
			});
		});
		it('a write that can be looked up is looked up first, four times over the request timeout', () => {
			for (const responded of [true, false])
				expect(
					decideRetry({ kind: 'unknown', responded }, 1, { ...lookedUp, lookupSpanMs: 30_000 }),
				).toEqual({ action: 'lookUp', atMs: [3_000, 9_000, 18_000, 30_000] });
		});
		it('the look-ups span at least the request timeout, more than once, in order', () => {
			fc.assert(
				fc.property(fc.integer({ min: 1, max: 600_000 }), (span) => {
					const at = lookupSchedule(span);
					expect(at.length).toBeGreaterThan(1);
					expect(at[at.length - 1]).toBe(span);
					expect([...at].sort((a, b) => a - b)).toEqual(at);
				}),
			);
		});
		it('a write is looked up whatever attempt it was: look-ups are reads (send.ts sends it again once at most)', () => {
			expect(
				decideRetry({ kind: 'unknown', responded: true }, DEFAULT_RETRY.maxAttempts, {
					...lookedUp,
					lookupSpanMs: 30_000,
				}),
			).toEqual({ action: 'lookUp', atMs: [3_000, 9_000, 18_000, 30_000] });
		});
	});
});

describe('caps', () => {
	it('the limiter holds a key back no longer than a request itself waits', () => {
		expect(MAX_PAUSE_MS).toBe(DEFAULT_RETRY.maxWaitMs);
	});
});

describe('TimeoutBreaker', () => {
	it('opens after three timeouts in a row on a key, for the given time; other keys are not affected', () => {
		const breaker = new TimeoutBreaker(3);
		breaker.timedOut('a', 0, 5_000);
		breaker.timedOut('a', 10, 5_000);
		expect(breaker.openUntil('a', 20)).toBeUndefined();
		breaker.timedOut('a', 20, 5_000);
		expect(breaker.openUntil('a', 21)).toBe(5_020);
		expect(breaker.openUntil('b', 21)).toBeUndefined();
	});
	it('lets one request try once the time is over, and opens again at once if it times out', () => {
		const breaker = new TimeoutBreaker(3);
		for (let i = 0; i < 3; i++) breaker.timedOut('a', 0, 5_000);
		expect(breaker.openUntil('a', 5_000)).toBeUndefined();
		breaker.timedOut('a', 5_500, 5_000);
		expect(breaker.openUntil('a', 5_501)).toBe(10_500);
	});
	it('any answer closes it and starts the count again', () => {
		const breaker = new TimeoutBreaker(3);
		breaker.timedOut('a', 0, 5_000);
		breaker.timedOut('a', 0, 5_000);
		breaker.answered('a');
		breaker.timedOut('a', 0, 5_000);
		expect(breaker.timeouts('a')).toBe(1);
		expect(breaker.openUntil('a', 1)).toBeUndefined();
	});
});
