#!/usr/bin/env node
// `npm run bench` (builds first): every benchmark of the package in one run, on this machine.
//
// - bench/reading.js, in this process (n8n's engine, n8n-core, runs the nodes against the
//   sandbox): reading 10,000 SMS with Return All, the SMS trigger's cost in requests, webhook
//   signature verifications per second, and the memory 10,000 items take.
// - bench/n8n.js, in the real n8n 2.41 the end-to-end run installs (installed by it on first use):
//   the bulk sends through our nodes at the documented limits (and against a stricter server
//   and a token-bucket one), n8n's HTTP Request node doing the same sends, the overhead per item
//   of both with a sandbox that answers at once, the webhook trigger's time from request to
//   execution start, the package's load time and packed size.
//
// Writes bench/results.json (keeping the "queueMode" figures `npm run test:queue` writes there)
// and bench/results.md, the table docs/benchmarks.md quotes; prints the table. Exits non-zero if any
// of our runs failed, lost or duplicated an item; a figure that misses its speed target is
// reported in the table, not failed on (speed depends on the machine).
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const reading = require('./reading');
const { realN8nBench } = require('./n8n');

const RESULTS_JSON = path.join(__dirname, 'results.json');
const RESULTS_MD = path.join(__dirname, 'results.md');

const yes = (ok) => (ok ? 'yes' : '**no**');
const n = (value) => (typeof value === 'number' ? value.toLocaleString('en-GB') : String(value));

function bulkRow(label, figures, { target = 1.05, reference = false } = {}) {
	const clean = figures.failed === 0 && figures.duplicates === 0 && !figures.nodeError;
	const figure = [
		figures.ratio === null ? 'n/a' : `**${figures.ratio.toFixed(2)}**`,
		`(${figures.nodeSeconds} s / ${figures.leastSeconds} s)`,
		`${n(figures.sent)} sent, ${n(figures.failed)} failed, ${n(figures.http429)} × 429, ${n(figures.duplicates)} duplicated`,
		figures.nodeError ? `node failed: "${figures.nodeError.slice(0, 80)}"` : '',
	]
		.filter(Boolean)
		.join('; ');
	return [
		label,
		reference ? 'reference' : `≤ ${target}, 0 failed, 0 duplicated`,
		figure,
		reference ? '' : yes(clean && figures.ratio !== null && figures.ratio <= target),
	];
}

function table(results) {
	const { history, smsTrigger, verification, memory, n8n } = results;
	const rows = [];
	const bulk = Object.fromEntries(n8n.bulk.map((b) => [b.scenario, b]));
	rows.push(
		bulkRow('1. Comms Account, 1,200 SMS Send (600 per 60 s)', bulk['Comms Account: SMS Send']),
		bulkRow(
			'1. … server stricter than documented: 600 sends, 300 per 60 s',
			bulk['Comms Account: SMS Send, server stricter than documented (300 a minute)'],
		),
		bulkRow(
			'1. … token-bucket server: 1,200 sends, 600 burst, 10 a second',
			bulk['Comms Account: SMS Send, token-bucket server'],
		),
		bulkRow('1. Comms Unified, 300 SMS (100 per 60 s)', bulk['Comms Unified: sms']),
		bulkRow('1. Comms Unified, 15 voice calls (10 per 60 s)', bulk['Comms Unified: voice']),
		bulkRow('1. Comms Unified, 300 emails (200 per 60 s)', bulk['Comms Unified: email']),
		bulkRow('1. Comms Unified, 40 AI chats (30 per 60 s)', bulk['Comms Unified: ai']),
	);
	for (const peer of n8n.peer)
		rows.push(bulkRow(`2. ${peer.scenario}, 1,200 Account SMS`, peer, { reference: true }));
	for (const [order, figures] of Object.entries(history.orders)) {
		rows.push([
			`3. Return All of 10,000 SMS, results ${order}`,
			`${history.leastRequests ?? 50} requests (51 with the inclusive \`since\`), all 10,000 once`,
			`${n(figures.requests)} requests, ${n(figures.messages)} read (${n(figures.duplicates)} duplicated, ${n(figures.missing)} missing), ${(figures.ms / 1000).toFixed(1)} s`,
			yes(
				figures.requests <= figures.leastRequestsInclusiveSince &&
					figures.messages === 10000 &&
					figures.duplicates === 0,
			),
		]);
	}
	for (const [order, figures] of Object.entries(smsTrigger.orders)) {
		rows.push([
			`4. SMS trigger, idle poll, results ${order}`,
			'1 request',
			`${figures.idlePoll.requests} request(s)`,
			yes(figures.idlePoll.requests <= 1),
		]);
		const burst = figures.burst;
		rows.push([
			`4. SMS trigger, burst of 1,000, results ${order}`,
			'6 requests, exactly 1,000 emitted',
			`${burst.requestsDelivering} requests in ${burst.pollsDelivering} poll(s), ${n(burst.emitted)} emitted (${n(burst.duplicates)} duplicated, ${n(burst.missing)} missing), ${burst.msDelivering} ms`,
			yes(burst.requestsDelivering <= 6 && burst.emitted === 1000 && burst.duplicates === 0),
		]);
	}
	rows.push(
		[
			'5. Webhook signature verifications per second',
			'—',
			`${n(verification.rightSignature.verificationsPerSecond)} /s (${verification.rightSignature.microsecondsPerVerification} µs each, ${verification.bodyBytes}-byte event)`,
			'',
		],
		[
			'5. Webhook request to execution start, real n8n (median)',
			"≤ 2 × n8n's Webhook node with Header Auth",
			`Comms Unified Trigger (verifies the HMAC, replay protection at its default, on): ${n8n.webhook.verified.medianRequestToStartMs} ms; n8n's Webhook node with Header Auth: ${n8n.webhook.headerAuth.medianRequestToStartMs} ms (ratio ${(n8n.webhook.verified.medianRequestToStartMs / n8n.webhook.headerAuth.medianRequestToStartMs).toFixed(2)}), with none: ${n8n.webhook.plain.medianRequestToStartMs} ms`,
			yes(
				n8n.webhook.verified.medianRequestToStartMs <=
					2 * n8n.webhook.headerAuth.medianRequestToStartMs,
			),
		],
		[
			'6. Own time per item, sandbox answering at once, real n8n',
			"no slower than n8n's HTTP Request node",
			`n8n's CPU per item: ${n8n.overhead.ours.n8nCpuMsPerItem} ms vs ${n8n.overhead.httpRequest.n8nCpuMsPerItem} ms (ratio ${n8n.overhead.cpuRatio}); node's wall time per item: ${n8n.overhead.ours.msPerItem} ms vs ${n8n.overhead.httpRequest.msPerItem} ms (ratio ${n8n.overhead.ratio}; ours is paced, 600 a minute over at least 3 s)`,
			yes(n8n.overhead.cpuRatio !== null && n8n.overhead.cpuRatio <= 1),
		],
		[
			'6. Peak memory, 10,000 items (Get Many, in-process)',
			'—',
			`heap +${memory.peakHeapGrowthMB} MB at peak, RSS +${memory.rssGrowthMB} MB`,
			'',
		],
		[
			"6. Package load (require + construct its 6 files, as n8n's loader does; median of 5)",
			'—',
			`${n8n.package.loadMedianMs} ms`,
			'',
		],
		['6. Packed size', '—', `${n8n.package.packedKB} KB`, ''],
	);
	const head = ['Benchmark', 'Target', 'Measured', 'Met'];
	const escape = (cell) => String(cell).replace(/\|/g, '\\|');
	return [
		`| ${head.join(' | ')} |`,
		`|${head.map(() => '---').join('|')}|`,
		...rows.map((row) => `| ${row.map(escape).join(' | ')} |`),
	].join('\n');
}

function problems(results) {
	const out = [];
	for (const b of results.n8n.bulk)
		if (b.failed || b.duplicates || b.nodeError)
			out.push(`${b.scenario}: ${b.failed} failed, ${b.duplicates} duplicated`);
	for (const [order, f] of Object.entries(results.history.orders))
		if (f.duplicates || f.notInjected) out.push(`history ${order}: duplicates or strangers`);
	for (const [order, f] of Object.entries(results.smsTrigger.orders))
		if (f.burst.duplicates || f.burst.notInBurst) out.push(`trigger ${order}: duplicates`);
	if (results.n8n.overhead.ours.itemsOut !== results.n8n.overhead.items)
		out.push('overhead run lost items');
	return out;
}

async function main() {
	const began = Date.now();
	const step = (what) =>
		console.log(`[bench +${((Date.now() - began) / 1000).toFixed(0)}s] ${what}`);
	step('in this process: SMS history, Return All of 10,000');
	const history = await reading.historyBench();
	step('in this process: SMS trigger cost');
	const smsTrigger = await reading.smsTriggerBench();
	step('in this process: signature verifications');
	const verification = await reading.verificationBench();
	step('in this process: memory for 10,000 items');
	const memory = await reading.memoryBench();
	step('in the real n8n');
	const n8n = await realN8nBench();
	const results = {
		date: new Date().toISOString(),
		machine: {
			cpus: os.cpus().length,
			cpuModel: os.cpus()[0]?.model,
			memoryGB: +(os.totalmem() / 2 ** 30).toFixed(1),
			node: process.version,
			platform: `${process.platform}-${process.arch}`,
		},
		durationSeconds: Math.round((Date.now() - began) / 1000),
		history,
		smsTrigger,
		verification,
		memory,
		n8n,
	};
	const markdown = table(results);
	let previous = {};
	try {
		previous = JSON.parse(fs.readFileSync(RESULTS_JSON, 'utf8'));
	} catch {
		// First run.
	}
	const out = { ...results, ...(previous.queueMode ? { queueMode: previous.queueMode } : {}) };
	fs.writeFileSync(RESULTS_JSON, `${JSON.stringify(out, null, '\t')}\n`);
	const header = `Measured ${results.date.slice(0, 10)} by \`npm run bench\` in ${results.durationSeconds} s on ${results.machine.cpus} cores (${results.machine.cpuModel}), Node.js ${results.machine.node}, n8n ${n8n.setup.n8nVersion}; sandbox latency ${n8n.setup.sandboxLatencyMs} ms, no Retry-After, documented limits (one minute windows). Ratios: the node's own time over the least time the server's limit allows.`;
	fs.writeFileSync(RESULTS_MD, `${header}\n\n${markdown}\n`);
	console.log(`\n${header}\n\n${markdown}\n`);
	console.log(`written to bench/results.json and bench/results.md`);
	const bad = problems(results);
	if (bad.length) {
		console.error(`our nodes failed, lost or duplicated items:\n  ${bad.join('\n  ')}`);
		process.exit(1);
	}
	process.exit(0);
}

/** `node bench/run.js --table`: writes bench/results.md again from bench/results.json, running nothing. */
function tableOnly() {
	const results = JSON.parse(fs.readFileSync(RESULTS_JSON, 'utf8'));
	const header = fs.readFileSync(RESULTS_MD, 'utf8').split('\n')[0];
	fs.writeFileSync(RESULTS_MD, `${header}\n\n${table(results)}\n`);
	console.log(fs.readFileSync(RESULTS_MD, 'utf8'));
}

if (process.argv.includes('--table')) {
	tableOnly();
	process.exit(0);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
