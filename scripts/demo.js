#!/usr/bin/env node
// The main job: start the sandbox, run every example workflow in examples/ through n8n's
// own engine (n8n-core's WorkflowExecute) with the sandbox's credentials, and print what
// each node did. Run it with `npm run demo` (after the build).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

// build/ is tsc's development tree (sandbox, harness); the nodes themselves are loaded from
// dist/, the built files the package ships.
const root = path.join(__dirname, '..');
const build = path.join(root, 'build');
require(path.join(build, 'harness', 'environment')).prepareN8nEnvironment('demo');
const { startSandbox } = require(path.join(build, 'sandbox'));
const { runWorkflow, usePublishedPackage } = require(path.join(build, 'harness'));
usePublishedPackage(root);

function short(value, width = 110) {
	const text = JSON.stringify(value);
	return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

/**
 * The Comms Unified Trigger, run the way n8n runs a webhook (n8n-core's WebhookContext behind a
 * loopback server with n8n's URL layout): the sandbox places a voice call whose webhook_url is
 * the trigger's Production URL, and its signed call.completed starts the workflow; the same
 * delivery sent again is acknowledged and starts nothing; a forged copy is refused with 401.
 * Returns how many of those did not happen as they should.
 */
async function triggerDemo(sandbox, credentials) {
	const { WebhookHarness } = require(path.join(build, 'harness'));
	const name = 'Comms Unified Trigger';
	const workflow = {
		name: 'Call outcomes',
		nodes: [
			{
				id: 'trigger',
				name,
				type: 'n8n-nodes-comms-api.commsUnifiedTrigger',
				typeVersion: 1,
				position: [0, 0],
				webhookId: 'demo-call-outcomes',
				parameters: {
					events: ['call.completed', 'call.failed'],
					options: { replayWindowSeconds: 3600 },
				},
				credentials: { commsUnifiedApi: { id: 'demo', name: 'Comms Unified' } },
			},
		],
		connections: {},
	};
	console.log(
		`▶ ${workflow.name}  (a Comms Unified Trigger; events signed with the credential's Webhook Secret)`,
	);
	const harness = new WebhookHarness(workflow, { credentials });
	await harness.activate();
	const server = await harness.listen();
	let problems = 0;
	const check = (ok, text) => {
		console.log(`  ${ok ? '✓' : '✗'} ${text}`);
		if (!ok) problems++;
	};
	try {
		const made = await fetch(sandbox.unifiedUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				service: 'voice',
				action: 'make_call',
				api_key: credentials.commsUnifiedApi.apiKey,
				data: {
					to: '+447700900123',
					message: 'Your order is ready for collection.',
					webhook_url: server.productionUrl,
				},
			}),
		}).then((response) => response.json());
		console.log(
			`  voice call ${made.result.call_id} placed with webhook_url ${server.productionUrl}`,
		);
		await sandbox.control.advanceClock(600);
		const delivery = sandbox.control.deliveries().find((d) => d.url === server.productionUrl);
		const runs = await harness.executions();
		const item = runs[0]?.output(name)[0];
		check(
			delivery?.responseStatus === 200 && runs.length === 1,
			`the sandbox's signed ${delivery?.event} → ${delivery?.responseStatus}, workflow started`,
		);
		if (item) console.log(`      ${short(item.json)}`);
		const post = (body) =>
			fetch(server.productionUrl, { method: 'POST', headers: delivery.headers, body }).then(
				async (r) => ({ status: r.status, body: await r.text() }),
			);
		const repeat = await post(delivery.body);
		check(
			repeat.status === 200 && (await harness.executions()).length === 1,
			`the same delivery again → ${repeat.status}, acknowledged, nothing started`,
		);
		const forged = await post(delivery.body.replace(/"duration":\d+/, '"duration":1'));
		check(
			forged.status === 401 && (await harness.executions()).length === 1,
			`a forged copy (duration changed, signature kept) → ${forged.status} ${forged.body}, nothing started`,
		);
	} finally {
		await server.close();
	}
	console.log('');
	return problems;
}

/**
 * The Comms Account Trigger, polled the way n8n polls it (n8n-core's PollContext, its
 * static data stored between polls): the workflow of examples/account-trigger.json is
 * published (its first poll starts from now: the sandbox's history starts nothing), an SMS
 * arrives in the sandbox, the next poll starts the workflow with it and the reply goes out, and
 * the poll after that starts nothing. Returns how many of those did not happen as they should.
 */
async function smsTriggerDemo(sandbox, credentials) {
	const { PollHarness } = require(path.join(build, 'harness'));
	const workflow = JSON.parse(
		fs.readFileSync(path.join(root, 'examples', 'account-trigger.json'), 'utf8'),
	);
	const [trigger] = workflow.nodes;
	console.log(`▶ ${workflow.name}, published  (a Comms Account Trigger polling the sandbox)`);
	const harness = new PollHarness(workflow, { credentials });
	let problems = 0;
	const check = (ok, text) => {
		console.log(`  ${ok ? '✓' : '✗'} ${text}`);
		if (!ok) problems++;
	};
	const reads = () =>
		sandbox.requests().filter((r) => r.method === 'GET' && r.path === '/v1/sms').length;
	let before = reads();
	const activation = await harness.activate();
	check(
		!activation.error && activation.items === null,
		`published: the first poll starts from now, so the SMS already in the inbox start nothing (${reads() - before} request)`,
	);
	const [sms] = sandbox.control.injectInboundSms({
		from: '+447700900123',
		body: 'Hi, are you open on Saturday?',
	});
	console.log(`  an SMS arrives from ${sms.fromNumber}: "${sms.body}"`);
	before = reads();
	const poll = await harness.poll();
	const [run] = await harness.executions();
	const reply = run?.output('Reply')[0];
	check(
		poll.items?.length === 1 && poll.items[0].json.id === sms.id,
		`the next poll (${reads() - before} request) starts the workflow with it: ${trigger.name} → 1 item`,
	);
	if (poll.items) console.log(`      ${short(poll.items[0].json)}`);
	check(
		!run?.error && reply?.json.to === sms.fromNumber,
		`Reply → SMS ${reply?.json.messageId} sent to ${reply?.json.to}`,
	);
	before = reads();
	const again = await harness.poll();
	check(
		!again.error && again.items === null && (await harness.executions()).length === 1,
		`the poll after that (${reads() - before} request) starts nothing: each SMS starts the workflow once`,
	);
	console.log('');
	return problems;
}

async function main() {
	const sandbox = await startSandbox({ port: 0 });
	const credentials = {
		commsAccountApi: {
			apiKey: sandbox.credentials.account.unrestricted,
			baseUrl: sandbox.accountBaseUrl,
		},
		commsUnifiedApi: {
			apiKey: sandbox.credentials.unified.test,
			endpointUrl: sandbox.unifiedUrl,
			webhookSecret: sandbox.credentials.webhookSecret,
		},
	};
	console.log(
		`Sandbox running at ${sandbox.url} (Account API and Unified API, no account needed)\n`,
	);
	const examples = fs
		.readdirSync(path.join(__dirname, '..', 'examples'))
		.filter((f) => f.endsWith('.json'))
		.sort();
	let failed = 0;
	try {
		for (const file of examples) {
			const workflow = JSON.parse(
				fs.readFileSync(path.join(__dirname, '..', 'examples', file), 'utf8'),
			);
			console.log(`▶ ${workflow.name}  (examples/${file})`);
			// An AI-agent example needs n8n's AI nodes and a model, which this engine run has not.
			if (workflow.nodes.some((node) => node.type.startsWith('@n8n/n8n-nodes-langchain.'))) {
				console.log(
					'  skipped: it needs n8n with its AI nodes and a chat model (import it into n8n; `npm run test:e2e` runs it with a scripted model)\n',
				);
				continue;
			}
			const started = Date.now();
			const result = await runWorkflow(workflow, { credentials });
			for (const node of workflow.nodes) {
				const task = result.task(node.name);
				if (!task) continue;
				if (task.error) {
					console.log(`  ✗ ${node.name}: ${task.error.message}`);
					continue;
				}
				const items = result.output(node.name);
				console.log(`  ✓ ${node.name}: ${items.length} item${items.length === 1 ? '' : 's'}`);
				for (const item of items.slice(0, 3)) console.log(`      ${short(item.json)}`);
				if (items.length > 3) console.log(`      … and ${items.length - 3} more`);
				for (const hint of task.hints ?? []) console.log(`      hint: ${hint.message}`);
			}
			if (result.error) {
				failed++;
				console.log(`  workflow failed: ${result.error.message}`);
			}
			console.log(`  (${Date.now() - started} ms)\n`);
		}
		if ((await triggerDemo(sandbox, credentials)) > 0) failed++;
		if ((await smsTriggerDemo(sandbox, credentials)) > 0) failed++;
		const received = sandbox.requests();
		console.log(
			`The sandbox received ${received.length} API requests; the first few, keys masked as it logs them:`,
		);
		for (const entry of received.slice(0, 4))
			console.log(`  ${entry.method} ${entry.path} → ${entry.status}  key ${entry.keyMask}`);
	} finally {
		await sandbox.stop();
	}
	if (failed) {
		console.error(`\n${failed} example workflow(s) failed`);
		process.exit(1);
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
