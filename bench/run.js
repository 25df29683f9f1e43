#!/usr/bin/env node
// Benchmarks: the Comms Account node run by n8n's engine against the sandbox, timed against
// what the rate limit allows, in one run. Run with `npm run bench` (builds first).
//
// - The headline scenario runs at the API's real limit: 600 requests in any 60 s window.
// - The strict-server scenario shortens the window (SCALED_WINDOW_MS, on both the sandbox and
//   the client) to keep the run short. That scaling makes fixed per-request costs weigh 10x
//   more against the window, so its ratio is pessimistic; the unthrottled scenario measures
//   those costs.
// Every request is held LATENCY_MS by the sandbox to stand in for a network.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// The two typed entry points of tsc's development tree (build/): the sandbox and the harness,
// which loads the nodes and exposes the limiter registry they use.
const build = path.join(__dirname, '..', 'build');
require(path.join(build, 'harness', 'environment')).prepareN8nEnvironment('bench');
const { startSandbox, TEST_NUMBERS } = require(path.join(build, 'sandbox'));
const { runWorkflow, singleNodeWorkflow, setSharedLimit, limiterScope } = require(
	path.join(build, 'harness'),
);

const REAL_WINDOW_MS = 60_000;
const SCALED_WINDOW_MS = 6000;
const LATENCY_MS = 20;
const DOCUMENTED_PER_WINDOW = 600;
const ACCOUNT_CONCURRENCY = 25;

const accountNode = (parameters) =>
	singleNodeWorkflow('n8n-nodes-comms-api.commsAccount', parameters);

/** The least time N requests need under a sliding window of `perWindow`. */
function allowedMs(count, perWindow, windowMs) {
	return Math.floor((count - 1) / perWindow) * windowMs;
}

/** Bulk sends go to many people: 100 recipients in Ofcom's drama range, +44 7700 900300..399. */
const RECIPIENTS = Array.from({ length: 100 }, (_, i) => `+447700900${300 + i}`);

async function sendScenario(
	sandbox,
	{ name, count, serverPerWindow, clientPerWindow, windowMs, recipients = RECIPIENTS },
) {
	sandbox.reset();
	sandbox.control.updateSettings({
		accountRequestsPerMinute: serverPerWindow,
		rateWindowSeconds: windowMs / 1000,
		latencyMs: LATENCY_MS,
	});
	sandbox.control.setBalances({ smsCredits: { subscription: 1_000_000, topUp: 0 } });
	const key = sandbox.credentials.account.unrestricted;
	setSharedLimit(limiterScope('account', key, sandbox.accountBaseUrl), {
		perWindow: clientPerWindow,
		windowMs,
		concurrency: ACCOUNT_CONCURRENCY,
	});
	const input = Array.from({ length: count }, (_, i) => ({
		json: { text: `Bench message ${i + 1}`, to: recipients[i % recipients.length] },
	}));
	const workflow = accountNode({
		resource: 'sms',
		operation: 'send',
		phoneDocId: { __rl: true, mode: 'id', value: sandbox.numbers.main },
		to: '={{ $json.to }}',
		message: '={{ $json.text }}',
	});
	const started = process.hrtime.bigint();
	const result = await runWorkflow(workflow, {
		credentials: { commsAccountApi: { apiKey: key, baseUrl: sandbox.accountBaseUrl } },
		input,
	});
	const ms = Number(process.hrtime.bigint() - started) / 1e6;
	const posts = sandbox.requests().filter((r) => r.method === 'POST' && r.path === '/v1/sms');
	const accepted = posts.filter((r) => r.status === 201).map((r) => r.body.message);
	const output = result.output('Node');
	const allowed = allowedMs(count, serverPerWindow, windowMs);
	return {
		scenario: name,
		items: count,
		limit: `${serverPerWindow} per ${windowMs / 1000} s (server), ${clientPerWindow} per ${windowMs / 1000} s (client)`,
		ms: Math.round(ms),
		allowedMs: allowed,
		ratio: allowed ? +(ms / allowed).toFixed(3) : 'n/a (the limit allows it at once)',
		msPerItem: +(ms / count).toFixed(2),
		sent: accepted.length,
		duplicates: accepted.length - new Set(accepted).size,
		failures: (result.error ? 1 : 0) + output.filter((item) => item.json.error).length,
		http429: posts.filter((r) => r.status === 429).length,
	};
}

async function pagingScenario(sandbox, { count }) {
	sandbox.reset();
	sandbox.control.updateSettings({
		smsOrder: 'oldestFirst',
		latencyMs: LATENCY_MS,
		rateWindowSeconds: 60,
		accountRequestsPerMinute: 600,
	});
	const key = sandbox.credentials.account.unrestricted;
	setSharedLimit(limiterScope('account', key, sandbox.accountBaseUrl), {
		perWindow: DOCUMENTED_PER_WINDOW,
		windowMs: 60_000,
		concurrency: 10,
	});
	for (let done = 0; done < count; done += 1000) {
		sandbox.control.injectInboundSms({
			count: Math.min(1000, count - done),
			sentAt: new Date(Date.UTC(2026, 0, 1) + done * 1000).toISOString(),
			intervalSeconds: 1,
		});
	}
	global.gc?.();
	const heapBefore = process.memoryUsage().heapUsed;
	const started = process.hrtime.bigint();
	const result = await runWorkflow(
		accountNode({
			resource: 'sms',
			operation: 'getAll',
			returnAll: true,
			filters: { direction: 'received', since: '2025-12-31T00:00:00Z' },
		}),
		{
			credentials: { commsAccountApi: { apiKey: key, baseUrl: sandbox.accountBaseUrl } },
		},
	);
	const ms = Number(process.hrtime.bigint() - started) / 1e6;
	const heapAfter = process.memoryUsage().heapUsed;
	const output = result.output('Node');
	const pages = sandbox.requests().filter((r) => r.method === 'GET' && r.path === '/v1/sms').length;
	return {
		scenario: 'SMS Get Many, Return All, results oldest first',
		messages: output.length,
		unique: new Set(output.map((item) => item.json.id)).size,
		pages,
		ms: Math.round(ms),
		msPerPage: +(ms / pages).toFixed(1),
		heapGrowthMB: +((heapAfter - heapBefore) / 1048576).toFixed(1),
	};
}

async function main() {
	const sandbox = await startSandbox({ port: 0 });
	const results = [];
	try {
		results.push(
			await sendScenario(sandbox, {
				name: 'SMS Send, unthrottled (the cost of the engine, node and HTTP)',
				count: 600,
				serverPerWindow: 100_000,
				clientPerWindow: 100_000,
				windowMs: REAL_WINDOW_MS,
			}),
		);
		results.push(
			await sendScenario(sandbox, {
				name: 'SMS Send at the documented limit (600 per 60 s)',
				count: 1200,
				serverPerWindow: DOCUMENTED_PER_WINDOW,
				clientPerWindow: DOCUMENTED_PER_WINDOW,
				windowMs: REAL_WINDOW_MS,
			}),
		);
		results.push(
			await sendScenario(sandbox, {
				name: 'SMS Send, server 6x stricter than the client knows (window scaled to 6 s)',
				count: 300,
				serverPerWindow: 100,
				clientPerWindow: DOCUMENTED_PER_WINDOW,
				windowMs: SCALED_WINDOW_MS,
			}),
		);
		results.push(
			await sendScenario(sandbox, {
				name: 'SMS Send, all to one recipient (sent one after another by design, to keep their order)',
				count: 200,
				serverPerWindow: DOCUMENTED_PER_WINDOW,
				clientPerWindow: DOCUMENTED_PER_WINDOW,
				windowMs: REAL_WINDOW_MS,
				recipients: [TEST_NUMBERS.customer],
			}),
		);
		results.push(await pagingScenario(sandbox, { count: 5000 }));
	} finally {
		await sandbox.stop();
	}
	const rss = +(process.resourceUsage().maxRSS / 1024).toFixed(0);
	console.log(
		`Comms Account node benchmarks (sandbox latency ${LATENCY_MS} ms, up to ${ACCOUNT_CONCURRENCY} requests in flight, Node.js ${process.version}, ${os.cpus().length} cores)\n`,
	);
	for (const result of results) {
		console.log(`• ${result.scenario}`);
		for (const [key, value] of Object.entries(result))
			if (key !== 'scenario') console.log(`    ${key.padEnd(12)} ${value}`);
	}
	console.log(`\npeak RSS of the whole run: ${rss} MB`);
	const file = path.join(__dirname, 'results.json');
	fs.writeFileSync(
		file,
		`${JSON.stringify({ date: new Date().toISOString(), latencyMs: LATENCY_MS, peakRssMB: rss, results }, null, 2)}\n`,
	);
	console.log(`written to ${path.relative(process.cwd(), file)}`);
	const bad = results.filter(
		(r) => r.failures || r.duplicates || (r.unique !== undefined && r.unique !== r.messages),
	);
	if (bad.length) {
		console.error('a benchmark lost, failed or duplicated items');
		process.exit(1);
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
