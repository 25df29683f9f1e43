/**
 * What the limiter learns from each kind of answer (learnedLimit.ts), one step at a time, on a
 * fake clock, with the requests' answers given by hand. The whole behaviour against simulated
 * servers of every shape is in pacingShapes.test.ts.
 */
import { RateLimiter, type Release } from '../../nodes/shared/transport/pacing';
import { FakeClock, flush } from '../support/fakeClock';

/** 600 a minute, as documented; no spacing, so that grants follow the limits alone. */
const DOCUMENTED = { perWindow: 600, windowMs: 60_000, concurrency: 1000 };

/** Requests asked for and not yet granted, and the releases of those granted, in order. */
function queue(limiter: RateLimiter, clock: FakeClock) {
	const granted: Array<{ at: number; release: Release }> = [];
	let asked = 0;
	const ask = (n: number, retry = false) => {
		for (let i = 0; i < n; i++) {
			asked++;
			void limiter.acquire(undefined, { retry }).then((release) => {
				granted.push({ at: clock.now(), release });
			});
		}
	};
	/** One more request is asked for, and goes at `atMs` exactly: not a millisecond before. */
	const nextGoesAt = async (atMs: number) => {
		const before = granted.length;
		ask(1);
		await clock.advance(atMs - 1 - clock.now());
		expect(granted).toHaveLength(before);
		await clock.advance(1);
		expect(granted).toHaveLength(before + 1);
	};
	return { granted, ask, asked: () => asked, nextGoesAt };
}

/** A first burst of `accepted` requests taken at 0 and answered 20 ms later, then one refused. */
async function firstContact(accepted: number) {
	const clock = new FakeClock();
	const limiter = new RateLimiter(DOCUMENTED, clock);
	const q = queue(limiter, clock);
	q.ask(accepted + 1);
	await flush();
	await clock.advance(20);
	q.granted.slice(0, accepted).forEach((g) => g.release('accepted'));
	q.granted[accepted].release('rateLimited');
	return { clock, limiter, q };
}

/** A limiter whose first request is refused with nothing of its own accepted (another process filled the window). */
async function refusedAtOnce() {
	const clock = new FakeClock();
	const limiter = new RateLimiter(DOCUMENTED, clock);
	const q = queue(limiter, clock);
	q.ask(1);
	await flush();
	q.granted[0].release('rateLimited');
	return { clock, limiter, q };
}

describe('the first refusal', () => {
	it('takes what was accepted as the allowance, over the window at which that is the documented rate', async () => {
		const { limiter } = await firstContact(40);
		expect(limiter.allowance).toBe(40);
		// 40 at 600 a minute is 4 s, less half the round trip (20 ms) the window counts from the answer.
		expect(limiter.windowMs).toBe(3990);
		expect(limiter.cuts).toBe(1);
	});

	it('holds the next request until the first place leaves that window, and sends it alone', async () => {
		const { clock, limiter, q } = await firstContact(40);
		q.ask(5);
		// The first place (answered at 20 ms) leaves the 3,990 ms window at 4,010 ms (and 1 ms).
		await clock.advance(4010 - clock.now());
		expect(q.granted).toHaveLength(41);
		await clock.advance(1);
		expect(q.granted).toHaveLength(42);
		// The rest wait for its answer: if it is refused, only it is.
		await clock.advance(100);
		expect(q.granted).toHaveLength(42);
		q.granted[41].release('accepted');
		await flush();
		expect(q.granted).toHaveLength(46);
		expect(limiter.windowMs).toBe(3990);
	});

	it('nothing of ours accepted in the window (another process filled it): the key pauses, longer each time, nothing learnt', async () => {
		const { limiter, q } = await refusedAtOnce();
		expect(limiter.allowance).toBe(600);
		expect(limiter.cuts).toBe(0);
		// A second (a sixtieth of the documented window), then twice as long each time, up to a window.
		await q.nextGoesAt(1000);
		q.granted[1].release('rateLimited');
		await q.nextGoesAt(3000);
	});

	it('...but never past a documented window after the first such refusal: what filled the window then has left it by that moment', async () => {
		const clock = new FakeClock();
		const limiter = new RateLimiter(DOCUMENTED, clock);
		const q = queue(limiter, clock);
		// Refused at 0, 1, 3, 7, 15 and 31 s: the doubling would hold the next 32 s, to 63 s.
		let refusedAt = 0;
		for (let i = 0; i < 6; i++) {
			q.ask(1);
			await clock.advance(Math.max(0, refusedAt - clock.now()));
			await flush();
			expect(q.granted).toHaveLength(i + 1);
			expect(clock.now()).toBe(refusedAt);
			q.granted[i].release('rateLimited');
			refusedAt += 1000 * 2 ** i;
		}
		expect(clock.now()).toBe(31_000);
		await q.nextGoesAt(60_000);
		// Refused there (the others still send): the doubling's own wake, 63 s, still holds (not a
		// whole window from now), and after it the doubling goes on, up to a window.
		q.granted[6].release('rateLimited');
		await q.nextGoesAt(63_000);
		q.granted[7].release('rateLimited');
		await q.nextGoesAt(123_000);
	});

	it('in the last window before its requests may fail (4 minutes with nothing accepted), a try every 1.5 s or so, unevenly: one lands while the others refill their places at a turn', async () => {
		const { clock, q } = await refusedAtOnce();
		// Refused at 0, then at 1, 3, 7, 15, 31, 60, 63 and 123 s, as above.
		for (const at of [1000, 3000, 7000, 15_000, 31_000, 60_000, 63_000, 123_000]) {
			await q.nextGoesAt(at);
			q.granted[q.granted.length - 1].release('rateLimited');
		}
		// The doubling would wake at 183 s; the last window before 240 s starts at 180 s.
		await q.nextGoesAt(180_000);
		/** Refuses the last request, asks for one more, and says when it went (to 10 ms). */
		const nextTry = async () => {
			q.granted[q.granted.length - 1].release('rateLimited');
			const before = q.granted.length;
			q.ask(1);
			while (q.granted.length === before) await clock.advance(10);
			return q.granted[before].at;
		};
		const tries = [180_000];
		while (tries[tries.length - 1] < 240_000) tries.push(await nextTry());
		const gaps = tries.slice(1).map((at, i) => at - tries[i]);
		// 0.75 to 2.25 s apart (1.5 s on average), not one fixed spacing: tries at one spacing
		// keep one phase of a window that turns in a multiple of it.
		for (const gap of gaps) {
			expect(gap).toBeGreaterThanOrEqual(740);
			expect(gap).toBeLessThanOrEqual(2260);
		}
		expect(new Set(gaps.map((gap) => Math.round(gap / 100))).size).toBeGreaterThan(5);
		expect(tries.length).toBeGreaterThanOrEqual(30);
		expect(tries.length).toBeLessThanOrEqual(80);
		// Past it, the doubling's hold again, a window; the retries' rule may now fail the item.
		const after = await nextTry();
		expect(after - tries[tries.length - 1]).toBeGreaterThanOrEqual(60_000);
		expect(after - tries[tries.length - 1]).toBeLessThan(60_100);
	});

	it('one of them accepted: the refusal that follows is read as before, from what was accepted', async () => {
		const { limiter, q } = await refusedAtOnce();
		await q.nextGoesAt(1000);
		q.granted[1].release('accepted');
		await flush();
		expect(limiter.allowance).toBe(600);
		q.ask(3);
		await flush();
		q.granted[2].release('accepted');
		q.granted[3].release('rateLimited');
		expect(limiter.allowance).toBe(2);
		expect(limiter.windowMs).toBeLessThan(1000);
	});
});

describe('a cycle whose first request is refused', () => {
	it('takes the window a quarter longer, one request at a time, until a cycle starts', async () => {
		const { clock, limiter, q } = await firstContact(40);
		q.ask(60);
		await clock.advance(4011 - clock.now());
		expect(q.granted).toHaveLength(42);
		q.granted[41].release('rateLimited');
		expect(limiter.windowMs).toBeCloseTo(3990 * 1.25);
		// The next try: when the first place leaves the longer window, alone.
		await clock.advance(20 + 3990 * 1.25 - clock.now());
		expect(q.granted).toHaveLength(42);
		await clock.advance(2);
		expect(q.granted).toHaveLength(43);
		q.granted[42].release('accepted');
		await flush();
		// Accepted: the rest of the cycle follows (every other place has left the window too).
		expect(q.granted).toHaveLength(43 + 39);
	});

	it('with half the documented limit or more, the window next tried is the documented one (other processes share the key)', async () => {
		const { clock, limiter, q } = await firstContact(300);
		expect(limiter.windowMs).toBeCloseTo(29_990);
		q.ask(20);
		// Every request is refused (another process holds the rest of the minute): the probes
		// for more, then the cycle's first request, when the first place leaves 29,990 ms.
		for (let answered = 301; clock.now() < 30_100;) {
			await clock.advance(100);
			for (; answered < q.granted.length; answered++) q.granted[answered].release('rateLimited');
		}
		expect(limiter.windowMs).toBe(60_000);
	});
});

describe('a refusal in mid-cycle', () => {
	it('cuts the allowance to what the server accepted in the window (the share it gives)', async () => {
		const { clock, limiter, q } = await firstContact(40);
		q.ask(60);
		await clock.advance(4011 - clock.now());
		q.granted[41].release('accepted');
		await flush();
		expect(q.granted).toHaveLength(81);
		// Of this cycle, 24 more are accepted, then one is refused: a token bucket ran dry, or
		// another process took part of the window. The first burst has left the window.
		await clock.advance(20);
		for (let i = 42; i < 66; i++) q.granted[i].release('accepted');
		q.granted[66].release('rateLimited');
		expect(limiter.allowance).toBe(25);
	});
});

describe('looking for more', () => {
	it('in a window shorter than the documented one, only by shortening it (never past the documented rate)', async () => {
		const { clock, limiter, q } = await firstContact(10);
		// The window for 10 is 1 s (less 10 ms); a probe goes a second after the cut, and more
		// follow while accepted.
		q.ask(30);
		let released = 0;
		for (let t = 0; t < 40; t++) {
			await clock.advance(50);
			for (; released < q.granted.length; released++)
				if (released > 10) q.granted[released].release('accepted');
		}
		expect(limiter.allowance).toBeLessThanOrEqual(10);
		expect(limiter.windowMs).toBeGreaterThanOrEqual(990);
	});
});

describe('retries', () => {
	it('a request refused goes before those not sent yet', async () => {
		const clock = new FakeClock();
		const limiter = new RateLimiter({ perWindow: 1, windowMs: 1000, concurrency: 10 }, clock);
		const order: string[] = [];
		const first = await limiter.acquire();
		void limiter.acquire().then(() => order.push('new'));
		void limiter.acquire(undefined, { retry: true }).then(() => order.push('retry'));
		first('accepted');
		await clock.advance(1001);
		expect(order[0]).toBe('retry');
	});
});
