// Reading benchmarks for bench/run.js: the SMS history read by the Comms Account node (Get
// Many, Return All), the Comms Account Trigger's cost in requests, webhook signature
// verifications per second, and the memory 10,000 items take through the node. Each
// function starts its own sandbox and resolves to plain JSON of what it measured.
'use strict';
const http = require('node:http');
const path = require('node:path');

const build = path.join(__dirname, '..', 'build');
const { startSandbox } = require(path.join(build, 'sandbox'));

/** n8n's environment must be set before anything of n8n loads; once per process. */
let harness;
function loadHarness() {
	if (!harness) {
		require(path.join(build, 'harness', 'environment')).prepareN8nEnvironment('bench');
		harness = require(path.join(build, 'harness'));
	}
	return harness;
}

const LATENCY_MS = 20;
const DOCUMENTED_PER_WINDOW = 600;
const WINDOW_MS = 60_000;
/** The API's largest page for GET /v1/sms (nodes/shared/smsPaging.ts MAX_PAGE_SIZE). */
const SMS_PAGE = require(path.join(build, 'nodes', 'shared', 'smsPaging')).MAX_PAGE_SIZE;
const HISTORY_COUNT = 10_000;
const BURST_COUNT = 1000;
const ORDERS = ['oldestFirst', 'newestFirst'];
/** The sender of the benchmark's messages: not the seeded peer, so the seeded history is out. */
const BENCH_PEER = '+447700900777';

const mb = (bytes) => +(bytes / 1048576).toFixed(1);
const elapsedMs = (started) => Number(process.hrtime.bigint() - started) / 1e6;
const gc = () => global.gc?.();
const smsReads = (sandbox) =>
	sandbox.requests().filter((r) => r.method === 'GET' && r.path === '/v1/sms');
const accountCredentials = (sandbox) => ({
	commsAccountApi: {
		apiKey: sandbox.credentials.account.unrestricted,
		baseUrl: sandbox.accountBaseUrl,
	},
});

/** The sandbox at the documented limit, every request held LATENCY_MS; the client paced alike. */
function configure(sandbox, smsOrder) {
	sandbox.reset();
	sandbox.control.updateSettings({
		smsOrder,
		latencyMs: LATENCY_MS,
		rateWindowSeconds: WINDOW_MS / 1000,
		accountRequestsPerMinute: DOCUMENTED_PER_WINDOW,
	});
	const { setSharedLimit, limiterScope } = loadHarness();
	setSharedLimit(
		limiterScope('account', sandbox.credentials.account.unrestricted, sandbox.accountBaseUrl),
		{ perWindow: DOCUMENTED_PER_WINDOW, windowMs: WINDOW_MS, concurrency: 10 },
	);
}

/** Samples the heap and RSS every `intervalMs` until stopped. */
function memorySampler(intervalMs = 50) {
	const start = process.memoryUsage();
	let peakHeap = start.heapUsed;
	let peakRss = start.rss;
	let samples = 0;
	const sample = () => {
		const now = process.memoryUsage();
		samples++;
		peakHeap = Math.max(peakHeap, now.heapUsed);
		peakRss = Math.max(peakRss, now.rss);
		return now;
	};
	const timer = setInterval(sample, intervalMs);
	return {
		start,
		stop() {
			clearInterval(timer);
			const end = sample();
			return { start, end, peakHeap, peakRss, samples };
		},
	};
}

/**
 * HISTORY_COUNT received SMS from BENCH_PEER, one a second, all in the past (ending an hour
 * ago), injected 1000 at a time. Returns their ids and the first sentAt.
 */
function injectHistory(sandbox) {
	const first = Date.now() - (HISTORY_COUNT + 3600) * 1000;
	const ids = [];
	for (let done = 0; done < HISTORY_COUNT; done += 1000) {
		const records = sandbox.control.injectInboundSms({
			from: BENCH_PEER,
			body: 'History message',
			count: Math.min(1000, HISTORY_COUNT - done),
			sentAt: new Date(first + done * 1000).toISOString(),
			intervalSeconds: 1,
		});
		for (const record of records) ids.push(record.id);
	}
	return { ids, since: new Date(first).toISOString() };
}

/** Comms Account, SMS, Get Many, Return All of the injected history; timed and sampled. */
async function readHistory(sandbox, { ids, since }) {
	const { runWorkflow, singleNodeWorkflow } = loadHarness();
	const workflow = singleNodeWorkflow('n8n-nodes-comms-api.commsAccount', {
		resource: 'sms',
		operation: 'getAll',
		returnAll: true,
		filters: { direction: 'received', peer: BENCH_PEER, since },
	});
	const requestsBefore = smsReads(sandbox).length;
	gc();
	const sampler = memorySampler();
	const started = process.hrtime.bigint();
	const result = await runWorkflow(workflow, { credentials: accountCredentials(sandbox) });
	const ms = elapsedMs(started);
	const memory = sampler.stop();
	const output = result.output('Node');
	const reads = smsReads(sandbox).slice(requestsBefore);
	const returned = output.map((item) => item.json.id);
	const unique = new Set(returned);
	const injected = new Set(ids);
	const hints = (result.task('Node')?.hints ?? []).map((hint) => hint.message);
	return {
		result,
		figures: {
			messages: output.length,
			uniqueIds: unique.size,
			duplicates: returned.length - unique.size,
			notInjected: [...unique].filter((id) => !injected.has(id)).length,
			missing: ids.filter((id) => !unique.has(id)).length,
			requests: reads.length,
			leastRequests: Math.ceil(HISTORY_COUNT / SMS_PAGE),
			// `since` is inclusive: each page after the first repeats the record at the cursor.
			leastRequestsInclusiveSince: 1 + Math.ceil((HISTORY_COUNT - SMS_PAGE + 1) / (SMS_PAGE - 1)),
			http429: reads.filter((r) => r.status === 429).length,
			error: result.error ? String(result.error.message ?? result.error) : null,
			ms: Math.round(ms),
			msPerRequest: reads.length ? +(ms / reads.length).toFixed(1) : null,
			heapGrowthMB: mb(memory.end.heapUsed - memory.start.heapUsed),
			peakHeapMB: mb(memory.peakHeap),
			peakHeapGrowthMB: mb(memory.peakHeap - memory.start.heapUsed),
			hints,
		},
		memory,
	};
}

/**
 * The SMS history: 10,000 received messages read with Get Many, Return All, once with the
 * sandbox's results oldest first and once newest first.
 */
async function historyBench() {
	loadHarness();
	const sandbox = await startSandbox({ port: 0 });
	try {
		const orders = {};
		for (const order of ORDERS) {
			configure(sandbox, order);
			const injected = injectHistory(sandbox);
			const { figures } = await readHistory(sandbox, injected);
			orders[order] = figures;
		}
		return {
			scenario: `SMS Get Many, Return All, ${HISTORY_COUNT} received messages`,
			filters: `direction received, peer ${BENCH_PEER}, since the first injected (the seeded history excluded)`,
			latencyMs: LATENCY_MS,
			limit: `${DOCUMENTED_PER_WINDOW} per ${WINDOW_MS / 1000} s`,
			pageSize: SMS_PAGE,
			gcExposed: typeof global.gc === 'function',
			orders,
		};
	} finally {
		await sandbox.stop();
	}
}

/** The trigger as the tests run it: the trigger alone, as n8n polls it (PollHarness). */
function triggerHarness(sandbox) {
	const { PollHarness, CREDENTIAL_REFS } = loadHarness();
	return new PollHarness(
		{
			nodes: [
				{
					id: 'trigger',
					name: 'SMS received',
					type: 'n8n-nodes-comms-api.commsAccountTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: { options: { includeLastMinutes: 60 } },
					credentials: CREDENTIAL_REFS,
				},
			],
			connections: {},
		},
		{ credentials: accountCredentials(sandbox) },
	);
}

/** One poll: what it emitted, the requests it made, its time; a failing poll throws. */
async function measuredPoll(sandbox, trigger) {
	const before = smsReads(sandbox).length;
	const run = await trigger.poll();
	if (run.error) throw run.error;
	return {
		ids: (run.items ?? []).map((item) => item.json.id),
		empty: run.items === null,
		requests: smsReads(sandbox).length - before,
		ms: run.durationMs,
	};
}

async function triggerOrder(sandbox, order) {
	configure(sandbox, order);
	const trigger = triggerHarness(sandbox);
	const activation = await trigger.activate();
	if (activation.error) throw activation.error;
	// Quiet for a while: the window before the cursor holds a few messages (as the test does).
	sandbox.control.injectInboundSms({
		sentAt: new Date(Date.now() - 20 * 60_000).toISOString(),
		count: 3,
		intervalSeconds: 60,
	});
	await measuredPoll(sandbox, trigger);
	const idle = await measuredPoll(sandbox, trigger);

	// A burst of 1,000, one every 10 ms, the first 15 minutes ago.
	const start = Date.now() - 15 * 60_000;
	const sent = sandbox.control
		.injectInboundSms({
			sentAts: Array.from({ length: BURST_COUNT }, (_, i) =>
				new Date(start + i * 10).toISOString(),
			),
		})
		.map((record) => record.id);
	// Poll until a poll brings nothing: the polls that deliver, and the one that confirms.
	const delivering = [];
	let confirming;
	for (let i = 0; i < 20; i++) {
		const poll = await measuredPoll(sandbox, trigger);
		if (poll.empty) {
			confirming = poll;
			break;
		}
		delivering.push(poll);
	}
	const emitted = delivering.flatMap((poll) => poll.ids);
	const unique = new Set(emitted);
	const burst = new Set(sent);
	const first = delivering[0] ?? { ids: [], requests: 0, ms: 0 };
	return {
		idlePoll: {
			requests: idle.requests,
			targetRequests: 1,
			emitted: idle.ids.length,
			ms: Math.round(idle.ms),
		},
		burst: {
			sent: BURST_COUNT,
			firstPoll: {
				requests: first.requests,
				emitted: first.ids.length,
				ms: Math.round(first.ms),
			},
			targetRequests: Math.ceil(BURST_COUNT / SMS_PAGE) + 1,
			pollsDelivering: delivering.length,
			requestsDelivering: delivering.reduce((sum, poll) => sum + poll.requests, 0),
			msDelivering: Math.round(delivering.reduce((sum, poll) => sum + poll.ms, 0)),
			emitted: emitted.length,
			uniqueIds: unique.size,
			duplicates: emitted.length - unique.size,
			notInBurst: [...unique].filter((id) => !burst.has(id)).length,
			missing: sent.filter((id) => !unique.has(id)).length,
			inOrder: emitted.every((id, i) => id === sent[sent.length - emitted.length + i]),
			confirmingPoll: confirming
				? { requests: confirming.requests, ms: Math.round(confirming.ms) }
				: 'none: 20 polls all brought messages',
		},
	};
}

/**
 * The Comms Account Trigger, polled as n8n polls it, in both orders: an idle poll, then a
 * burst of 1,000 inbound messages, polled until a poll brings nothing.
 */
async function smsTriggerBench() {
	loadHarness();
	const sandbox = await startSandbox({ port: 0 });
	try {
		const orders = {};
		for (const order of ORDERS) orders[order] = await triggerOrder(sandbox, order);
		return {
			scenario: `Comms Account Trigger: an idle poll, and a burst of ${BURST_COUNT}`,
			latencyMs: LATENCY_MS,
			pageSize: SMS_PAGE,
			orders,
		};
	} finally {
		await sandbox.stop();
	}
}

/** A webhook receiver on a free loopback port, keeping each request's raw bytes. */
async function startReceiver() {
	const received = [];
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			received.push({ headers: req.headers, rawBody: Buffer.concat(chunks) });
			res.writeHead(200).end();
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${server.address().port}/hook`,
		received,
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** Runs `fn` in batches for about `durationMs`; returns how many calls and how long. */
function timed(fn, durationMs) {
	const batch = 1000;
	let count = 0;
	const started = process.hrtime.bigint();
	let ms = 0;
	do {
		for (let i = 0; i < batch; i++) fn();
		count += batch;
		ms = elapsedMs(started);
	} while (ms < durationMs);
	return { count, ms };
}

/**
 * Signature checks per second of a real signed event: the sandbox's call.completed, as it
 * reached a receiver (the raw bytes and the x-signature header), through the check the
 * Comms Unified Trigger runs (checkSignature), with the right signature and a wrong one.
 */
async function verificationBench({ durationMs = 1000 } = {}) {
	const { checkSignature, verifySignature } = require(
		path.join(build, 'nodes', 'CommsUnifiedTrigger', 'signature'),
	);
	const sandbox = await startSandbox({ port: 0 });
	const receiver = await startReceiver();
	try {
		sandbox.reset();
		const response = await fetch(sandbox.unifiedUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				service: 'voice',
				action: 'make_call',
				api_key: sandbox.credentials.unified.live,
				data: {
					to: '+447700900123',
					message: 'Hello, this is a reminder of your appointment tomorrow at 10:00.',
					webhook_url: receiver.url,
				},
			}),
		});
		await response.text();
		if (!response.ok) throw new Error(`make_call answered ${response.status}`);
		await sandbox.control.advanceClock(600);
		await sandbox.control.flushWebhooks();
		const webhook = receiver.received.find(
			(r) => r.headers['x-webhook-event'] === 'call.completed',
		);
		if (!webhook) throw new Error('The sandbox delivered no call.completed event');
		const secret = sandbox.credentials.webhookSecret;
		const header = String(webhook.headers['x-signature']);
		const last = header.at(-1) === '0' ? '1' : '0';
		const wrongHeader = header.slice(0, -1) + last;
		const valid = { rawBody: webhook.rawBody, header, secret };
		const wrong = { rawBody: webhook.rawBody, header: wrongHeader, secret };

		// What the API defines: 'valid' for the right signature, 'mismatch' for a wrong one.
		if (checkSignature(valid) !== 'valid' || verifySignature(valid) !== true)
			throw new Error('The sandbox event did not verify');
		if (checkSignature(wrong) !== 'mismatch' || verifySignature(wrong) !== false)
			throw new Error('A wrong signature was not rejected');

		let accepted = 0;
		let rejected = 0;
		const acceptValid = () => {
			if (checkSignature(valid) === 'valid') accepted++;
		};
		const rejectWrong = () => {
			if (checkSignature(wrong) === 'mismatch') rejected++;
		};
		timed(acceptValid, 200); // warm-up
		timed(rejectWrong, 200);
		accepted = 0;
		rejected = 0;
		const right = timed(acceptValid, durationMs);
		const bad = timed(rejectWrong, durationMs);
		const figures = ({ count, ms }, outcome) => ({
			verifications: count,
			[outcome]: outcome === 'accepted' ? accepted : rejected,
			ms: Math.round(ms),
			verificationsPerSecond: Math.round((count * 1000) / ms),
			microsecondsPerVerification: +((ms * 1000) / count).toFixed(2),
		});
		return {
			scenario: 'Webhook signature check (HMAC-SHA256 of the raw body, constant-time compare)',
			function: 'checkSignature (build/nodes/CommsUnifiedTrigger/signature.js)',
			event: JSON.parse(webhook.rawBody.toString('utf8')).event,
			bodyBytes: webhook.rawBody.length,
			rightSignature: figures(right, 'accepted'),
			wrongSignature: figures(bad, 'rejected'),
		};
	} finally {
		await receiver.close();
		await sandbox.stop();
	}
}

/**
 * Memory for 10,000 items through the node: the Comms Account SMS Get Many of 10,000
 * messages (results oldest first), the heap sampled every 50 ms. The sandbox serves the
 * pages from the same process, so its share of the work is in the figures too.
 */
async function memoryBench() {
	loadHarness();
	const sandbox = await startSandbox({ port: 0 });
	try {
		configure(sandbox, 'oldestFirst');
		const injected = injectHistory(sandbox);
		const read = await readHistory(sandbox, injected);
		const { memory } = read;
		gc();
		const held = process.memoryUsage();
		const items = read.result.output('Node').length;
		read.result = null;
		gc();
		const released = process.memoryUsage();
		return {
			scenario: `SMS Get Many, Return All, ${HISTORY_COUNT} messages: memory`,
			gcExposed: typeof global.gc === 'function',
			items,
			ms: read.figures.ms,
			samples: memory.samples,
			heapBeforeMB: mb(memory.start.heapUsed),
			peakHeapMB: mb(memory.peakHeap),
			peakHeapGrowthMB: mb(memory.peakHeap - memory.start.heapUsed),
			heapAfterMB: mb(memory.end.heapUsed),
			heapAfterGcWithItemsMB: mb(held.heapUsed),
			heapAfterGcReleasedMB: mb(released.heapUsed),
			rssBeforeMB: mb(memory.start.rss),
			peakRssMB: mb(memory.peakRss),
			rssGrowthMB: mb(memory.peakRss - memory.start.rss),
		};
	} finally {
		await sandbox.stop();
	}
}

module.exports = {
	historyBench,
	smsTriggerBench,
	verificationBench,
	memoryBench,
	SMS_PAGE,
	LATENCY_MS,
	HISTORY_COUNT,
	BURST_COUNT,
};
