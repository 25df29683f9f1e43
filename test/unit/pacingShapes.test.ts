/**
 * The pacer against simulated servers of every shape (test/support/rateServer.ts), in simulated
 * time, with no Retry-After: sliding and fixed windows of many lengths, token buckets of small
 * and large bursts, limits that change mid-run, several clients on one key. Each client runs as
 * a node run in n8n does (16 requests in flight at most, 2 ms of CPU to send each, every request
 * held 20 ms), through the transport's own retry decisions. Checked: nothing fails, nothing is
 * sent twice (every item accepted exactly once), the time from the first request accepted to
 * the last over the least the server's limit allows (and the documented one, never exceeded),
 * and the 429s as a share of all requests.
 */
import fc from 'fast-check';
import { ACCOUNT_LIMIT } from '../../nodes/CommsAccount/api/accountApi';
import { UNIFIED_LIMITS } from '../../nodes/CommsUnified/api/unifiedApi';
import { SPREAD_OF_WINDOW } from '../../nodes/shared/transport/pacing';
import { type ModelClient, type ModelResult, PACING_SEED, runModel } from '../support/rateModel';
import { leastTimeMs, type Phase, type Shape } from '../support/rateServer';

const account = { ...ACCOUNT_LIMIT, spreadMs: ACCOUNT_LIMIT.windowMs * SPREAD_OF_WINDOW };
const unifiedSms = {
	...UNIFIED_LIMITS.sms,
	spreadMs: UNIFIED_LIMITS.sms.windowMs * SPREAD_OF_WINDOW,
};
/** The documented rate: 600 a minute. */
const DOCUMENTED_PER_SECOND = 10;

const asNode = (items: number, startMs = 0): ModelClient => ({
	items,
	startMs,
	lanes: 16,
	sendCpuMs: 2,
});

function run(phases: Phase[], clients: ModelClient[], seed = 1) {
	return runModel({
		limit: account,
		server: { phases },
		clients,
		latencyMs: 20,
		jitterMs: 5,
		seed,
		horizonMs: 3 * 3_600_000,
	});
}

type ModelOptions = Parameters<typeof runModel>[0];
type Tunable = 'latencyMs' | 'jitterMs' | 'seed';

/**
 * Processes sharing one key, for up to six hours: round trips of 20 ms (±5) and seed 3 unless a
 * case names its own (the model is deterministic per seed: each case keeps the one it was found with).
 */
function sharedKey(
	options: Omit<ModelOptions, Tunable | 'horizonMs'> & Partial<Pick<ModelOptions, Tunable>>,
) {
	return runModel({ latencyMs: 20, jitterMs: 5, seed: 3, ...options, horizonMs: 6 * 3_600_000 });
}

const one = (...shapes: Shape[]): Phase[] => [{ fromMs: 0, shapes }];
const share429 = (result: ModelResult) => result.refused / result.requests;

/** Nothing failed, every item accepted once, within `ratio` of `leastMs`, 429s under `most429`. */
function expectPaced(
	result: ModelResult,
	{ ratio = 1.1, most429 = 0.05, leastMs = result.leastMs } = {},
) {
	expect(result.finished).toBe(true);
	expect(result.failed).toBe(0);
	expect(result.accepted).toBe(result.items);
	if (leastMs > 0) expect(result.ms / leastMs).toBeLessThanOrEqual(ratio);
	expect(share429(result)).toBeLessThan(most429);
}

describe('the reported servers (300 SMS, 20 ms each, no Retry-After)', () => {
	it('allowing 40 per 10 s: within 1.10 of the least time (70 s), under 5% 429s, nothing failed (was 6.0 times, 36 429s)', async () => {
		const result = await run(one({ kind: 'sliding', perWindow: 40, windowMs: 10_000 }), [
			asNode(300),
		]);
		expect(result.leastMs).toBe(70_000);
		expectPaced(result);
	});

	it('enforcing the documented 600 a minute as 10 a second: within 1.10 of the least (29 s), under 5% 429s, nothing failed (was: failed)', async () => {
		const result = await run(one({ kind: 'sliding', perWindow: 10, windowMs: 1000 }), [
			asNode(300),
		]);
		expect(result.leastMs).toBe(29_000);
		expectPaced(result);
	});
});

describe('the documented server', () => {
	it('1,200 SMS at 600 per 60 s: no 429, within 1.05 of the least time', async () => {
		const result = await run(one({ kind: 'sliding', perWindow: 600, windowMs: 60_000 }), [
			asNode(1200),
		]);
		expectPaced(result, { ratio: 1.05, most429: 1e-9 });
	});

	it.each([63_000, 66_000, 90_000])(
		'the documented 600 over a longer window (%i ms), one process: within 1.10, under 5%% 429s (1.94 and 8.5%% when the first 429 after 600 accepted was taken for a shared key)',
		async (windowMs) => {
			const result = await run(one({ kind: 'sliding', perWindow: 600, windowMs }), [asNode(3000)]);
			expectPaced(result);
		},
	);
});

/**
 * A window of 1 to 29 s (or the documented minute), at 40% to 100% of the documented rate. (A
 * window between half the documented one and it, holding half the documented limit or more, is
 * first taken for the documented one shared with other processes: see docs/benchmarks.md.)
 */
const windowShape = fc.record({
	windowMs: fc.oneof(
		{ weight: 6, arbitrary: fc.integer({ min: 1000, max: 29_000 }) },
		{ weight: 1, arbitrary: fc.constant(60_000) },
	),
	rate: fc.double({ min: 0.4, max: 1, noNaN: true }),
	offsetMs: fc.double({ min: 0, max: 1, noNaN: true }),
	seed: fc.integer({ min: 1, max: 1_000_000 }),
});

/** Items for at least eight windows' worth beyond the first, and at least 600. */
const itemsFor = (perWindow: number) => Math.min(4000, Math.max(600, 8 * perWindow + 1));

describe('windows of many lengths, stricter than documented (property)', () => {
	it('a sliding window: within 1.10 of the least time, under 5% 429s', async () => {
		await fc.assert(
			fc.asyncProperty(windowShape, async ({ windowMs, rate, seed }) => {
				const perWindow = Math.max(1, Math.round((rate * DOCUMENTED_PER_SECOND * windowMs) / 1000));
				const result = await run(
					one({ kind: 'sliding', perWindow, windowMs }),
					[asNode(itemsFor(perWindow))],
					seed,
				);
				expectPaced(result);
			}),
			{ numRuns: 40, seed: PACING_SEED },
		);
	}, 120_000);

	it('a fixed window, at any phase: within 1.35 of the least time its worst phase allows, under 10% 429s (1.10 and 5% in 98% of runs)', async () => {
		await fc.assert(
			fc.asyncProperty(windowShape, async ({ windowMs, rate, offsetMs, seed }) => {
				const perWindow = Math.max(1, Math.round((rate * DOCUMENTED_PER_SECOND * windowMs) / 1000));
				const items = itemsFor(perWindow);
				const result = await run(
					one({ kind: 'fixed', perWindow, windowMs, offsetMs: offsetMs * windowMs }),
					[asNode(items)],
					seed,
				);
				// A client that cannot know where the turns are is measured against a run starting on
				// one: two windows' worth may pass at once across a turn, by luck.
				const worstPhase = Math.floor((items - 1) / perWindow) * windowMs;
				// A turn drifting into a cycle costs a 429 and a slightly longer window now and then.
				expectPaced(result, {
					ratio: 1.35,
					most429: 0.1,
					leastMs: Math.max(result.leastMs, worstPhase),
				});
			}),
			{ numRuns: 40, seed: PACING_SEED },
		);
	}, 120_000);
});

describe('one request at a time, at long round trips', () => {
	/**
	 * 600 SMS to one recipient, one after another (or on a few lanes), every request held 100 ms
	 * (jitter a quarter of that) unless the case says otherwise.
	 */
	const oneLane = (server: ModelOptions['server'], { lanes = 1, latencyMs = 100, seed = 5 } = {}) =>
		sharedKey({
			limit: account,
			server,
			clients: [{ items: 600, lanes, sendCpuMs: 2 }],
			latencyMs,
			jitterMs: latencyMs / 4,
			seed,
		});

	// SMS to one recipient leave one after another: at 100 ms round trips, about the documented
	// rate. The first 429 was read as the documented rate over a window of one request (each
	// shorter window held fewer of them, in proportion), and with an allowance of one the key
	// regained a rate one probe a window: 2.68 and 1.85 times the least, 4% and 14% 429s.
	it.each([
		[300, 60_000],
		[100, 30_000],
	])(
		'on a server of %i per %i ms: within 1.20 of the least its own pace allows, under 5%% 429s',
		async (perWindow, windowMs) => {
			const result = await oneLane({ perWindow, windowMs });
			// Each window's share takes a round trip (and the CPU to send) a request.
			const fullWindows = Math.floor(599 / perWindow);
			const leastMs = fullWindows * windowMs + (600 - fullWindows * perWindow) * 102;
			expectPaced(result, { ratio: 1.2, leastMs });
		},
	);

	// A bucket lets such a key through at its rate after the burst: every other request refused.
	// Each 429 cut the allowance learnt at the first by one (what the window held still counted
	// the burst): 87 429s (12.7%) before it reached the bucket's rate.
	it.each([
		[100, 5],
		[60, 4],
	])(
		'on a token bucket of %i at %i a second: within 1.10 of the least, under 5%% 429s',
		async (capacity, perSecond) => {
			const result = await oneLane({ phases: one({ kind: 'bucket', capacity, perSecond }) });
			expectPaced(result);
		},
	);

	// Two lanes at 200 ms on a bucket of 50 at 2 a second: refused in pairs, the second of a pair
	// lengthened the window and began a cycle, and the next refusal cut the allowance to what
	// that new cycle had (none): one request in 6.6 s, regained one probe a window (2.14 times).
	it('two lanes at 200 ms on a token bucket of 50 at 2 a second: within 1.10 of the least, under 5% 429s', async () => {
		const result = await oneLane(
			{ phases: one({ kind: 'bucket', capacity: 50, perSecond: 2 }) },
			{ lanes: 2, latencyMs: 200, seed: 3 },
		);
		expectPaced(result);
	});
});

describe('token buckets of small and large bursts, at the documented rate (property)', () => {
	it('within 1.10 of the least time, under 5% 429s', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.record({
					capacity: fc.oneof(fc.integer({ min: 5, max: 50 }), fc.integer({ min: 300, max: 600 })),
					seed: fc.integer({ min: 1, max: 1_000_000 }),
				}),
				async ({ capacity, seed }) => {
					// Enough beyond the burst for twelve of the windows it is the documented rate over: the
					// last window's few go at its start, where the bucket would have let them trickle.
					const items = Math.max(600, 13 * capacity);
					const result = await run(
						one({ kind: 'bucket', capacity, perSecond: DOCUMENTED_PER_SECOND }),
						[asNode(items)],
						seed,
					);
					expectPaced(result);
				},
			),
			{ numRuns: 20, seed: PACING_SEED },
		);
	}, 120_000);
});

describe('token buckets whose burst is most of a run, stricter than documented', () => {
	// The first refusal, after the burst, took the documented rate over the burst's window (500
	// in 50 s), and the rest waited that window out while the bucket would have let them through
	// at its rate. Now a probe a cycle finds that rate (limitTrickle.ts).
	// The least time of the first is 6.4 s, of which the probe's second after the refusal is a sixth.
	it.each([
		[555, 7, 600, 1.2, 8.85],
		[500, 5, 600, 1.1, 2.56],
		[300, 3, 400, 1.1, 1.78],
		[200, 2, 300, 1.1, 1.17],
	])(
		'a bucket of %i at %i a second, %i SMS: within %f of the least, nothing failed, under 10%% 429s (%f times the least before)',
		async (capacity, perSecond, items, ratio) => {
			const result = await run(one({ kind: 'bucket', capacity, perSecond }), [asNode(items)]);
			expectPaced(result, { ratio, most429: 0.1 });
		},
	);

	// A process keeps its limiter between runs: a trickle left going at the end of one went at once
	// after the next run's burst, an hour on, and took the hour's average for its window (review).
	it('a second run an hour after the first, on the same limiter: within 1.20 of its least, nothing failed', async () => {
		const hourMs = 3_600_000;
		const result = await runModel({
			limit: account,
			server: { phases: one({ kind: 'bucket', capacity: 500, perSecond: 5 }) },
			clients: [asNode(510), asNode(600, hourMs)],
			processes: [0, 0],
			latencyMs: 20,
			jitterMs: 5,
			seed: 1,
			horizonMs: 3 * hourMs,
		});
		expect(result.failed).toBe(0);
		expect(result.accepted).toBe(1110);
		const second = result.acceptedAt.filter((at) => at >= hourMs);
		const leastMs = ((600 - 500) / 5) * 1000;
		expect((Math.max(...second) - Math.min(...second)) / leastMs).toBeLessThanOrEqual(1.2);
	});

	it('buckets of 300 to 590 at 2 to 9 a second, 100 to 400 SMS past the burst (property): within 1.8 of the least, nothing failed, under 10% 429s (mean 1.07 and 4% over 200 drawn)', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.record({
					capacity: fc.integer({ min: 300, max: 590 }),
					perSecond: fc.double({ min: 2, max: 9, noNaN: true }),
					past: fc.integer({ min: 100, max: 400 }),
					seed: fc.integer({ min: 1, max: 1_000_000 }),
				}),
				async ({ capacity, perSecond, past, seed }) => {
					const result = await run(
						one({ kind: 'bucket', capacity, perSecond }),
						[asNode(capacity + past)],
						seed,
					);
					expectPaced(result, { ratio: 1.8, most429: 0.1 });
				},
			),
			{ numRuns: 20, seed: PACING_SEED },
		);
	}, 120_000);
});

describe('limits that change mid-run', () => {
	const sliding = (perWindow: number, windowMs: number): Shape => ({
		kind: 'sliding',
		perWindow,
		windowMs,
	});

	it('stricter from 30 s on (40 per 10 s, then 20): nothing fails, under 5% 429s, within 1.10', async () => {
		const result = await run(
			[
				{ fromMs: 0, shapes: [sliding(40, 10_000)] },
				{ fromMs: 30_000, shapes: [sliding(20, 10_000)] },
			],
			[asNode(600)],
		);
		expectPaced(result);
	});

	it('a server that later allows more is found again: twice the limit from 30 s on, and the run ends sooner than at the first limit', async () => {
		const before = sliding(40, 10_000);
		const result = await run(
			[
				{ fromMs: 0, shapes: [before] },
				{ fromMs: 30_000, shapes: [sliding(80, 10_000)] },
			],
			[asNode(600)],
		);
		expectPaced(result, { ratio: Infinity });
		const atFirstLimit = leastTimeMs([{ fromMs: 0, shapes: [before] }], 600);
		expect(result.ms).toBeLessThan(0.85 * atFirstLimit);
	});

	it('the documented minute, halved from 30 s on: within 1.10, under 5% 429s', async () => {
		const result = await run(
			[
				{ fromMs: 0, shapes: [sliding(600, 60_000)] },
				{ fromMs: 30_000, shapes: [sliding(300, 60_000)] },
			],
			[asNode(1800)],
		);
		expectPaced(result);
	});
});

describe('several clients on one key (n8n workers in queue mode)', () => {
	it('three on the documented minute, starting within a second: within 1.05, under 5% 429s', async () => {
		const result = await run(one({ kind: 'sliding', perWindow: 600, windowMs: 60_000 }), [
			asNode(600),
			asNode(600, 300),
			asNode(600, 600),
		]);
		expectPaced(result, { ratio: 1.05 });
	});

	it('four workers as the queue run has them (600, 600, 300, 300 SMS) starting up to 3 s apart: within 1.10, under 5% 429s (5.9% when a process that had nothing accepted resumed with every lane after each hold)', async () => {
		const result = await run(one({ kind: 'sliding', perWindow: 600, windowMs: 60_000 }), [
			asNode(600),
			asNode(600, 1500),
			asNode(300, 3000),
			asNode(300, 100),
		]);
		expectPaced(result);
	});

	/**
	 * Six executions on four workers as the queue run has them: a many-recipient run on each, a
	 * one-recipient run (one request at a time) beside the first and the fourth; `startsMs`: when
	 * each starts, in that order.
	 */
	const queueRun = (startsMs: number[], seed: number) =>
		runModel({
			limit: account,
			server: { phases: one({ kind: 'sliding', perWindow: 600, windowMs: 60_000 }) },
			clients: startsMs.map((startMs, k) => ({ ...asNode(300, startMs), lanes: k < 4 ? 16 : 1 })),
			processes: [0, 1, 2, 3, 0, 3],
			latencyMs: 20,
			jitterMs: 5,
			seed,
			horizonMs: 3 * 3_600_000,
		});

	it('six executions on four workers as the queue run has them (a many-recipient run on each, a one-recipient run beside two), starting up to 3 s apart: within 1.10, under 5% 429s (3.1 times the least when a worker that learnt its share late crawled in a window of 46 s)', async () => {
		expectPaced(await queueRun([0, 1500, 3000, 100, 50, 2000], 1));
	});

	it('the same six, started as a drawn schedule had them: within 1.10, under 5% 429s (1.53 times the least when the probes for more had spent their budget by 109 s, and the last process left, with 111 SMS to send, waited 58 s for its own window while the key was idle)', async () => {
		expectPaced(await queueRun([738, 1811, 2336, 2063, 2065, 219], 7));
	});

	it('two executions of Comms Unified SMS (100 each) on two workers against its 100 a minute, starting up to 3 s apart, round trips of 20 to 100 ms (property): nothing fails, within 1.10 of the least (4.40 times when the second, learning a share of 16 while the first filled the window, spent its probes before the window turned and then crawled at 16 a window for minutes; 1.14 when one that joined a full window slept 32 s past its turn)', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.tuple(fc.nat(3000), fc.nat(3000)),
				fc.integer({ min: 20, max: 100 }),
				fc.nat(1000),
				async (startsMs, latencyMs, seed) => {
					const result = await runModel({
						limit: unifiedSms,
						server: { perWindow: 100, windowMs: 60_000, concurrency: 50 },
						clients: startsMs.map((startMs) => asNode(100, startMs)),
						processes: [0, 1],
						latencyMs,
						jitterMs: 5,
						seed: seed + 1,
						horizonMs: 3_600_000,
					});
					// Small batches: the first window's requests in flight and the windows the second
					// tries while learning its share are 7% of 200 requests on average, 12% at worst.
					expectPaced(result, { most429: 0.15 });
				},
			),
			{ numRuns: 40, seed: PACING_SEED },
		);
	});

	/** The most 429s in any 10 s of a run. */
	const most429In10s = ({ refusedAt }: ModelResult) => {
		const at = [...refusedAt].sort((a, b) => a - b);
		let most = 0;
		for (let i = 0, j = 0; i < at.length; i++) {
			while (at[i] - at[j] > 10_000) j++;
			most = Math.max(most, i - j + 1);
		}
		return most;
	};

	// A process at its longest window (two documented ones) whose cycle was refused started it
	// again at once: a 429 a round trip while the others kept the window full (414 and 413 in
	// 10 s, 41% and 20% of the requests). It now holds the key between tries, up to 5 s.
	it.each([
		[2, { perWindow: 450, windowMs: 58_242 }, [464, 904]],
		[3, { perWindow: 132, windowMs: 17_215 }, [300, 2879, 177]],
	])(
		'%i processes of 3,000 SMS on a server stricter than documented (%o): no storm of 429s, nothing fails',
		async (_count, { perWindow, windowMs }, startsMs) => {
			const result = await run(
				one({ kind: 'sliding', perWindow, windowMs }),
				startsMs.map((startMs) => asNode(3000, startMs)),
			);
			expect(most429In10s(result)).toBeLessThanOrEqual(50);
			// They take turns at the window rather than share it (see docs/benchmarks.md): slower
			// than the least, and more 429s than alone.
			expectPaced(result, { ratio: 2, most429: 0.08 });
		},
	);

	/**
	 * A process that starts while another keeps the key's window full at the documented limit
	 * (its long run refilling each place as it frees, within a second or two of each turn): its
	 * once-a-minute tries seldom land there, and after 4 minutes with nothing accepted it failed
	 * an item each sixth try (1 or 2 here). Now it tries every 1.5 s or so in the last window
	 * before that. Once in, the two find their shares slowly (up to 1.86 times the least here:
	 * the first reads its first 429, at a turn of its window, as a shorter window), which
	 * docs/benchmarks.md reports; what this checks is that nothing fails.
	 */
	it.each([
		['Account', 3000, 20_000, 20],
		['Account', 3000, 20_000, 60],
		['Account', 6000, 20_000, 20],
		['Account', 6000, 5_000, 60],
		['Unified SMS', 500, 20_000, 20],
		['Unified SMS', 1000, 20_000, 60],
	] as const)(
		'%s: two processes of %i, the second %i ms after the first, round trips of %i ms: nothing fails',
		async (api, items, secondMs, latencyMs) => {
			const result = await sharedKey({
				limit: api === 'Account' ? account : unifiedSms,
				server:
					api === 'Account'
						? { perWindow: 600, windowMs: 60_000 }
						: { perWindow: 100, windowMs: 60_000, concurrency: 50 },
				clients: [asNode(items), asNode(items, secondMs)],
				processes: [0, 1],
				latencyMs,
			});
			expectPaced(result, { ratio: 2, most429: 0.08 });
		},
	);

	// A worker's limiter lives as long as the worker: one that last sent an hour before counted
	// that hour as time with nothing accepted, so joining a full window it failed its items after
	// 6 tries (31 s), not 4 minutes; one whose last item there had failed on 429s (the server
	// refused everything for 400 s) kept that quiet time through the hour, and failed 3. The time
	// nothing was asked is left out now, and after an idle window the key starts afresh. (The
	// item of the hour before fails in the second: the server refused everything then.)
	const sliding600: Shape = { kind: 'sliding', perWindow: 600, windowMs: 60_000 };
	const idleWorkers: Array<[string, Phase[], number]> = [
		['that last sent an hour before', [{ fromMs: 0, shapes: [sliding600] }], 0],
		[
			'whose last item failed on 429s an hour before',
			[
				{ fromMs: 0, shapes: [{ kind: 'bucket', capacity: 0, perSecond: 1e-9 }] },
				{ fromMs: 400_000, shapes: [sliding600] },
			],
			1,
		],
	];
	it.each(idleWorkers)(
		'a worker %s joins a window another keeps full: nothing more fails',
		async (_worker, phases, failedBefore) => {
			const result = await sharedKey({
				limit: account,
				server: { phases },
				clients: [asNode(12_000, 3_500_000), asNode(1), asNode(300, 3_540_000)],
				processes: [0, 1, 1],
			});
			expect(result.failed).toBe(failedBefore);
			expect(result.accepted).toBe(result.items - failedBefore);
		},
	);

	// Three processes of 3,000 on a server stricter than documented, with nothing in for minutes:
	// - 64 per 21.5 s: beside one that learnt the window, two joiners searched their last window
	//   at one fixed spacing and never met its turns (17 minutes, 3 items failed each); the
	//   search's tries are spaced unevenly now;
	// - 277 per 51.4 s: one that had learnt a window, then got nothing in while the other two kept
	//   it full, waited a window or two between tries and failed an item; learnt or not, a key
	//   searches its last window now.
	// They take turns at the window rather than share it (docs/benchmarks.md): slow, and 429s.
	it.each([
		[64, 21_513, [81, 512, 1139], 20, 9, 0.08],
		[277, 51_404, [437, 1733, 1075], 60, 48, 0.12],
	])(
		'three processes of 3,000 on a server of %i per %i ms: nothing fails',
		async (perWindow, windowMs, startsMs, latencyMs, seed, most429) => {
			const result = await sharedKey({
				limit: account,
				server: { perWindow, windowMs },
				clients: startsMs.map((startMs) => asNode(3000, startMs)),
				processes: [0, 1, 2],
				latencyMs,
				jitterMs: latencyMs / 2,
				seed,
			});
			expectPaced(result, { ratio: 2, most429 });
		},
	);

	// Three: 1.69 times the least when the last to get in, refused at the turn of its first
	// documented window, was then held a whole window.
	it.each([2, 3])(
		'%i on a server of 10 a second: nothing fails, within 1.10 of the least time',
		async (count) => {
			const clients = Array.from({ length: count }, (_, k) => asNode(300, k * 300));
			const result = await run(one({ kind: 'sliding', perWindow: 10, windowMs: 1000 }), clients);
			// They take turns at the window rather than share it: more 429s than alone (about 6%).
			expectPaced(result, { most429: 0.1 });
		},
	);

	// A server of a few requests a second shared by processes: one that learnt a window long past
	// the documented one while the others took the tokens, left alone, probed for more in pairs,
	// and a pair meets one token at a time: its second refused each time, the key sent a request
	// or two a minute for the rest of its run. Now such a key looks for more with one request, a
	// window probe, and the bisection takes it from there (docs/benchmarks.md).
	it.each([
		[
			'a bucket of 1 at 3.5 a second',
			600,
			2,
			'63 times the least, unfinished at 6 hours',
			{ kind: 'bucket', capacity: 1, perSecond: 3.5 },
			[0, 787],
			915_492,
		],
		[
			'3 a second, sliding',
			300,
			4,
			'30.2 times the least',
			{ kind: 'sliding', perWindow: 3, windowMs: 1000 },
			[0, 1029],
			39_540,
		],
		[
			'3 a second, sliding',
			600,
			2,
			'20.6 times the least',
			{ kind: 'sliding', perWindow: 3, windowMs: 1000 },
			[0, 3, 7],
			998_726,
		],
	] as Array<[string, number, number, string, Shape, number[], number]>)(
		'%s, processes of %i SMS: nothing fails, within %i of the least (before: %s)',
		async (_server, items, ratio, _before, shape, startsMs, seed) => {
			const result = await sharedKey({
				limit: account,
				server: { phases: one(shape) },
				clients: startsMs.map((startMs) => asNode(items, startMs)),
				processes: startsMs.map((_, k) => k),
				latencyMs: 60,
				jitterMs: 15,
				seed,
			});
			expectPaced(result, { ratio, most429: 0.15 });
		},
	);
});
