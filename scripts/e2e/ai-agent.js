'use strict';
// Issue 24 in a running n8n: AI agents using the Comms tools, and SMS that waits for a person.
//
// One published workflow (one `publish:workflow`, to keep CI time small) holds several
// webhook-started chains:
//   - examples/ai-agent-texts-customer.json as it ships (AI Agent 3.1, Comms Account tools);
//   - the same with AI Agent 2.2 (which many saved workflows still use);
//   - AI Agent 3.1 and 2.2 with the Comms Unified tool (live key, Spending Cap 5p);
//   - Send and Wait for Response: Comms Account (Approval) and Comms Unified (Free Text), each
//     ending in an HTTP Request node that posts the resumed item to the collector.
// Every OpenAI Chat Model node's credential points at a scripted OpenAI-compatible model in this
// process (scripts/e2e/scripted-model.js); n8n runs as a child process, so this event loop stays
// free to answer it.

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { collectNode } = require('./collector');
const { textOf } = require('./scripted-model');
const { sleep, waitFor } = require('./live');
const { E2eError, log } = require('./proc');

const EXAMPLE = 'ai-agent-texts-customer.json';
const WORKFLOW = 'AI agents and people in the loop (issue 24)';
const CUSTOMER = '+447700900123';
const SCREENSHOTS = path.join(__dirname, '..', '..', '.e2e', 'screenshots');

function expect(condition, message, details) {
	if (!condition) throw new E2eError(message, details);
}

/** Adds `nodes` (renamed with `prefix`, new ids, moved down by `row`) and their connections. */
function addChain(workflow, nodes, connections, prefix, row) {
	const rename = (name) => `${prefix}${name}`;
	for (const node of nodes) {
		workflow.nodes.push({
			...JSON.parse(JSON.stringify(node)),
			id: crypto.randomUUID(),
			name: rename(node.name),
			position: [node.position[0], node.position[1] + row * 400],
			...(node.webhookId ? { webhookId: crypto.randomUUID() } : {}),
		});
	}
	for (const [from, outputs] of Object.entries(connections)) {
		workflow.connections[rename(from)] = Object.fromEntries(
			Object.entries(outputs).map(([type, lists]) => [
				type,
				lists.map((list) => list.map((c) => ({ ...c, node: rename(c.node) }))),
			]),
		);
	}
}

function webhookNode(name, pathName, responseMode) {
	return {
		name,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2.1,
		position: [0, 0],
		webhookId: crypto.randomUUID(),
		parameters: { httpMethod: 'POST', path: pathName, responseMode, options: {} },
	};
}

function aiScenario(repo) {
	const example = JSON.parse(fs.readFileSync(path.join(repo, 'examples', EXAMPLE), 'utf8'));
	const paths = {};

	return {
		name: 'AI Agent (3.1 and 2.2) with the Comms Account and Comms Unified tools and a scripted model; SMS Send and Wait for Response answered in the browser',
		credentials: (sandbox) => [
			{
				name: 'OpenAI (scripted)',
				type: 'openAiApi',
				data: { apiKey: 'sk-scripted-e2e', url: sandbox.model.url },
			},
			{
				name: 'Comms Account (issue 24)',
				type: 'commsAccountApi',
				data: { apiKey: sandbox.credentials.account.unrestricted, baseUrl: sandbox.accountBaseUrl },
			},
			{
				name: 'Comms Unified (issue 24, live key)',
				type: 'commsUnifiedApi',
				data: { apiKey: sandbox.credentials.unified.live, endpointUrl: sandbox.unifiedUrl },
			},
		],
		workflows: (sandbox, credentials) => {
			const ref = (name) => ({ id: credentials[name].id, name });
			const creds = {
				openAiApi: ref('OpenAI (scripted)'),
				commsAccountApi: ref('Comms Account (issue 24)'),
				commsUnifiedApi: ref('Comms Unified (issue 24, live key)'),
			};
			const withCredentials = (node) =>
				node.credentials
					? {
							...node,
							credentials: Object.fromEntries(
								Object.keys(node.credentials).map((type) => [type, creds[type]]),
							),
						}
					: node;
			const workflow = {
				name: WORKFLOW,
				nodes: [],
				connections: {},
				settings: { executionOrder: 'v1' },
				publish: true,
			};
			const exampleNodes = example.nodes.map(withCredentials);
			const trigger = exampleNodes.find((n) => n.type === 'n8n-nodes-base.webhook');

			// 1-2. The example as it ships (Agent 3.1), and the same with Agent 2.2.
			for (const [prefix, version, row] of [
				['', 3.1, 0],
				['v2.2 ', 2.2, 1],
			]) {
				const nodes = exampleNodes.map((node) => {
					if (node === trigger)
						return { ...node, parameters: { ...node.parameters, path: `ai-account-${row}` } };
					if (node.type === '@n8n/n8n-nodes-langchain.agent')
						return { ...node, typeVersion: version };
					// Agent 2.2 hands a tool's thrown error to the model as an empty string (n8n's
					// own behaviour); with On Error: Continue the node returns the error as an item,
					// which reaches the model. Agent 3.1 needs no setting.
					if (version === 2.2 && node.type.startsWith('n8n-nodes-comms-api.'))
						return { ...node, onError: 'continueRegularOutput' };
					return node;
				});
				paths[`account ${version}`] = `ai-account-${row}`;
				addChain(workflow, nodes, example.connections, prefix, row);
			}

			// 3-4. Comms Unified as the tool, live key, Spending Cap 5p (one SMS is 3p).
			const agent = exampleNodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.agent');
			const model = exampleNodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi');
			for (const [version, row] of [
				[3.1, 2],
				[2.2, 3],
			]) {
				const unifiedTool = {
					name: 'Text via Unified',
					type: 'n8n-nodes-comms-api.commsUnifiedTool',
					typeVersion: 1,
					position: [340, 220],
					parameters: {
						resource: 'sms',
						operation: 'send',
						to: "={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('To', ``, 'string') }}",
						message:
							"={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('Message', ``, 'string') }}",
						options: { spendingCapPence: 5 },
					},
					credentials: { commsUnifiedApi: creds.commsUnifiedApi },
				};
				paths[`unified ${version}`] = `ai-unified-${row}`;
				addChain(
					workflow,
					[
						webhookNode('Request', `ai-unified-${row}`, 'lastNode'),
						{ ...agent, name: 'Agent', typeVersion: version, position: [240, 0] },
						{ ...model, name: 'Model' },
						unifiedTool,
					],
					{
						Request: { main: [[{ node: 'Agent', type: 'main', index: 0 }]] },
						Model: { ai_languageModel: [[{ node: 'Agent', type: 'ai_languageModel', index: 0 }]] },
						'Text via Unified': { ai_tool: [[{ node: 'Agent', type: 'ai_tool', index: 0 }]] },
					},
					`U${version} `,
					row,
				);
			}

			// 5-6. Send and Wait for Response, resumed by a person on the linked page.
			const waits = [
				[
					'Approval (Account)',
					'wait-approval',
					{
						type: 'n8n-nodes-comms-api.commsAccount',
						parameters: {
							resource: 'sms',
							operation: 'sendAndWait',
							phoneDocId: { __rl: true, mode: 'id', value: sandbox.numbers.main },
							to: CUSTOMER,
							message: '={{ $json.body.question }}',
							responseType: 'approval',
							approvalOptions: {
								values: { approveLabel: 'Yes, book it', disapproveLabel: 'No thanks' },
							},
							options: {
								limitWaitTime: {
									values: {
										limitType: 'afterTimeInterval',
										resumeAmount: 30,
										resumeUnit: 'minutes',
									},
								},
							},
						},
						credentials: { commsAccountApi: creds.commsAccountApi },
					},
				],
				[
					'Free Text (Unified)',
					'wait-text',
					{
						type: 'n8n-nodes-comms-api.commsUnified',
						parameters: {
							resource: 'sms',
							operation: 'sendAndWait',
							to: CUSTOMER,
							message: '={{ $json.body.question }}',
							responseType: 'freeText',
							options: { spendingCapPence: 100 },
						},
						credentials: { commsUnifiedApi: creds.commsUnifiedApi },
					},
				],
				[
					// Nobody answers: n8n's wait tracker resumes it (it looks every minute).
					'Timeout (Account)',
					'wait-timeout',
					{
						type: 'n8n-nodes-comms-api.commsAccount',
						parameters: {
							resource: 'sms',
							operation: 'sendAndWait',
							phoneDocId: { __rl: true, mode: 'id', value: sandbox.numbers.main },
							to: CUSTOMER,
							message: '={{ $json.body.question }}',
							responseType: 'approval',
							options: {
								limitWaitTime: {
									values: {
										limitType: 'afterTimeInterval',
										resumeAmount: 0.05,
										resumeUnit: 'minutes',
									},
								},
							},
						},
						credentials: { commsAccountApi: creds.commsAccountApi },
					},
				],
			];
			waits.forEach(([label, pathName, node], index) => {
				paths[label] = pathName;
				addChain(
					workflow,
					[
						webhookNode('Start', pathName, 'onReceived'),
						{ name: 'Ask by SMS', typeVersion: 1, position: [240, 0], ...node },
						collectNode('Collect', sandbox.collector.url, `/${pathName}`, [480, 0]),
					],
					{
						Start: { main: [[{ node: 'Ask by SMS', type: 'main', index: 0 }]] },
						'Ask by SMS': { main: [[{ node: 'Collect', type: 'main', index: 0 }]] },
					},
					`${label} `,
					4 + index,
				);
			});
			return [workflow];
		},

		async run({ url, server: sandbox }) {
			const model = sandbox.model;
			const hook = (name) => `${url}/webhook/${paths[name]}`;
			await waitFor('the issue-24 webhooks to be registered', async () => {
				const probe = await fetch(hook('account 3.1')).catch(() => null);
				return probe && (probe.status !== 404 || /POST request/i.test(await probe.text()));
			});
			// Started first: n8n's wait tracker may take a minute to resume it, while the rest runs.
			const timeoutQuestion = `Reply by the end of the day? ${Date.now()}`;
			const started = await fetch(`${url}/webhook/${paths['Timeout (Account)']}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ question: timeoutQuestion }),
			});
			expect(started.status === 200, `the timeout chain answered ${started.status}`);
			const smsTo = (marker) =>
				sandbox
					.requests()
					.filter(
						(r) =>
							r.method === 'POST' &&
							String(JSON.stringify(r.body ?? '')).includes(marker) &&
							(r.path === '/v1/sms' || r.api === 'unified'),
					);

			async function ask(name, marker, script) {
				const prompt = `Please text our customer (${marker}). SCRIPT ${JSON.stringify(script)}`;
				const response = await fetch(hook(name), {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ prompt }),
				});
				const text = await response.text();
				expect(
					response.status === 200,
					`${name}: the workflow answered ${response.status}: ${text.slice(0, 400)}`,
				);
				const conversation = model.conversation(marker);
				expect(
					conversation.length >= 2,
					`${name}: the model was asked ${conversation.length} time(s), expected a tool call and an answer`,
					text.slice(0, 400),
				);
				const last = conversation[conversation.length - 1];
				// Each tool result as the model read it; a JSON error item's text unescaped.
				const results = last.messages
					.filter((m) => m.role === 'tool')
					.map((m) => textOf(m.content))
					.map((text) => {
						try {
							const parsed = JSON.parse(text);
							const first = Array.isArray(parsed) ? parsed[0] : parsed;
							return first && typeof first.error === 'string' ? `error: ${first.error}` : text;
						} catch {
							return text;
						}
					});
				return { answer: text, first: conversation[0], results };
			}

			function toolOf(request, namePart) {
				const tools = (request.tools || []).map((t) => t.function || t);
				const tool = tools.find((t) => t.name.includes(namePart));
				expect(
					tool,
					`the model was offered no tool named like "${namePart}" (offered: ${tools.map((t) => t.name).join(', ')})`,
				);
				return tool;
			}

			// 1. Both agent versions, both tools: one SMS each, the result in the answer, what the model saw.
			for (const [name, toolName, node] of [
				['account 3.1', 'Text_the_customer', 'Comms Account'],
				['account 2.2', 'Text_the_customer', 'Comms Account'],
				['unified 3.1', 'Text_via_Unified', 'Comms Unified'],
				['unified 2.2', 'Text_via_Unified', 'Comms Unified'],
			]) {
				const marker = `run-${name.replace(/\W/g, '')}-${Date.now()}`;
				const run = await ask(name, marker, {
					tool: toolName,
					args: { To: CUSTOMER, Message: `Your order is ready (${marker})` },
				});
				const sent = smsTo(marker);
				expect(
					sent.length === 1,
					`${name}: the sandbox got ${sent.length} SMS for the run, expected 1`,
				);
				const tool = toolOf(run.first, toolName);
				expect(
					tool.description.endsWith(` in ${node}`) &&
						/E\.164/.test(tool.description) &&
						/real person/.test(tool.description) &&
						/costs money/.test(tool.description),
					`${name}: the tool description the model got is not the agent-facing one: ${tool.description.slice(0, 300)}`,
				);
				const props = tool.parameters?.properties || {};
				expect(
					props.To?.type === 'string' &&
						props.Message?.type === 'string' &&
						JSON.stringify(tool.parameters.required?.slice().sort()) ===
							JSON.stringify(['Message', 'To']),
					`${name}: the schema the model got is ${JSON.stringify(tool.parameters)}`,
				);
				const id = name.startsWith('account')
					? /"messageId":"([^"]+)"/.exec(run.results[0] ?? '')?.[1]
					: /"message_id":"([^"]+)"/.exec(run.results[0] ?? '')?.[1];
				expect(
					id && run.answer.includes(id),
					`${name}: the agent's answer does not carry the tool result (${run.results[0]?.slice(0, 200)}): ${run.answer.slice(0, 300)}`,
				);
				log(
					`  ${name}: one SMS; the model saw "${tool.name}" (${tool.description.length} characters) with To and Message; the answer carries ${id}`,
				);
			}

			// 2. A bad number from the model: a clear tool error, nothing sent.
			const errors = {};
			for (const name of ['account 3.1', 'account 2.2', 'unified 3.1', 'unified 2.2']) {
				const marker = `bad-${name.replace(/\W/g, '')}-${Date.now()}`;
				const toolName = name.startsWith('account') ? 'Text_the_customer' : 'Text_via_Unified';
				let run;
				try {
					run = await ask(name, marker, {
						tool: toolName,
						args: { To: '12', Message: `Hello (${marker})` },
					});
				} catch (error) {
					errors[name] = `the workflow failed: ${error.message.slice(0, 200)}`;
					continue;
				}
				expect(smsTo(marker).length === 0, `${name}: a bad number reached the sandbox`);
				errors[name] = run.results[0] ?? '(no tool result)';
			}
			for (const [name, result] of Object.entries(errors))
				log(`  bad number, ${name}: the model got ${JSON.stringify(result).slice(0, 240)}`);
			for (const name of ['account 3.1', 'unified 3.1', 'account 2.2'])
				expect(
					/^error: To "12" is not a phone number/.test(errors[name]),
					`${name}: a bad number did not reach the model as a clear tool error: ${errors[name]}`,
				);
			// Agent 2.2 without On Error: Continue: n8n passes the thrown error on as an empty result.
			expect(
				errors['unified 2.2'] === '',
				`unified 2.2: n8n's Agent 2.2 no longer hides a thrown tool error (${errors['unified 2.2']}): say so in the README`,
			);

			// 3. An agent that keeps calling "send SMS": the Spending Cap stops it after one (5p cap, 3p each).
			for (const name of ['unified 3.1', 'unified 2.2']) {
				const marker = `loop-${name.replace(/\W/g, '')}-${Date.now()}`;
				let run;
				try {
					run = await ask(name, marker, {
						tool: 'Text_via_Unified',
						times: 3,
						args: { To: CUSTOMER, Message: `Again (${marker})` },
					});
				} catch (error) {
					run = { results: [], answer: error.message };
				}
				const sent = smsTo(marker);
				expect(
					sent.length === 1,
					`${name}: an agent calling the tool 3 times sent ${sent.length} SMS under a 5p cap, expected 1`,
				);
				if (name === 'unified 3.1')
					expect(
						run.results.length === 3 && run.results.slice(1).every((r) => /Spending Cap/.test(r)),
						`${name}: the refused calls did not reach the model as Spending Cap errors: ${JSON.stringify(run.results).slice(0, 400)}`,
					);
				log(
					`  ${name}: 3 calls, 1 SMS; later results: ${JSON.stringify(run.results.slice(1)).slice(0, 200)}`,
				);
			}

			// 4. Send and Wait for Response.
			await sendAndWaitChecks({ url, sandbox, hook, smsTo });

			// 5. Nobody answered within Limit Wait Time: the item says so, with the SMS that went out.
			const [timedOut] = await waitFor(
				'n8n to resume the unanswered execution after its Limit Wait Time',
				() =>
					sandbox.collector.bodies('/wait-timeout').length
						? sandbox.collector.bodies('/wait-timeout')
						: null,
				{ timeoutMs: 150000, intervalMs: 1000 },
			);
			expect(
				timedOut.timedOut === true &&
					timedOut.approved === false &&
					timedOut.responseType === 'approval' &&
					smsTo(timeoutQuestion).length === 1 &&
					String(timedOut.sms?.messageId).length > 0,
				`the timed-out item is ${JSON.stringify(timedOut)}`,
			);
			log(
				`  Limit Wait Time passed unanswered: the execution resumed with ${JSON.stringify(timedOut).slice(0, 240)}`,
			);
		},
	};
}

/** The link in an SMS the sandbox received, on the n8n address the harness uses. */
function linkIn(message, url) {
	const found = /https?:\/\/\S+\/webhook-waiting\/\S+/.exec(message);
	expect(found, `the SMS carries no answer link: ${message}`);
	const link = new URL(found[0]);
	const base = new URL(url);
	link.protocol = base.protocol;
	link.host = base.host;
	return { link: link.toString(), length: found[0].length };
}

async function sendAndWaitChecks({ url, sandbox, hook, smsTo }) {
	const { openSession } = require('./browser');
	const collected = (p) => sandbox.collector.bodies(p);
	const start = async (name, question) => {
		const response = await fetch(hook(name), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ question }),
		});
		expect(response.status === 200, `${name}: the webhook answered ${response.status}`);
		const sms = await waitFor(`${name}: the SMS`, () =>
			smsTo(question).length ? smsTo(question) : null,
		);
		expect(sms.length === 1, `${name}: ${sms.length} SMS went out, expected 1`);
		const body = sms[0].body;
		const message = body.message ?? body.data?.message;
		return { message, ...linkIn(message, url) };
	};

	const approval = await start(
		'Approval (Account)',
		`Shall we book you in for Tuesday 10:00? ${Date.now()}`,
	);
	log(
		`  approval SMS: ${[...approval.message].length} characters (the link ${approval.length}), ${Math.ceil([...approval.message].length / 160)} segments`,
	);
	// Link previews and people opening the link: a GET only shows the page.
	for (const agent of [
		'WhatsApp/2.23.20 A',
		'facebookexternalhit/1.1',
		'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)',
		'',
	]) {
		const page = await fetch(approval.link, { headers: agent ? { 'user-agent': agent } : {} });
		const html = await page.text();
		expect(
			page.status === 200 &&
				html.includes('Yes, book it') &&
				html.includes(approval.message.split('\n')[0]) &&
				html.includes('No thanks'),
			`GET of the link (user agent "${agent}") answered ${page.status}: ${html.slice(0, 300)}`,
		);
	}
	await sleep(2000);
	expect(collected('/wait-approval').length === 0, 'a GET of the link resumed the execution');
	log(
		'  4 GETs of the link (link previews, a phone, no user agent): the page, and the execution still waits',
	);

	const session = await openSession({
		screenshotsDir: SCREENSHOTS,
		deadlineMs: 3 * 60 * 1000,
		viewport: { width: 390, height: 844 },
	});
	try {
		await session.step('open the approval link and press "Yes, book it"', async (page) => {
			await page.goto(approval.link);
			await session.snapshot('the approval page on a phone');
			await page.getByRole('button', { name: 'Yes, book it' }).click();
			await page.getByText('your answer was recorded').waitFor();
		});
		const [approved] = await waitFor('the approval to resume the execution', () =>
			collected('/wait-approval').length ? collected('/wait-approval') : null,
		);
		expect(
			approved.approved === true &&
				approved.timedOut === false &&
				!Number.isNaN(Date.parse(approved.respondedAt)),
			`the resumed item is ${JSON.stringify(approved)}`,
		);
		log(`  Approve in the browser: the execution resumed with ${JSON.stringify(approved)}`);
		await session.step('open the used link again: it says no action is required', async (page) => {
			await page.goto(approval.link);
			await page.waitForLoadState();
			const text = await page.locator('body').innerText();
			if (/Yes, book it/.test(text))
				throw new E2eError(`the used link still offers the buttons: ${text.slice(0, 200)}`);
		});
		expect(collected('/wait-approval').length === 1, 'the used link resumed the execution again');

		const free = await start(
			'Free Text (Unified)',
			`What time suits you on Tuesday? ${Date.now()}`,
		);
		await session.step(
			'open the free-text link: the question; type an answer and send it',
			async (page) => {
				await page.goto(free.link);
				await page.getByText(free.message.split('\n')[0]).waitFor();
				await page.getByLabel('Your answer').fill('After 2pm please');
				await page.getByRole('button', { name: 'Send' }).click();
				await page.getByText('your answer was recorded').waitFor();
			},
		);
		const [answered] = await waitFor('the free-text answer to resume the execution', () =>
			collected('/wait-text').length ? collected('/wait-text') : null,
		);
		expect(
			answered.text === 'After 2pm please' && answered.responseType === 'freeText',
			`the resumed item is ${JSON.stringify(answered)}`,
		);
		log(`  Free Text in the browser: the execution resumed with ${JSON.stringify(answered)}`);
	} finally {
		await session.close();
	}
}

module.exports = { aiScenario };
