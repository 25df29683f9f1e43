import { RateLimiter } from '../../nodes/shared/transport/pacing';
import { FakeClock, flush } from '../support/fakeClock';
import { NodeLikeClock } from '../support/nodeLikeClock';

/** Starts `n` acquisitions and records when each was granted (fake time). */
function startMany(limiter: RateLimiter, clock: FakeClock, n: number) {
	const grantedAt: number[] = [];
	const releases: Array<() => void> = [];
	const all = Array.from({ length: n }, (_, i) =>
		limiter.acquire().then((release) => {
			grantedAt[i] = clock.now();
			releases[i] = release;
		}),
	);
	return { grantedAt, releases, all: Promise.all(all) };
}

describe('RateLimiter', () => {
	it('lets a burst up to the limit through at once, then waits for the window', async () => {
		const clock = new FakeClock();
		const limiter = new RateLimiter({ perWindow: 3, windowMs: 1000, concurrency: 10 }, clock);
		const run = startMany(limiter, clock, 5);
		await flush();
		expect(run.grantedAt.filter((t) => t !== undefined)).toEqual([0, 0, 0]);
		// The three answer at t=100: their places free at t=1100.
		await clock.advance(100);
		run.releases.slice(0, 3).forEach((release) => release());
		await clock.advance(999);
		expect(run.grantedAt.filter((t) => t !== undefined)).toHaveLength(3);
		await clock.advance(2);
		await run.all;
		expect(run.grantedAt).toEqual([0, 0, 0, 1101, 1101]);
	});

	it('counts a request until its response, so slow responses hold their place', async () => {
		const clock = new FakeClock();
		const limiter = new RateLimiter({ perWindow: 1, windowMs: 1000, concurrency: 10 }, clock);
		const run = startMany(limiter, clock, 2);
		await clock.advance(5000);
		expect(run.grantedAt[1]).toBeUndefined(); // the first is still in flight
		run.releases[0]();
		await clock.advance(1000);
		expect(run.grantedAt[1]).toBeUndefined();
		await clock.advance(1);
		expect(run.grantedAt[1]).toBe(6001);
	});

	it('never has more in flight than the concurrency cap', async () => {
		const clock = new FakeClock();
		const limiter = new RateLimiter({ perWindow: 100, windowMs: 1000, concurrency: 2 }, clock);
		const run = startMany(limiter, clock, 4);
		await flush();
		expect(run.grantedAt.filter((t) => t !== undefined)).toHaveLength(2);
		run.releases[0]();
		await flush();
		expect(run.grantedAt.filter((t) => t !== undefined)).toHaveLength(3);
		run.releases[1]();
		run.releases[2]();
		await run.all;
		expect(limiter.used).toBe(4);
	});

	it('grants in the order asked (first come, first served)', async () => {
		const clock = new FakeClock();
		const limiter = new RateLimiter({ perWindow: 1, windowMs: 100, concurrency: 1 }, clock);
		const order: number[] = [];
		const all = [0, 1, 2, 3].map((i) =>
			limiter.acquire().then((release) => {
				order.push(i);
				release();
			}),
		);
		await clock.advance(1000);
		await Promise.all(all);
		expect(order).toEqual([0, 1, 2, 3]);
	});

	it('holds everyone back until a Retry-After pause ends', async () => {
		const clock = new FakeClock();
		const limiter = new RateLimiter({ perWindow: 100, windowMs: 1000, concurrency: 10 }, clock);
		limiter.pauseUntil(500);
		const run = startMany(limiter, clock, 2);
		await clock.advance(499);
		expect(run.grantedAt.filter((t) => t !== undefined)).toHaveLength(0);
		await clock.advance(1);
		await run.all;
		expect(run.grantedAt).toEqual([500, 500]);
	});

	it('paces 600 a minute: 1,800 requests take three windows, never more than 600 in any', async () => {
		const clock = new FakeClock();
		const limiter = new RateLimiter(
			{ perWindow: 600, windowMs: 60_000, concurrency: 1_000_000 },
			clock,
		);
		const starts: number[] = [];
		const all = Array.from({ length: 1800 }, () =>
			limiter.acquire().then((release) => {
				starts.push(clock.now());
				release();
			}),
		);
		await clock.advance(200_000);
		await Promise.all(all);
		expect(starts).toHaveLength(1800);
		for (let i = 600; i < starts.length; i++)
			expect(starts[i] - starts[i - 600]).toBeGreaterThan(60_000);
		expect(Math.max(...starts)).toBeLessThanOrEqual(120_002);
	});

	it('stops waiting when the execution is cancelled', async () => {
		const clock = new FakeClock();
		const limiter = new RateLimiter({ perWindow: 1, windowMs: 1000, concurrency: 1 }, clock);
		await limiter.acquire();
		const controller = new AbortController();
		const waiting = limiter.acquire(controller.signal);
		controller.abort();
		await expect(waiting).rejects.toThrow(/cancelled/);
	});
});

describe('RateLimiter after a 429', () => {
	it('clamps a pause to the retry cap (120 s): one 429 cannot hold a key for ten minutes', async () => {
		const clock = new FakeClock();
		const limiter = new RateLimiter({ perWindow: 100, windowMs: 1000, concurrency: 10 }, clock);
		limiter.pauseFor(600_000);
		const run = startMany(limiter, clock, 1);
		await clock.advance(119_999);
		expect(run.grantedAt[0]).toBeUndefined();
		await clock.advance(1);
		await run.all;
		expect(run.grantedAt).toEqual([120_000]);
	});

	it('clamps pauseUntil the same way', async () => {
		const clock = new FakeClock();
		const limiter = new RateLimiter({ perWindow: 100, windowMs: 1000, concurrency: 10 }, clock);
		limiter.pauseUntil(99999999 * 1000);
		const run = startMany(limiter, clock, 1);
		await clock.advance(120_000);
		await run.all;
		expect(run.grantedAt).toEqual([120_000]);
	});

	it('a Retry-After of 99999999 s never makes it re-arm a timer every millisecond (timers as Node.js runs them)', async () => {
		const clock = new NodeLikeClock();
		const limiter = new RateLimiter({ perWindow: 100, windowMs: 1000, concurrency: 10 }, clock);
		limiter.pauseUntil(clock.now() + 99999999 * 1000);
		limiter.pauseFor(99999999 * 1000);
		const run = startMany(limiter, clock, 3);
		await clock.advance(10_000);
		expect(clock.armed).toBeLessThanOrEqual(2);
		await clock.advance(200_000);
		await run.all;
		expect(clock.armed).toBeLessThanOrEqual(2);
	});

	it('never arms a timer beyond what the runtime holds, even for a full window of years', async () => {
		const clock = new NodeLikeClock();
		const limiter = new RateLimiter(
			{ perWindow: 1, windowMs: 10 * 365 * 24 * 3_600_000, concurrency: 10 },
			clock,
		);
		const first = await limiter.acquire();
		first();
		const waiting = startMany(limiter, clock, 1);
		await clock.advance(5_000);
		expect(waiting.grantedAt[0]).toBeUndefined();
		expect(clock.armed).toBeLessThanOrEqual(1);
	});

	it('says how long its key has been asking with nothing accepted, the time nothing waited or was in flight left out', async () => {
		const clock = new FakeClock();
		const limiter = new RateLimiter({ perWindow: 10, windowMs: 1000, concurrency: 10 }, clock);
		await clock.advance(500);
		expect(limiter.msSinceAccepted()).toBe(0); // nothing asked yet
		const release = await limiter.acquire();
		await clock.advance(100);
		expect(limiter.msSinceAccepted()).toBe(100);
		release('accepted');
		await clock.advance(300);
		expect(limiter.msSinceAccepted()).toBe(0); // idle since
		/** Asks, is refused after `inFlightMs` in flight: the key's quiet time then. */
		const refusedAfter = async (inFlightMs: number) => {
			const refused = await limiter.acquire();
			await clock.advance(inFlightMs);
			refused('rateLimited');
			return limiter.msSinceAccepted();
		};
		expect(await refusedAfter(200)).toBe(200);
		// Idle under a window: that time does not count, the rest goes on.
		await clock.advance(500);
		expect(limiter.msSinceAccepted()).toBe(200);
		expect(await refusedAfter(100)).toBe(300);
		// Idle an hour (a worker's limiter lives for days): asked again, the key starts afresh.
		await clock.advance(3_600_000);
		expect(limiter.msSinceAccepted()).toBe(300);
		expect(await refusedAfter(100)).toBe(100);
	});
});
