/**
 * The simulated servers the pacing is measured against (test/support/rateServer.ts) are
 * themselves checked against a simple model: a ratio is only as true as its least time. A fixed
 * window's least time once read 9.1 s for 600 requests on 144 per 27.4 s (at a turn whose time
 * is not a whole number, every request at the turn was let through), and an explorer reported a
 * run of 92 s as 10 times the least.
 */
import fc from 'fast-check';
import { leastTimeMs, ServerLimits } from '../support/rateServer';

/** Where request `n` (from 1) goes at the earliest on a fixed window from time 0: the model. */
function fixedModel(n: number, perWindow: number, windowMs: number, offsetMs: number): number {
	const window = Math.ceil(n / perWindow) - 1;
	if (window === 0) return 0;
	const first = Math.floor(-offsetMs / windowMs);
	return offsetMs + (first + window) * windowMs;
}

describe('the simulated fixed window', () => {
	it('600 requests on 144 per 27,416 ms, turns at a third of it: the fifth window, 91.4 s', () => {
		const shape = {
			kind: 'fixed' as const,
			perWindow: 144,
			windowMs: 27_416,
			offsetMs: 27_416 / 3,
		};
		expect(leastTimeMs([{ fromMs: 0, shapes: [shape] }], 600)).toBeCloseTo(
			9138.667 + 3 * 27_416,
			2,
		);
	});

	it('lets each request through where the model says, and never more than the limit in a window (property)', () => {
		fc.assert(
			fc.property(
				fc.double({ min: 100, max: 60_000, noNaN: true }),
				// A turn at 0, or a phase of at least a millionth: a turn within the simulator's grace (a
				// billionth of the window) after 0 takes 0 into its window, which the model does not.
				fc.oneof(fc.constant(0), fc.double({ min: 1e-6, max: 1, maxExcluded: true, noNaN: true })),
				fc.integer({ min: 1, max: 50 }),
				fc.integer({ min: 1, max: 400 }),
				(windowMs, phase, perWindow, count) => {
					const offsetMs = phase * windowMs;
					const shape = { kind: 'fixed' as const, perWindow, windowMs, offsetMs };
					const server = new ServerLimits([{ fromMs: 0, shapes: [shape] }]);
					const perTurn = new Map<number, number>();
					const wrong: string[] = [];
					let t = 0;
					for (let n = 1; n <= count; n++) {
						t = server.earliest(t);
						if (!server.admit(t)) wrong.push(`request ${n} refused at its earliest time`);
						const model = fixedModel(n, perWindow, windowMs, offsetMs);
						if (Math.abs(t - model) > 1e-6 * windowMs)
							wrong.push(`request ${n} at ${t}, not ${model}`);
						const turn = Math.floor((t - offsetMs) / windowMs + 1e-9);
						perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1);
					}
					for (const [turn, admitted] of perTurn)
						if (admitted > perWindow) wrong.push(`${admitted} in window ${turn}`);
					// One more at the last request's time is refused once its window is full.
					if (count % perWindow === 0 && server.admit(t))
						wrong.push('one past a full window admitted');
					expect(wrong).toEqual([]);
				},
			),
			{ numRuns: 1000 },
		);
	});
});
