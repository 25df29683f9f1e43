// `npm run bench` (builds first): every benchmark of the package in one run, on this machine.
//
// - bench/in-process/, in this process (n8n's engine, n8n-core, runs the nodes against the
//   sandbox): reading 10,000 SMS with Return All, the SMS trigger's cost in requests, webhook
//   signature verifications per second, and the memory 10,000 items take.
// - bench/n8n/, in the real n8n 2.41 the end-to-end run installs (installed by it on first use):
//   the bulk sends through our nodes at the documented limits (and against a stricter server
//   and a token-bucket one), n8n's HTTP Request node doing the same sends, the overhead per item
//   of both with a sandbox that answers at once, the webhook trigger's time from request to
//   execution start, the package's load time and packed size.
//
// Writes bench/results.json (keeping the "queueMode" figures `npm run test:queue` writes there)
// and bench/results.md, the table docs/benchmarks.md quotes; prints the table. Exits non-zero if any
// of our runs failed, lost or duplicated an item; a figure that misses its speed target is
// reported in the table, not failed on (speed depends on the machine).
//
// `node bench/run.ts --table` writes bench/results.md again from bench/results.json, running nothing.
// `node bench/run.ts --quick` (`npm run bench:quick`, part of `npm run check`) runs the in-process
// part only, after checking that every compiled module the benchmarks load is there, prints its
// figures and writes nothing: so a moved file or a broken benchmark fails CI, not the next
// person's `npm run bench`.

import { historyBench } from './in-process/history.ts';
import { memoryBench } from './in-process/memory.ts';
import { smsTriggerBench } from './in-process/sms-trigger.ts';
import { verificationBench } from './in-process/verification.ts';
import { realN8nBench } from './n8n/bench.ts';
import { loadAll } from './build.ts';
import { inProcessProblems, machine, problems, rewriteTable, writeResults } from './results.ts';

/** The benchmarks that run in this process (n8n's engine here, no real n8n). */
async function inProcess(step: (what: string) => void) {
	step('in this process: SMS history, Return All of 10,000');
	const history = await historyBench();
	step('in this process: SMS trigger cost');
	const smsTrigger = await smsTriggerBench();
	step('in this process: signature verifications');
	const verification = await verificationBench();
	step('in this process: memory for 10,000 items');
	const memory = await memoryBench();
	return { history, smsTrigger, verification, memory };
}

/** The in-process benchmarks alone, writing nothing; non-zero if one failed, lost or duplicated. */
async function quick(): Promise<number> {
	const began = Date.now();
	loadAll();
	const figures = await inProcess((what) =>
		console.log(`[bench:quick +${((Date.now() - began) / 1000).toFixed(0)}s] ${what}`),
	);
	console.log(JSON.stringify(figures, null, 1));
	const bad = inProcessProblems(figures);
	if (bad.length) {
		console.error(
			`bench:quick: our nodes failed, lost or duplicated items:\n  ${bad.join('\n  ')}`,
		);
		return 1;
	}
	console.log(`bench:quick: passed in ${((Date.now() - began) / 1000).toFixed(0)} s`);
	return 0;
}

async function main(): Promise<number> {
	const began = Date.now();
	const step = (what: string) =>
		console.log(`[bench +${((Date.now() - began) / 1000).toFixed(0)}s] ${what}`);
	loadAll();
	const { history, smsTrigger, verification, memory } = await inProcess(step);
	step('in the real n8n');
	const n8n = await realN8nBench();
	const results = {
		date: new Date().toISOString(),
		machine: machine(),
		durationSeconds: Math.round((Date.now() - began) / 1000),
		history,
		smsTrigger,
		verification,
		memory,
		n8n,
	};
	writeResults(results);
	const bad = problems(results);
	if (bad.length) {
		console.error(`our nodes failed, lost or duplicated items:\n  ${bad.join('\n  ')}`);
		return 1;
	}
	return 0;
}

if (process.argv.includes('--table')) {
	rewriteTable();
	process.exit(0);
}

(process.argv.includes('--quick') ? quick() : main()).then(
	(code) => process.exit(code),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
