/**
 * Explorer, not a test: several processes on one key, on servers drawn at random, in the model
 * (test/support/rateModel.ts). It prints each run's ratio to the least time, its 429s and
 * failures, and a summary; docs/benchmarks.md quotes its figures. Run it on two checkouts to
 * compare a change with the code before:
 *
 *   DRAW=stricter SEED=7 N=80 npx jest --testMatch '<rootDir>/test/explore/*.ts'
 *   DRAW=few SEED=4 N=60 PROCESSES=2 npx jest --testMatch '<rootDir>/test/explore/*.ts'
 *
 * - `stricter`: sliding, fixed (turns at a third of the window) and bucket servers of windows of
 *   1 to 60 s at 30% to 100% of the documented rate, 2 or 3 processes of 300 or 600 SMS,
 *   starting up to 3 s apart, round trips of 20 or 60 ms.
 * - `few`: servers of a few requests a second (buckets of 1 to 5 at 3 to 5 a second, or 3 to 5
 *   per second sliding), 2 to PROCESSES (3) processes of ITEMS (600) SMS, starting within 3 s.
 */
import fc from 'fast-check';
import { ACCOUNT_LIMIT } from '../../nodes/CommsAccount/api/accountApi';
import { SPREAD_OF_WINDOW } from '../../nodes/shared/transport/pacing';
import { runModel } from '../support/rateModel';
import type { Shape } from '../support/rateServer';

const account = { ...ACCOUNT_LIMIT, spreadMs: ACCOUNT_LIMIT.windowMs * SPREAD_OF_WINDOW };
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

interface Draw {
	label: string;
	shape: Shape;
	startsMs: number[];
	items: number;
	latencyMs: number;
	seed: number;
}

const stricter = fc
	.record({
		windowMs: fc.integer({ min: 1000, max: 60_000 }),
		rate: fc.double({ min: 0.3, max: 1, noNaN: true }),
		procs: fc.integer({ min: 2, max: 3 }),
		items: fc.constantFrom(300, 600),
		spreadMs: fc.integer({ min: 0, max: 3000 }),
		lat: fc.constantFrom(20, 60),
		kind: fc.constantFrom('sliding', 'sliding', 'sliding', 'fixed', 'bucket'),
		seed: fc.integer({ min: 1, max: 1_000_000 }),
	})
	.map((d): Draw => {
		const perWindow = Math.max(1, Math.round((d.rate * 10 * d.windowMs) / 1000));
		const shape: Shape =
			d.kind === 'bucket'
				? {
						kind: 'bucket',
						capacity: Math.max(1, Math.round(perWindow / 4)),
						perSecond: d.rate * 10,
					}
				: d.kind === 'fixed'
					? { kind: 'fixed', perWindow, windowMs: d.windowMs, offsetMs: d.windowMs / 3 }
					: { kind: 'sliding', perWindow, windowMs: d.windowMs };
		return {
			label: `${d.kind} ${d.procs}x${d.items} ${perWindow}/${d.windowMs}`,
			shape,
			startsMs: Array.from({ length: d.procs }, (_, k) => (k * d.spreadMs) / d.procs),
			items: d.items,
			latencyMs: d.lat,
			seed: d.seed,
		};
	});

const few = fc
	.record({
		bucket: fc.boolean(),
		perSecond: fc.integer({ min: 3, max: 5 }),
		capacity: fc.integer({ min: 1, max: 5 }),
		procs: fc.integer({ min: 2, max: env('PROCESSES', 3) }),
		startsMs: fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 3, maxLength: 3 }),
		lat: fc.constantFrom(20, 60),
		seed: fc.integer({ min: 1, max: 1_000_000 }),
	})
	.map((d): Draw => {
		const shape: Shape = d.bucket
			? { kind: 'bucket', capacity: d.capacity, perSecond: d.perSecond }
			: { kind: 'sliding', perWindow: d.perSecond, windowMs: 1000 };
		return {
			label: `${JSON.stringify(shape)} ${d.procs}x${env('ITEMS', 600)}`,
			shape,
			startsMs: d.startsMs.slice(0, d.procs),
			items: env('ITEMS', 600),
			latencyMs: d.lat,
			seed: d.seed,
		};
	});

it('draws', async () => {
	const n = env('N', 80);
	const draws = fc.sample(process.env.DRAW === 'few' ? few : stricter, {
		numRuns: n,
		seed: env('SEED', 7),
	});
	const rows: string[] = [];
	const ratios: number[] = [];
	let refused = 0;
	let requests = 0;
	let failed = 0;
	for (const [i, d] of draws.entries()) {
		const r = await runModel({
			limit: account,
			server: { phases: [{ fromMs: 0, shapes: [d.shape] }] },
			clients: d.startsMs.map((startMs) => ({ items: d.items, lanes: 16, sendCpuMs: 2, startMs })),
			latencyMs: d.latencyMs,
			jitterMs: d.latencyMs / 4,
			seed: d.seed,
			horizonMs: 6 * 3_600_000,
		});
		const ratio = r.leastMs > 0 ? r.ms / r.leastMs : 1;
		ratios.push(ratio);
		refused += r.refused;
		requests += r.requests;
		failed += r.failed;
		const share = ((100 * r.refused) / r.requests).toFixed(1);
		rows.push(
			`${i} ${d.label} ${d.latencyMs} ms: ratio ${ratio.toFixed(3)} 429 ${share}% failed ${r.failed}${r.finished ? '' : ' unfinished'}`,
		);
	}
	const sorted = [...ratios].sort((a, b) => a - b);
	const at = (p: number) => sorted[Math.min(n - 1, Math.floor(p * n))].toFixed(3);
	const mean = (ratios.reduce((a, b) => a + b, 0) / n).toFixed(3);
	const over10 = ratios.filter((x) => x > 10).length;
	rows.push(
		`SUMMARY n=${n} mean ${mean} median ${at(0.5)} p90 ${at(0.9)} max ${sorted[n - 1].toFixed(2)} over10 ${over10} 429 ${((100 * refused) / requests).toFixed(2)}% failed ${failed}`,
	);
	process.stdout.write(`${rows.join('\n')}\n`);
}, 3_600_000);
