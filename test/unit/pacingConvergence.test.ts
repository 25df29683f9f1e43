/**
 * Several limiters on one key, each in its own process (n8n workers in queue mode), converge
 * on their shares of the server's window without talking to each other: they learn from the
 * 429s. Checked in simulated time against a model server (test/support/rateModel.ts), over
 * a hundred random schedules of up to 1,200 requests each, with the transport's own retry
 * decisions. (Servers of other shapes, one process: pacingShapes.test.ts.)
 */
import fc from 'fast-check';
import { ACCOUNT_LIMIT } from '../../nodes/CommsAccount/api/accountApi';
import { RateLimiter, SPREAD_OF_WINDOW } from '../../nodes/shared/transport/pacing';
import { UNIFIED_LIMITS } from '../../nodes/CommsUnified/api/unifiedApi';
import { FakeClock } from '../support/fakeClock';
import { leastMs, PACING_SEED, runModel } from '../support/rateModel';

const spread = <T extends { windowMs: number }>(limit: T) => ({
	...limit,
	spreadMs: limit.windowMs * SPREAD_OF_WINDOW,
});
const account = spread(ACCOUNT_LIMIT);
const sms = spread(UNIFIED_LIMITS.sms);

/**
 * 429s one client can take at the moment the key's window fills: what it sends while the first
 * 429 is on its way back (at the fastest spacing, a window's worth being in flight by then; at
 * most its concurrency), then a few lone ones while it finds its share's window (a window
 * probed at the documented rate's spacing, then the documented window) and looks for more.
 */
const perContact = (limit: typeof account, latencyMs: number) =>
	Math.min(
		limit.concurrency,
		Math.ceil((1.5 * latencyMs) / (limit.spreadMs / limit.perWindow / 4)) + 2,
	) + 4;

describe('limiters sharing a key converge without coordination (model)', () => {
	it('two workers, 600 Account SMS each at 600 a minute, no Retry-After: no failure, near the least time, few 429s', async () => {
		const result = await runModel({
			limit: account,
			server: { perWindow: 600, windowMs: 60_000 },
			clients: [{ items: 600 }, { items: 600 }],
			latencyMs: 20,
			jitterMs: 5,
		});
		expect(result.failed).toBe(0);
		expect(result.accepted).toBe(1200);
		expect(result.ms / leastMs(1200, 600, 60_000)).toBeLessThanOrEqual(1.05);
		expect(result.refused / 1200).toBeLessThan(0.05);
		// Each learnt its share from the 429s, over the documented window.
		expect(result.limiters.every((limiter) => limiter.cuts >= 1)).toBe(true);
		expect(result.limiters.map((limiter) => limiter.windowMs)).toEqual([60_000, 60_000]);
		const shares = result.limiters.map((limiter) => limiter.allowance);
		expect(shares[0] + shares[1]).toBeGreaterThanOrEqual(590);
		expect(shares[0] + shares[1]).toBeLessThanOrEqual(610);
	});

	it('the same for Unified SMS (100 a minute, 50 concurrent on the server) ', async () => {
		const result = await runModel({
			limit: sms,
			server: { perWindow: 100, windowMs: 60_000, concurrency: 50 },
			clients: [{ items: 100 }, { items: 100 }],
			latencyMs: 20,
			jitterMs: 5,
		});
		expect(result.failed).toBe(0);
		expect(result.accepted).toBe(200);
		expect(result.ms / leastMs(200, 100, 60_000)).toBeLessThanOrEqual(1.05);
		// 8 before: each process now looks once for a rate in its first window of 30 s, refused
		// (limitTrickle.ts).
		expect(result.refused).toBeLessThanOrEqual(10);
	});

	it('any two workers, any start within a second, any latency up to 50 ms, on Account or Unified SMS', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.record({
					unified: fc.boolean(),
					// Parts of a window each worker sends, in thousandths: up to a window each.
					shares: fc.tuple(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 1000 })),
					startMs: fc.integer({ min: 0, max: 1000 }),
					latencyMs: fc.integer({ min: 2, max: 50 }),
					seed: fc.integer({ min: 1, max: 1_000_000 }),
				}),
				async ({ unified, shares, startMs, latencyMs, seed }) => {
					const limit = unified ? sms : account;
					const clients = [
						{ items: Math.ceil((shares[0] * limit.perWindow) / 1000) },
						{ items: Math.ceil((shares[1] * limit.perWindow) / 1000), startMs },
					];
					const items = clients[0].items + clients[1].items;
					const result = await runModel({
						limit,
						server: {
							perWindow: limit.perWindow,
							windowMs: limit.windowMs,
							concurrency: unified ? limit.concurrency : undefined,
						},
						clients,
						latencyMs,
						jitterMs: latencyMs / 4,
						seed,
					});
					expect(result.failed).toBe(0);
					expect(result.accepted).toBe(items);
					// Within 5% of the least time the server allows, the later start counted in.
					const least = leastMs(items, limit.perWindow, limit.windowMs);
					if (least > 0) expect(result.ms).toBeLessThanOrEqual(1.05 * (least + startMs));
					// Each worker pays at most one contact's 429s.
					expect(result.refused).toBeLessThanOrEqual(2 * perContact(limit, latencyMs));
				},
			),
			{ numRuns: 150, seed: PACING_SEED },
		);
	}, 120_000);

	it('two workers whose own work paces them (40 ms an item, 12 s for the first window): the tail keeps that pace, no slower', async () => {
		const result = await runModel({
			limit: account,
			server: { perWindow: 600, windowMs: 60_000 },
			clients: [
				{ items: 600, workMs: 40 },
				{ items: 600, workMs: 40 },
			],
			latencyMs: 20,
			jitterMs: 5,
		});
		expect(result.failed).toBe(0);
		const sorted = [...result.acceptedAt].sort((a, b) => a - b);
		const firstWindowMs = sorted[599] - sorted[0];
		expect(firstWindowMs).toBeGreaterThan(10_000);
		// The least the limit allows at the pace the workers can go: the first window's sends,
		// then the rest a window later at that same pace.
		expect(result.ms / (60_000 + firstWindowMs)).toBeLessThanOrEqual(1.05);
		expect(result.refused / 1200).toBeLessThan(0.05);
	});

	it('many windows at once on a key: at most about one probe a window per worker, and no failure', async () => {
		const result = await runModel({
			limit: account,
			server: { perWindow: 600, windowMs: 60_000 },
			clients: [{ items: 3000 }, { items: 3000 }],
			latencyMs: 20,
			jitterMs: 5,
		});
		expect(result.failed).toBe(0);
		expect(result.accepted).toBe(6000);
		expect(result.ms / leastMs(6000, 600, 60_000)).toBeLessThanOrEqual(1.02);
		expect(result.refused / 6000).toBeLessThan(0.03);
	});

	it("a server stricter than documented (300 a minute): it finds the server's limit and keeps to it", async () => {
		const result = await runModel({
			limit: account,
			server: { perWindow: 300, windowMs: 60_000 },
			clients: [{ items: 1200 }],
			latencyMs: 20,
		});
		expect(result.failed).toBe(0);
		expect(result.ms / leastMs(1200, 300, 60_000)).toBeLessThanOrEqual(1.03);
		expect(result.refused / 1200).toBeLessThan(0.03);
	});

	it('with Retry-After on the 429s, the pauses alone keep them in step', async () => {
		const result = await runModel({
			limit: account,
			server: { perWindow: 600, windowMs: 60_000 },
			clients: [{ items: 600 }, { items: 600 }],
			latencyMs: 20,
			retryAfter: true,
		});
		expect(result.failed).toBe(0);
		expect(result.ms / leastMs(1200, 600, 60_000)).toBeLessThanOrEqual(1.05);
		expect(result.refused / 1200).toBeLessThan(0.05);
	});
});

describe('RateLimiter learning from 429s (unit)', () => {
	const limit = { perWindow: 10, windowMs: 1000, concurrency: 10 };

	async function take(limiter: RateLimiter, n: number) {
		return Promise.all(Array.from({ length: n }, () => limiter.acquire()));
	}

	it('a 429 without Retry-After cuts the allowance to what it saw accepted in the window', async () => {
		const clock = new FakeClock();
		const limiter = new RateLimiter(limit, clock);
		const releases = await take(limiter, 5);
		releases.slice(0, 3).forEach((release) => release('accepted'));
		releases[3]('rateLimited');
		expect(limiter.allowance).toBe(3);
		expect(limiter.cuts).toBe(1);
		// Sent before the cut: refused, it does not cut again.
		releases[4]('rateLimited');
		expect(limiter.cuts).toBe(1);
	});

	it('a request sent before the cut and accepted after it gives its place back to the share', async () => {
		const clock = new FakeClock();
		const limiter = new RateLimiter(limit, clock);
		const releases = await take(limiter, 4);
		releases[0]('accepted');
		releases[1]('rateLimited');
		expect(limiter.allowance).toBe(1);
		releases[2]('accepted');
		releases[3]('accepted');
		expect(limiter.allowance).toBe(3);
	});

	it('a 429 with Retry-After does not cut, and takes no place', async () => {
		const clock = new FakeClock();
		const limiter = new RateLimiter(limit, clock);
		const [first, second] = await take(limiter, 2);
		first('accepted');
		second('deferred');
		expect(limiter.allowance).toBe(10);
		expect(limiter.used).toBe(1);
	});

	it('a worker left alone grows back into the places the other has left', async () => {
		// Two workers; the second has few items and is done within the first window: the first,
		// cut to its share, probes for more and grows back (up to the documented limit).
		const result = await runModel({
			limit: account,
			server: { perWindow: 600, windowMs: 60_000 },
			clients: [{ items: 1500 }, { items: 300 }],
			latencyMs: 20,
			jitterMs: 5,
		});
		expect(result.failed).toBe(0);
		expect(result.limiters[0].allowance).toBeGreaterThan(300);
		expect(result.ms / leastMs(1800, 600, 60_000)).toBeLessThanOrEqual(1.05);
	});
});
