/**
 * The Comms Account Trigger's soak, short: all three events on both poll paths at once, with
 * the API's clock off n8n's either way, random arrivals, bursts, statuses nobody listed, 429s,
 * 500s, 502s, slow answers, overlapping polls, and graceful and hard restarts
 * (test/support/soak.ts; SOAK_CLOCK_SKEW_MS sets the skew, drawn from the seed otherwise). Every record that qualifies is emitted exactly once,
 * except the documented limits, which are counted (and said in n8n's log). `npm run soak` runs
 * the long one (SOAK_SECONDS, 900 by default) and prints the figures docs/guarantees.md quotes.
 */
import { captureLogs } from '../support/logs';
import { useSandbox } from '../support/sandbox';
import { describeSoak, runSoak } from '../support/soak';

const sandbox = useSandbox();
const SECONDS = Number(process.env.SOAK_SECONDS ?? 15);
const SEED = Number(process.env.SOAK_SEED ?? Date.now() % 1_000_000);

it(
	'each record once, whatever arrives and fails, on both poll paths; documented limits counted, nothing else lost or twice',
	async () => {
		const logs = captureLogs();
		const report = await runSoak(sandbox(), {
			seconds: SECONDS,
			seed: SEED,
			maxLatencyMs: Number(process.env.SOAK_MAX_LATENCY_MS ?? 1500),
			budgetMs: Number(process.env.SOAK_BUDGET_MS ?? 2000),
			...(process.env.SOAK_CLOCK_SKEW_MS === undefined
				? {}
				: { clockSkewMs: Number(process.env.SOAK_CLOCK_SKEW_MS) }),
			log: (line) => process.stdout.write(`${line}\n`),
			verbose: process.env.SOAK_VERBOSE === '1',
		});
		const warnings = logs.filter((line) => line.startsWith('warn'));
		for (const line of describeSoak(report)) process.stdout.write(`${line}\n`);
		process.stdout.write(`soak: ${warnings.length} warnings in n8n's log\n`);
		for (const line of warnings) process.stdout.write(`${line.slice(0, 300)}\n`);
		for (const [name, tally] of Object.entries(report.tallies)) {
			expect({ name, lost: tally.unexplainedLost }).toEqual({ name, lost: [] });
			expect({ name, twice: tally.unexplainedTwice }).toEqual({ name, twice: [] });
			expect({ name, notQualifying: tally.emittedNotQualifying }).toEqual({
				name,
				notQualifying: [],
			});
			expect(tally.emittedOnce).toBeGreaterThan(0);
			// Documented losses were said.
			if (tally.outOfReach > 0) expect(warnings.length).toBeGreaterThan(0);
		}
	},
	(SECONDS + 300) * 1000,
);
