#!/usr/bin/env node
'use strict';
// Real n8n, end to end (`npm run test:e2e`).
//
// 1. Ensures n8n 2.41.1 and Node.js 24 are installed in a cache outside the
//    repository (${XDG_CACHE_HOME:-~/.cache}/n8n-nodes-comms-api/n8n-2.41.1;
//    about 3 GB and several minutes the first time, reused afterwards).
// 2. `npm pack`s this package (built already: `npm run build`) and installs the
//    tarball into a fresh n8n user folder the way n8n installs community packages.
// 3. Starts the project's sandbox (build/sandbox/index.js) in this process.
// 4. Imports a Comms Account credential pointing at the sandbox and the example
//    workflow examples/account-send-sms.json, runs `n8n execute --rawOutput`, and
//    checks the output and the sandbox's request log.
// 5. Publishes the trigger workflows and starts `n8n start` (loopback only) for the
//    live scenarios: the SMS trigger polling the sandbox, the webhook trigger taking
//    the sandbox's signed events, and the editor in headless Chromium
//    (scripts/e2e/editor.js: sign-in form, nodes panel and icons, credential form and
//    test, From list, Execute step, canvas, triggers). A failed browser step leaves a
//    screenshot and the page's HTML in .e2e/screenshots/.
// 6. Prints `e2e: N passed, N failed` last and exits non-zero on any failure.
//
// Environment:
//   N8N_E2E_CACHE_DIR          where n8n is installed (default above)
//   N8N_E2E_REINSTALL=1        install n8n again even if the cache is complete
//   E2E_TIMEOUT_MS             limit for everything after the install (default 15 min)
//   N8N_E2E_COMMAND_TIMEOUT_MS limit for one n8n command (default 3 min)
//   E2E_VERBOSE=1              echo n8n's own output
//   E2E_N8N_LOG_LEVEL          n8n's log level (default info; below info, `execute` prints no result)
//   E2E_KEEP=1                 keep the temp folder (n8n user folder, tarball) for a look
//   E2E_ONLY=<regexp>          run only the live scenarios whose name matches (say "editor")
//   E2E_SCREENSHOTS=all        keep a screenshot of every browser step, not only of a failure
//   CHROMIUM_PATH              another Chromium than /usr/bin/chromium
//
// The generic machinery lives in scripts/e2e/; this file holds only what is
// specific to n8n-nodes-comms-api, as a suite (see runSuite in scripts/e2e/harness.js).

const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const harness = require('./e2e/harness');
const { collectNode, startCollector } = require('./e2e/collector');
const { unifiedSendSmsScenario } = require('./e2e/unified-scenario');
const { aiScenario } = require('./e2e/ai-agent');
const { startScriptedModel } = require('./e2e/scripted-model');
const { lifecycleScenario } = require('./e2e/account-trigger-lifecycle');
const { retryOnFailScenario } = require('./e2e/retry-on-fail-scenario');
const { sleep, waitFor } = require('./e2e/live');
const { ensureN8n } = require('./e2e/n8n-install');
const { E2eError, log } = require('./e2e/proc');

const REPO = path.resolve(__dirname, '..');
const ACCOUNT_NODE_TYPE = 'n8n-nodes-comms-api.commsAccount';
const ACCOUNT_CREDENTIAL_TYPE = 'commsAccountApi';
const RUN_TIMEOUT_MS = Number(process.env.E2E_TIMEOUT_MS) || 15 * 60 * 1000;
const MIN_NODE_MAJOR = 24;
/** An ordinary customer in the sandbox (TEST_NUMBERS.customer). */
const TEST_NUMBER = '+447700900123';

// ---------------------------------------------------------------------------
// Helpers any suite can use on a workflow or a request log.
// ---------------------------------------------------------------------------

/**
 * Points every node's credential of a known type at the imported credential.
 * Nodes of `nodeTypes` that name no credential get one (an example exported
 * from a fresh n8n may carry none). Pinned data is dropped: a pinned node would
 * not call the API, and the point is that it does.
 */
function attachCredentials(workflow, credentialsByType, nodeTypes = {}) {
	const copy = JSON.parse(JSON.stringify(workflow));
	delete copy.pinData;
	delete copy.id;
	copy.active = false;
	for (const node of copy.nodes || []) {
		const wanted = nodeTypes[node.type];
		if (wanted && !(node.credentials && node.credentials[wanted])) {
			node.credentials = { ...(node.credentials || {}), [wanted]: {} };
		}
		for (const type of Object.keys(node.credentials || {})) {
			const credential = credentialsByType[type];
			if (!credential) {
				throw new E2eError(
					`node "${node.name}" uses a ${type} credential, which this e2e run does not import`,
				);
			}
			node.credentials[type] = { id: credential.id, name: credential.name };
		}
	}
	return copy;
}

/**
 * One entry of a request log, in a common shape: { method, path, status, error,
 * headers, keyMask }. Accepts the usual spellings (path/pathname/url,
 * status/statusCode) so the check does not depend on the log's exact field names.
 * The project's sandbox logs no headers, only the key it saw, masked
 * (`keyMask`: first 8 and last 4 characters).
 */
function normaliseRequest(entry) {
	const raw = entry.path ?? entry.pathname ?? entry.url ?? '';
	const pathOnly = String(raw)
		.replace(/^[a-z]+:\/\/[^/]+/i, '')
		.split('?')[0];
	const headers = {};
	for (const [key, value] of Object.entries(entry.headers || entry.request?.headers || {})) {
		headers[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
	}
	const status =
		entry.status ?? entry.statusCode ?? entry.response?.status ?? entry.response?.statusCode;
	return {
		method: String(entry.method || '').toUpperCase(),
		path: pathOnly,
		status,
		error: entry.error ?? null,
		headers,
		keyMask: typeof entry.keyMask === 'string' ? entry.keyMask : null,
	};
}

/** Throws with `message` unless `condition` holds. */
function expect(condition, message, details) {
	if (!condition) throw new E2eError(message, details);
}

// ---------------------------------------------------------------------------
// The Comms Account suite.
// ---------------------------------------------------------------------------

/** Loads the compiled sandbox, whether it compiles to CommonJS or to an ES module. */
async function loadSandbox(file) {
	try {
		return require(file);
	} catch (error) {
		if (error.code !== 'ERR_REQUIRE_ESM' && error.code !== 'ERR_REQUIRE_ASYNC_MODULE') throw error;
		return import(pathToFileURL(file).href);
	}
}

/** Checks the run of examples/account-send-sms.json against the sandbox. */
async function checkAccountSendSms(view) {
	const sandbox = view.server;
	const apiKey = sandbox.credentials.account.unrestricted;
	const accountNodes = view.workflow.nodes.filter((node) => node.type === ACCOUNT_NODE_TYPE);
	expect(accountNodes.length > 0, `the example workflow has no ${ACCOUNT_NODE_TYPE} node`);

	// Every Comms Account node ran, without error, and produced items.
	const outputs = {};
	for (const node of accountNodes) {
		const items = view.items(node.name);
		expect(items.length > 0, `node "${node.name}" produced no items`);
		const failed = items.find((item) => item && item.error !== undefined);
		expect(!failed, `node "${node.name}" returned an error item: ${JSON.stringify(failed)}`);
		outputs[node.name] = items;
		log(
			`  ${node.name}: ${items.length} item(s), first: ${JSON.stringify(items[0]).slice(0, 200)}`,
		);
	}
	// The numbers list went through n8n: the sandbox's main number is in some output.
	const allOutput = JSON.stringify(outputs);
	expect(
		allOutput.includes(sandbox.numbers.main),
		`no node output mentions the sandbox's main number ${sandbox.numbers.main}`,
	);
	// The key never leaks into anything n8n stores or shows.
	expect(!JSON.stringify(view.run).includes(apiKey), 'the API key appears in the execution output');

	// The sandbox saw the requests, with the key n8n decrypted from the credential.
	const logEntries = await sandbox.requests();
	expect(
		Array.isArray(logEntries),
		`sandbox.requests() returned ${typeof logEntries}, expected an array`,
	);
	const requests = logEntries.map(normaliseRequest);
	const shape = `first log entry: ${JSON.stringify(logEntries[0])}`.slice(0, 600);
	const find = (method, pattern) =>
		requests.filter((r) => r.method === method && pattern.test(r.path));
	const numbersCalls = find('GET', /\/v1\/numbers$/);
	const smsCalls = find('POST', /\/v1\/sms$/);
	expect(
		numbersCalls.length > 0,
		`the sandbox logged no GET /v1/numbers (${requests.length} requests logged)`,
		shape,
	);
	expect(
		smsCalls.length > 0,
		`the sandbox logged no POST /v1/sms (${requests.length} requests logged)`,
		shape,
	);
	for (const request of [...numbersCalls, ...smsCalls]) {
		const where = `${request.method} ${request.path}`;
		if (Object.keys(request.headers).length > 0) {
			// A log with headers: the Account key travels in exactly one of Authorization: Bearer and X-API-Key.
			const viaBearer = request.headers.authorization === `Bearer ${apiKey}`;
			const viaHeader = request.headers['x-api-key'] === apiKey;
			expect(
				viaBearer !== viaHeader,
				`${where} did not carry the credential's key in exactly one header (headers: ${Object.keys(request.headers).join(', ')})`,
			);
		} else {
			// The sandbox's log: the key it read from the Authorization (or X-API-Key) header, masked.
			const mask = request.keyMask;
			expect(
				mask !== null && mask.startsWith(apiKey.slice(0, 8)) && mask.endsWith(apiKey.slice(-4)),
				`${where} did not arrive with the credential's key (the sandbox saw ${mask === null ? 'no key' : mask})`,
				shape,
			);
		}
		expect(request.error === null, `${where} failed at the sandbox with ${request.error}`);
		if (request.status !== undefined) {
			expect(
				request.status >= 200 && request.status < 300,
				`${where} got HTTP ${request.status} from the sandbox`,
			);
		}
	}
	log(
		`  sandbox saw ${numbersCalls.length} GET /v1/numbers and ${smsCalls.length} POST /v1/sms, each with the key`,
	);
}

// ---------------------------------------------------------------------------
// Live scenarios: published workflows in a running n8n (`n8n start`).
// ---------------------------------------------------------------------------

const SMS_TRIGGER_TYPE = 'n8n-nodes-comms-api.commsAccountTrigger';
const UNIFIED_TRIGGER_TYPE = 'n8n-nodes-comms-api.commsUnifiedTrigger';
const UNIFIED_EVENTS = [
	'call.completed',
	'call.failed',
	'sms.delivered',
	'sms.failed',
	'email.delivered',
	'email.bounced',
];

/** Trigger -> HTTP Request node that posts every item to the collector under `path`. */
function triggerWorkflow(name, trigger, collectorUrl, path) {
	return {
		name,
		nodes: [{ position: [0, 0], ...trigger }, collectNode('Collect', collectorUrl, path, [260, 0])],
		connections: { [trigger.name]: { main: [[{ node: 'Collect', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
		publish: true,
	};
}

function smsPolls(sandbox) {
	return sandbox
		.requests()
		.filter((r) => r.method === 'GET' && r.path === '/v1/sms' && r.query.direction === 'received');
}

/**
 * Comms Account Trigger, published: history from before activation never reaches the
 * workflow; SMS arriving afterwards each reach it exactly once, over more than one poll.
 */
const smsTriggerScenario = {
	name: 'Comms Account Trigger in a running n8n: each new SMS starts the workflow once, history does not',
	credentials: (sandbox) => [
		{
			name: 'Comms Account (live)',
			type: ACCOUNT_CREDENTIAL_TYPE,
			data: { apiKey: sandbox.credentials.account.unrestricted, baseUrl: sandbox.accountBaseUrl },
		},
	],
	workflows: (sandbox, credentials) => {
		// History that must not flood the workflow on activation.
		sandbox.control.injectInboundSms({
			from: '+447700900777',
			body: 'Before activation',
			count: 3,
		});
		return [
			triggerWorkflow(
				'SMS trigger (live)',
				{
					id: 'sms-trigger',
					name: 'On SMS',
					type: SMS_TRIGGER_TYPE,
					typeVersion: 1,
					parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, options: {} },
					credentials: {
						commsAccountApi: {
							id: credentials['Comms Account (live)'].id,
							name: 'Comms Account (live)',
						},
					},
				},
				sandbox.collector.url,
				'/sms',
			),
		];
	},
	async run({ server: sandbox }) {
		// Activation polls once to set the cursor at "now".
		await waitFor("the SMS trigger's first poll", () => smsPolls(sandbox).length >= 1, {
			timeoutMs: 120000,
		});
		await sleep(1500);
		const sent = sandbox.control.injectInboundSms({
			from: '+447700900778',
			body: 'After activation',
			count: 3,
			intervalSeconds: 1,
		});
		const ids = sent.map((m) => m.id);
		const polls = smsPolls(sandbox).length;
		log(`  injected ${ids.length} SMS; waiting for the next poll (at most a minute)`);
		const delivered = await waitFor(
			'the new SMS to reach the workflow',
			() =>
				sandbox.collector.bodies('/sms').length >= ids.length
					? sandbox.collector.bodies('/sms')
					: null,
			{ timeoutMs: 150000 },
		);
		// One more poll after delivery must bring nothing twice.
		const pollsAfter = smsPolls(sandbox).length;
		await waitFor('one more poll', () => smsPolls(sandbox).length > pollsAfter, {
			timeoutMs: 150000,
		});
		await sleep(3000);
		const bodies = sandbox.collector.bodies('/sms');
		const got = bodies.map((b) => b.id);
		expect(
			JSON.stringify([...got].sort()) === JSON.stringify([...ids].sort()),
			`the workflow received ${JSON.stringify(got)}, expected each of ${JSON.stringify(ids)} once`,
		);
		expect(
			!bodies.some(
				(b) => b.body === 'Before activation' || String(b.body).startsWith('Before activation'),
			),
			'history from before activation reached the workflow',
		);
		expect(
			delivered.every((b) => b.direction === 'received'),
			'an item that is not a received SMS reached the workflow',
		);
		log(
			`  ${got.length} SMS reached the workflow once each over ${smsPolls(sandbox).length - polls + 1} polls; none of the 3 from before activation`,
		);
	},
};

function sign(body, secret) {
	return crypto.createHmac('sha256', secret).update(body).digest('hex');
}

async function post(url, body, headers = {}) {
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body,
	});
	return { status: response.status, text: await response.text() };
}

/**
 * Comms Unified Trigger, published: the sandbox's own signed call.completed starts the
 * workflow; forged, altered, re-serialised and stale events get 401 and start nothing; a
 * repeat inside the replay window, even three copies at once, starts it once.
 */
const webhookTriggerScenario = {
	name: 'Comms Unified Trigger in a running n8n: signed events start the workflow once, forged ones get 401',
	credentials: (sandbox) => [
		{
			name: 'Comms Unified (live)',
			type: 'commsUnifiedApi',
			data: {
				apiKey: sandbox.credentials.unified.test,
				endpointUrl: sandbox.unifiedUrl,
				webhookSecret: sandbox.credentials.webhookSecret,
			},
		},
	],
	workflows: (sandbox, credentials) => {
		const webhookId = crypto.randomUUID();
		sandbox.liveWebhookId = webhookId;
		return [
			triggerWorkflow(
				'Webhook trigger (live)',
				{
					id: 'webhook-trigger',
					name: 'On event',
					type: UNIFIED_TRIGGER_TYPE,
					typeVersion: 1,
					webhookId,
					// Replay protection at its default (on, one hour), as a user gets it.
					parameters: { events: UNIFIED_EVENTS, options: {} },
					credentials: {
						commsUnifiedApi: {
							id: credentials['Comms Unified (live)'].id,
							name: 'Comms Unified (live)',
						},
					},
				},
				sandbox.collector.url,
				'/events',
			),
		];
	},
	async run({ url, server: sandbox }) {
		const hook = `${url}/webhook/${sandbox.liveWebhookId}/webhook`;
		const secret = sandbox.credentials.webhookSecret;
		const events = () => sandbox.collector.bodies('/events');
		// A GET to a registered POST-only production webhook answers "Did you mean to make a POST request?".
		await waitFor('the production webhook to be registered', async () => {
			const probe = await fetch(hook).catch(() => null);
			return probe && (probe.status !== 404 || /POST request/i.test(await probe.text()));
		});

		// 1. The sandbox places a voice call whose webhook_url is the trigger; its signed call.completed arrives.
		const made = await post(
			sandbox.unifiedUrl,
			JSON.stringify({
				api_key: sandbox.credentials.unified.test,
				service: 'voice',
				action: 'make_call',
				data: { to: TEST_NUMBER, message: 'Hello from the e2e run', webhook_url: hook },
			}),
		);
		expect(
			made.status === 200,
			`voice/make_call answered ${made.status}: ${made.text.slice(0, 200)}`,
		);
		await sandbox.control.advanceClock(600);
		const deliveries = await sandbox.control.flushWebhooks();
		const delivery = deliveries.find((d) => d.url === hook && d.event === 'call.completed');
		expect(
			delivery,
			`the sandbox delivered no call.completed to the trigger (deliveries: ${JSON.stringify(deliveries.map((d) => [d.event, d.responseStatus]))})`,
		);
		expect(
			delivery.responseStatus === 200,
			`the trigger answered the sandbox's signed event with ${delivery.responseStatus}`,
		);
		await waitFor('the call.completed execution', () => events().length >= 1);
		expect(
			events()[0].event === 'call.completed',
			`the workflow got ${JSON.stringify(events()[0]).slice(0, 200)}`,
		);

		// 2. The same delivery again: 200, nothing new.
		const repeat = await post(hook, delivery.body, delivery.headers);
		expect(repeat.status === 200, `a repeat delivery answered ${repeat.status}`);

		// 3. Forged, altered, unsigned, re-serialised: 401.
		const altered = delivery.body.replace(
			/"duration":\s*(\d+)/,
			(_, d) => `"duration":${Number(d) + 1}`,
		);
		expect(altered !== delivery.body, 'could not alter the delivered body');
		const refusals = [
			['a body changed by one value', altered, delivery.headers],
			['no signature', delivery.body, {}],
			['re-serialised JSON', JSON.stringify(JSON.parse(delivery.body), null, 2), delivery.headers],
			[
				'a wrong signature',
				delivery.body,
				{ 'x-signature': sign(delivery.body, 'not-the-secret') },
			],
		];
		for (const [what, body, headers] of refusals) {
			const answer = await post(hook, body, headers);
			expect(answer.status === 401, `${what}: answered ${answer.status}, expected 401`);
			expect(
				!answer.text.includes(secret) && !answer.text.includes(sign(body, secret)),
				`${what}: the answer shows the secret or the expected signature`,
			);
		}

		// 4. Stale: a signed event two hours old is outside the replay window.
		const stale = JSON.stringify({
			event: 'sms.delivered',
			timestamp: new Date(Date.now() - 2 * 3600_000).toISOString(),
			data: { message_id: 'sms_e2e_stale', to: TEST_NUMBER },
		});
		expect(
			(await post(hook, stale, { 'x-signature': sign(stale, secret) })).status === 401,
			'a stale event was not refused with 401',
		);

		// 5. Three copies of a fresh signed event at the same moment (sha256= prefix): one execution.
		const fresh = JSON.stringify({
			event: 'sms.delivered',
			timestamp: new Date().toISOString(),
			data: { message_id: 'sms_e2e_fresh', to: TEST_NUMBER },
		});
		const answers = await Promise.all(
			[1, 2, 3].map(() => post(hook, fresh, { 'x-signature': `sha256=${sign(fresh, secret)}` })),
		);
		expect(
			answers.every((a) => a.status === 200),
			`simultaneous copies answered ${answers.map((a) => a.status).join(', ')}`,
		);
		await waitFor('the sms.delivered execution', () => events().length >= 2);
		await sleep(3000);
		const got = events().map((e) => e.event);
		expect(
			JSON.stringify(got) === JSON.stringify(['call.completed', 'sms.delivered']),
			`the workflow ran for ${JSON.stringify(got)}, expected call.completed and sms.delivered once each`,
		);
		log(
			`  signed events ran once each (${got.join(', ')}); 5 forged, altered or stale events got 401`,
		);
	},
};

/**
 * Every node of the package, read from the built files named in package.json's `n8n` field,
 * as n8n reads them: [{ displayName, type, version, description }].
 */
const UNIFIED_NODE = 'n8n-nodes-comms-api.commsUnified';

/** The Comms Unified node's voices, as its own description names them, for the browser to find. */
function voiceCheck(nodes) {
	const node = nodes.find((n) => n.type === UNIFIED_NODE);
	const voice = node?.description.properties.find((p) => p.name === 'voice');
	if (!node || !voice) return undefined;
	return { type: node.type, name: node.displayName, options: voice.options.map((o) => o.name) };
}

function packageNodes(repo) {
	const { name, n8n } = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));
	return n8n.nodes.map((entry) => {
		const exported = require(path.join(repo, entry));
		const Node = Object.values(exported).find((value) => typeof value === 'function');
		if (!Node) throw new E2eError(`${entry} exports no node class`);
		const description = new Node().description;
		const versions = [].concat(description.defaultVersion ?? description.version ?? 1);
		return {
			displayName: description.displayName,
			type: `${name}.${description.name}`,
			version: Math.max(...versions),
			description,
		};
	});
}

/** The display texts of Comms Account's SMS Send (action, resource, operation, number field), from its description. */
function sendSmsTexts(nodes) {
	const node = nodes.find((n) => n.type === ACCOUNT_NODE_TYPE);
	if (!node) throw new E2eError(`the package has no ${ACCOUNT_NODE_TYPE} node`);
	const { properties } = node.description;
	const shownFor = (property, resource, operation) => {
		const show = property.displayOptions?.show || {};
		return (
			(!show.resource || show.resource.includes(resource)) &&
			(!operation || !show.operation || show.operation.includes(operation))
		);
	};
	const resource = properties
		.find((p) => p.name === 'resource')
		.options.find((o) => o.value === 'sms');
	const operation = properties
		.find((p) => p.name === 'operation' && shownFor(p, 'sms'))
		.options.find((o) => o.value === 'send');
	const locator = properties.find(
		(p) =>
			p.type === 'resourceLocator' &&
			p.displayOptions?.show?.operation &&
			shownFor(p, 'sms', 'send'),
	);
	if (!resource || !operation || !locator)
		throw new E2eError(`${ACCOUNT_NODE_TYPE}: no SMS Send with a number list in its description`);
	const sendAndWait = properties
		.find((p) => p.name === 'operation' && shownFor(p, 'sms'))
		.options.find((o) => o.value === 'sendAndWait');
	return {
		node: node.displayName,
		action: operation.action || `${operation.name} ${resource.name}`,
		sendAndWaitAction: sendAndWait?.action,
		resource: resource.name,
		operation: operation.name,
		locator: locator.displayName,
		locatorName: locator.name,
	};
}

/** What a trigger's node editor must show: a polling trigger n8n's Poll Times; a notice of ours, its first sentence. */
function triggerShows(node) {
	const shows = [];
	if (node.description.polling) shows.push('Poll Times');
	const notice = node.description.properties.find((p) => p.type === 'notice' && !p.displayOptions);
	if (notice)
		shows.push(
			notice.displayName
				.replace(/<[^>]+>/g, '')
				.split(/[.:]/)[0]
				.trim(),
		);
	return shows;
}

/** The editor in headless Chromium, as a new user meets it (scripts/e2e/editor.js). */
function editorScenario(repo) {
	const CANVAS = 'Every node of the package (editor check)';
	return {
		name: 'The editor in a real browser: nodes panel and icons, credential form, From list, Execute step, canvas, triggers',
		// One of every node on a canvas, to see each icon there (not published).
		workflows: () => {
			const nodes = packageNodes(repo);
			return [
				{
					name: CANVAS,
					nodes: nodes.map((node, index) => ({
						id: crypto.randomUUID(),
						name: node.displayName,
						type: node.type,
						typeVersion: node.version,
						position: [index * 240, 0],
						// The Unified node opens on Voice, Make a Call: the browser reads its Voice list.
						parameters:
							node.type === UNIFIED_NODE ? { resource: 'voice', operation: 'makeCall' } : {},
						...(node.description.webhooks ? { webhookId: crypto.randomUUID() } : {}),
					})),
					connections: {},
					settings: { executionOrder: 'v1' },
				},
			];
		},
		async run({ url, server: sandbox, workflows, allWorkflows, packageName }) {
			const { runEditorChecks } = require('./e2e/editor');
			const nodes = packageNodes(repo);
			const triggers = [];
			const published = [
				[SMS_TRIGGER_TYPE, allWorkflows['SMS trigger (live)']],
				[UNIFIED_TRIGGER_TYPE, allWorkflows['Webhook trigger (live)']],
			];
			for (const [type, workflow] of published) {
				const node = nodes.find((n) => n.type === type);
				if (!node || !workflow) continue;
				// A webhook trigger's node editor shows its production URL (the one to give the API);
				// the host part is n8n's own idea of its address (WEBHOOK_URL, else localhost), so
				// only the path is checked.
				const webhookId = workflow.nodes.find((n) => n.type === type).webhookId;
				const webhookUrl = node.description.webhooks
					? `/webhook/${webhookId}/${node.description.webhooks[0].path}`
					: undefined;
				triggers.push({
					name: node.displayName,
					type,
					workflowId: workflow.id,
					shows: triggerShows(node),
					webhookUrl,
				});
			}
			await runEditorChecks({
				url,
				packageName,
				nodes,
				sendSms: sendSmsTexts(nodes),
				sandbox,
				canvas: { workflowId: workflows[CANVAS].id },
				voices: voiceCheck(nodes),
				triggers,
			});
		},
	};
}

/**
 * The suite `npm run test:e2e` runs: this package, the sandbox, the Account
 * example. `repo` is the package's directory (another one only to test this file).
 */
function commsSuite({ repo = REPO } = {}) {
	const EXAMPLE_WORKFLOW = path.join(repo, 'examples', 'account-send-sms.json');
	const SANDBOX_MODULE = path.join(repo, 'build', 'sandbox', 'index.js');
	return {
		packageDir: repo,
		preflight() {
			const missing = [];
			if (!fs.existsSync(path.join(repo, 'dist'))) missing.push('dist/ (run `npm run build`)');
			if (!fs.existsSync(SANDBOX_MODULE))
				missing.push('build/sandbox/index.js (the compiled sandbox; run `npm run build`)');
			if (!fs.existsSync(EXAMPLE_WORKFLOW))
				missing.push('examples/account-send-sms.json (the example workflow)');
			if (missing.length > 0) {
				throw new E2eError(`cannot run the real-n8n test, missing:\n  - ${missing.join('\n  - ')}`);
			}
		},
		async startServer() {
			const { startSandbox } = await loadSandbox(SANDBOX_MODULE);
			if (typeof startSandbox !== 'function')
				throw new E2eError(`${SANDBOX_MODULE} does not export startSandbox()`);
			// autoSettleMs: webhooks go out and calls move on while nobody calls the API, as in life.
			const sandbox = await startSandbox({ port: 0, autoSettleMs: 1000 });
			sandbox.collector = await startCollector();
			// The OpenAI-compatible model the AI Agent scenarios' Chat Model nodes talk to.
			sandbox.model = await startScriptedModel();
			const stopSandbox = sandbox.stop.bind(sandbox);
			sandbox.stop = async () => {
				await sandbox.collector.stop();
				await sandbox.model.stop();
				await stopSandbox();
			};
			for (const field of ['accountBaseUrl', 'stop', 'requests']) {
				if (!sandbox[field]) throw new E2eError(`startSandbox() resolved without "${field}"`);
			}
			if (!sandbox.credentials?.account?.unrestricted)
				throw new E2eError('startSandbox() resolved without credentials.account.unrestricted');
			if (!sandbox.numbers?.main)
				throw new E2eError('startSandbox() resolved without numbers.main');
			return sandbox;
		},
		scenarios: [
			{
				name: 'examples/account-send-sms.json (Comms Account: numbers getAll, sms send, against the sandbox)',
				credentials: (sandbox) => [
					{
						name: 'Comms Account (e2e sandbox)',
						type: ACCOUNT_CREDENTIAL_TYPE,
						data: {
							apiKey: sandbox.credentials.account.unrestricted,
							baseUrl: sandbox.accountBaseUrl,
						},
					},
				],
				workflow: (sandbox, credentialsByType) =>
					attachCredentials(
						JSON.parse(fs.readFileSync(EXAMPLE_WORKFLOW, 'utf8')),
						credentialsByType,
						{
							[ACCOUNT_NODE_TYPE]: ACCOUNT_CREDENTIAL_TYPE,
						},
					),
				check: checkAccountSendSms,
			},
			unifiedSendSmsScenario(repo, attachCredentials),
			retryOnFailScenario(attachCredentials),
		],
		// E2E_ONLY=<regular expression>: run only the live scenarios whose name matches (for work on one).
		liveScenarios: [
			smsTriggerScenario,
			lifecycleScenario('default'),
			lifecycleScenario('durable'),
			webhookTriggerScenario,
			editorScenario(repo),
			aiScenario(repo),
		].filter((s) => !process.env.E2E_ONLY || new RegExp(process.env.E2E_ONLY, 'i').test(s.name)),
	};
}

// ---------------------------------------------------------------------------
// Command line.
// ---------------------------------------------------------------------------

/** Prints the summary line the CI parser reads: `e2e: N passed, N failed`, alone on a line. */
function summary(passed, failed) {
	process.stdout.write(`e2e: ${passed} passed, ${failed} failed\n`);
}

/**
 * The sandbox runs in this process and the package targets Node.js 24; on an
 * older Node.js, install n8n (which brings Node.js 24) and run again on it.
 */
async function reexecOnNode24IfNeeded() {
	const major = Number(process.versions.node.split('.')[0]);
	if (major >= MIN_NODE_MAJOR || process.env.E2E_REEXEC === '1') return false;
	const n8n = await ensureN8n();
	log(`this is Node.js ${process.versions.node}; running again on ${n8n.node}`);
	// Re-run the entry script (this file, or a driver that called main() with its own suite).
	const child = spawn(n8n.node, [...process.execArgv, ...process.argv.slice(1)], {
		stdio: 'inherit',
		env: {
			...process.env,
			E2E_REEXEC: '1',
			PATH: `${n8n.nodeBinDir}${path.delimiter}${process.env.PATH}`,
		},
	});
	// From here on the child reports; this process only passes signals on and exits with it.
	process.removeAllListeners('SIGINT');
	process.removeAllListeners('SIGTERM');
	process.removeAllListeners('SIGHUP');
	const forward = (signal) => child.kill(signal);
	process.on('SIGINT', forward);
	process.on('SIGTERM', forward);
	process.on('SIGHUP', forward);
	child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
	return true;
}

async function main(suite = commsSuite()) {
	const total = suite.scenarios.length + (suite.liveScenarios || []).length;
	const onSignal = (signal) => {
		log(`${signal}: stopping`);
		harness.abortCurrent();
		summary(0, total);
		process.exit(130);
	};
	process.on('SIGINT', onSignal);
	process.on('SIGTERM', onSignal);
	process.on('SIGHUP', onSignal);
	// A closed stdout/stderr (say `| head`) must end the run cleanly, not crash it
	// half-way with n8n still running.
	for (const stream of [process.stdout, process.stderr]) {
		stream.on('error', () => {
			harness.abortCurrent();
			process.exit(1);
		});
	}
	try {
		if (suite.preflight) await suite.preflight();
		if (await reexecOnNode24IfNeeded()) return;
		const { passed, failed } = await harness.runSuite(suite, {
			timeoutMs: RUN_TIMEOUT_MS,
			onTimeout: () => {
				process.stderr.write(`e2e: timed out after ${Math.round(RUN_TIMEOUT_MS / 1000)}s\n`);
				summary(0, total);
				process.exit(1);
			},
		});
		summary(passed, failed);
		// Exit explicitly: a keep-alive socket left open must not hold the run open.
		process.exit(failed === 0 && passed === total ? 0 : 1);
	} catch (error) {
		process.stderr.write(`e2e: ${error.message}\n`);
		if (error.details) process.stderr.write(`${error.details}\n`);
		else if (!(error instanceof E2eError)) process.stderr.write(`${error.stack}\n`);
		summary(0, total);
		process.exit(1);
	}
}

module.exports = { attachCredentials, commsSuite, main, normaliseRequest, ...harness };

if (require.main === module) main();
