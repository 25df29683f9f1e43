/**
 * The trickle (limitTrickle.ts), one step at a time: which windows look for a rate, when its
 * probe goes, how its spacing halves, and what a refusal makes of what it saw. The whole
 * behaviour against simulated token buckets is in pacingShapes.test.ts.
 */
import { LimitTrickle } from '../../nodes/shared/transport/limitTrickle';

const DOCUMENTED = { perWindow: 600, windowMs: 60_000 };

describe('the windows it looks for a rate in', () => {
	const trickle = new LimitTrickle(DOCUMENTED);

	it('a long window already at the documented rate for its allowance (500 in 50 s)', () => {
		expect(trickle.fits(50_000, 50_000)).toBe(true);
		expect(trickle.fits(15_000, 15_000)).toBe(true);
	});

	it('not a short one (under a quarter of the documented window), where the bisection finds the rate', () => {
		expect(trickle.fits(14_000, 14_000)).toBe(false);
	});

	it('not the documented window, where more is looked for as room other processes left', () => {
		expect(trickle.fits(60_000, 60_000)).toBe(false);
	});

	it('not one longer than the documented rate gives its allowance: it can still shorten', () => {
		expect(trickle.fits(40_000, 20_000)).toBe(false);
	});
});

describe('its probe', () => {
	it('goes once a cycle, 2 s into it (of a minute), or an eighth of a shorter window, while the budget lasts', () => {
		const trickle = new LimitTrickle(DOCUMENTED);
		expect(trickle.nextAt(10_000, 50_000, 0, true)).toBe(12_000);
		expect(trickle.nextAt(10_000, 15_000, 0, true)).toBe(10_000 + 15_000 / 8);
		expect(trickle.nextAt(10_000, 50_000, 0, false)).toBe(Infinity);
		trickle.sent(10_000);
		expect(trickle.nextAt(10_000, 50_000, 0, true)).toBe(Infinity);
		expect(trickle.nextAt(60_000, 50_000, 0, true)).toBe(62_000);
	});

	it('not before the probes are let go again after a refusal (a second): right after the burst, the bucket is empty', () => {
		const trickle = new LimitTrickle(DOCUMENTED);
		expect(trickle.nextAt(0, 50_000, 3500, true)).toBe(3500);
	});

	it('once let through, the trickle goes on at its own spacing, whatever the cycle or budget', () => {
		const trickle = new LimitTrickle(DOCUMENTED);
		trickle.sent(0);
		trickle.acceptedAt(2000, 1000);
		expect(trickle.nextAt(0, 50_000, 2500, false)).toBe(2500);
	});
});

describe('its spacing', () => {
	it('halves after each accepted, from the probe wait, down to the documented rate and no faster', () => {
		const trickle = new LimitTrickle(DOCUMENTED);
		const spacings = [1, 2, 3, 4, 5, 6].map((k) => trickle.acceptedAt(k * 1000, 1000));
		expect(spacings).toEqual([500, 250, 125, 100, 100, 100]);
	});
});

describe('a refusal', () => {
	it('after a quarter of the allowance or more accepted at the documented rate: a window turned, what was learnt stands', () => {
		const trickle = new LimitTrickle(DOCUMENTED);
		let now = 0;
		for (let k = 0; k < 4 + 125; k++) now += trickle.acceptedAt(now, 1000);
		expect(trickle.refusedAt(now, 500)).toBeUndefined();
		expect(trickle.spacingMs).toBe(0);
	});

	it('before that: a rate, one request in twice the spacing refused, or the average since the first accepted if wider', () => {
		const trickle = new LimitTrickle(DOCUMENTED);
		// Accepted at 0 and 500 ms, refused 250 ms later (the spacing then): the average since the
		// first accepted, 750 ms, is wider than twice 250.
		trickle.acceptedAt(0, 1000);
		trickle.acceptedAt(500, 1000);
		expect(trickle.refusedAt(750, 500)).toEqual({ windowMs: 750, tooShortMs: 250 });
		// A new trickle from 10 s, accepted 100 ms apart (the documented rate) and refused 50 ms
		// after the fifth: twice the spacing refused, 200 ms, is wider than the average (112.5).
		trickle.acceptedAt(10_000, 1000);
		for (let k = 1; k <= 4; k++) trickle.acceptedAt(10_000 + k * 100, 1000);
		expect(trickle.refusedAt(10_450, 500)).toEqual({ windowMs: 200, tooShortMs: 100 });
	});

	it('a few tokens a bucket saved let the spacing halve to the documented rate: the average spacing then counts', () => {
		const trickle = new LimitTrickle(DOCUMENTED);
		let now = 0;
		for (let k = 0; k < 6; k++) now += trickle.acceptedAt(now, 1000);
		// Accepted six times, 500, 250, 125, 100 and 100 ms apart; refused 2 s after the next was
		// due, at a spacing of 100 ms: the average over the five spacings since the first is wider.
		const found = trickle.refusedAt(now + 2000, 500);
		expect(found?.tooShortMs).toBe(100);
		expect(found?.windowMs).toBeCloseTo((now + 2000) / 5);
	});
});
