// The results of `npm run bench`: their shape, the machine they were measured on, what in them
// counts as a failure, and the two files they are written to (bench/results.json, keeping the
// "queueMode" figures `npm run test:queue` writes there, and bench/results.md, the table).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { historyBench } from './in-process/history.ts';
import type { memoryBench } from './in-process/memory.ts';
import type { smsTriggerBench } from './in-process/sms-trigger.ts';
import type { verificationBench } from './in-process/verification.ts';
import type { N8nFigures } from './n8n/bench.ts';
import { header, table } from './table.ts';

const RESULTS_JSON = path.join(import.meta.dirname, 'results.json');
const RESULTS_MD = path.join(import.meta.dirname, 'results.md');

export interface Results {
	date: string;
	machine: ReturnType<typeof machine>;
	durationSeconds: number;
	history: Awaited<ReturnType<typeof historyBench>>;
	smsTrigger: Awaited<ReturnType<typeof smsTriggerBench>>;
	verification: Awaited<ReturnType<typeof verificationBench>>;
	memory: Awaited<ReturnType<typeof memoryBench>>;
	n8n: N8nFigures;
}

/** The machine the figures come from. */
export function machine() {
	return {
		cpus: os.cpus().length,
		cpuModel: os.cpus()[0]?.model,
		memoryGB: +(os.totalmem() / 2 ** 30).toFixed(1),
		node: process.version,
		platform: `${process.platform}-${process.arch}`,
	};
}

/** Of the in-process runs, those that lost or duplicated an item. */
export function inProcessProblems(results: Pick<Results, 'history' | 'smsTrigger'>): string[] {
	const out: string[] = [];
	for (const [order, f] of Object.entries(results.history.orders))
		if (f.duplicates || f.notInjected) out.push(`history ${order}: duplicates or strangers`);
	for (const [order, f] of Object.entries(results.smsTrigger.orders))
		if (f.burst.duplicates || f.burst.notInBurst) out.push(`trigger ${order}: duplicates`);
	return out;
}

/** Our runs that failed, lost or duplicated an item (a missed speed target is not one). */
export function problems(results: Results): string[] {
	const out: string[] = inProcessProblems(results);
	for (const b of results.n8n.bulk)
		if (b.failed || b.duplicates || b.nodeError)
			out.push(`${b.scenario}: ${b.failed} failed, ${b.duplicates} duplicated`);
	if (results.n8n.overhead.ours.itemsOut !== results.n8n.overhead.items)
		out.push('overhead run lost items');
	return out;
}

/** The "queueMode" figures of the results.json there is, if any. */
function queueModeKept(): { queueMode?: unknown } {
	try {
		const previous = JSON.parse(fs.readFileSync(RESULTS_JSON, 'utf8'));
		return previous.queueMode ? { queueMode: previous.queueMode } : {};
	} catch {
		return {}; // First run.
	}
}

/** Writes results.json and results.md; prints the table. */
export function writeResults(results: Results): void {
	const markdown = table(results);
	const out = { ...results, ...queueModeKept() };
	fs.writeFileSync(RESULTS_JSON, `${JSON.stringify(out, null, '\t')}\n`);
	fs.writeFileSync(RESULTS_MD, `${header(results)}\n\n${markdown}\n`);
	console.log(`\n${header(results)}\n\n${markdown}\n`);
	console.log(`written to bench/results.json and bench/results.md`);
}

/** Writes results.md again from results.json (its first line kept), running nothing; prints it. */
export function rewriteTable(): void {
	const results = JSON.parse(fs.readFileSync(RESULTS_JSON, 'utf8')) as Results;
	const firstLine = fs.readFileSync(RESULTS_MD, 'utf8').split('\n')[0];
	fs.writeFileSync(RESULTS_MD, `${firstLine}\n\n${table(results)}\n`);
	console.log(fs.readFileSync(RESULTS_MD, 'utf8'));
}
