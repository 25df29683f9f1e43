import { backoffDelay, decideRetry, DEFAULT_RETRY, parseRetryAfter } from '../../nodes/shared/retry';

describe('parseRetryAfter', () => {
	it('reads seconds', () => expect(parseRetryAfter('7', 0)).toBe(7000));
	it('reads fractional seconds', () => expect(parseRetryAfter('0.5', 0)).toBe(500));
	it('reads an HTTP date', () => expect(parseRetryAfter('Wed, 21 Oct 2026 07:28:10 GMT', Date.parse('Wed, 21 Oct 2026 07:28:00 GMT'))).toBe(10_000));
	it('treats a date in the past as now', () => expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.now())).toBe(0));
	it('ignores garbage and absence', () => {
		expect(parseRetryAfter('soon', 0)).toBeUndefined();
		expect(parseRetryAfter(undefined, 0)).toBeUndefined();
	});
	it('takes the first of repeated headers', () => expect(parseRetryAfter(['2', '9'], 0)).toBe(2000));
});

describe('backoffDelay', () => {
	it('doubles per attempt, with jitter between half and the whole ceiling', () => {
		expect(backoffDelay(1, DEFAULT_RETRY, () => 0)).toBe(250);
		expect(backoffDelay(1, DEFAULT_RETRY, () => 1)).toBe(500);
		expect(backoffDelay(3, DEFAULT_RETRY, () => 1)).toBe(2000);
	});
	it('is capped', () => expect(backoffDelay(30, DEFAULT_RETRY, () => 1)).toBe(DEFAULT_RETRY.maxDelayMs));
});

describe('decideRetry', () => {
	const write = { idempotent: false, retryableStatuses: [500], random: () => 1 };
	const read = { ...write, idempotent: true };

	it('retries a 429 after Retry-After, reads and writes alike', () => {
		expect(decideRetry({ kind: 'status', status: 429, retryAfterMs: 3000 }, 1, write)).toEqual({ retry: true, delayMs: 3000 });
	});
	it('backs off on a 429 without Retry-After', () => {
		expect(decideRetry({ kind: 'status', status: 429 }, 2, write)).toEqual({ retry: true, delayMs: 1000 });
	});
	it('retries statuses the API calls retryable', () => {
		expect(decideRetry({ kind: 'status', status: 500 }, 1, write).retry).toBe(true);
	});
	it('does not retry other statuses', () => {
		for (const status of [400, 401, 402, 403, 404, 405, 502, 503]) expect(decideRetry({ kind: 'status', status }, 1, read).retry).toBe(false);
	});
	it('retries a request that never left', () => {
		expect(decideRetry({ kind: 'notSent' }, 1, write).retry).toBe(true);
	});
	it('never repeats a write whose outcome is unknown, but repeats a read', () => {
		expect(decideRetry({ kind: 'unknown' }, 1, write).retry).toBe(false);
		expect(decideRetry({ kind: 'unknown' }, 1, read).retry).toBe(true);
	});
	it('stops after the last attempt', () => {
		expect(decideRetry({ kind: 'status', status: 429 }, DEFAULT_RETRY.maxAttempts, write).retry).toBe(false);
	});
	it('caps a huge Retry-After', () => {
		expect(decideRetry({ kind: 'status', status: 429, retryAfterMs: 3_600_000 }, 1, write).delayMs).toBe(120_000);
	});
});
