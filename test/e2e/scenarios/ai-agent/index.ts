// In a running n8n: AI agents using the Comms tools, and SMS that waits for a person.
// Every OpenAI Chat Model node's credential points at a scripted OpenAI-compatible model in this
// process (rig/scripted-model.ts); n8n runs as a child process, so this event loop stays free to
// answer it. The checks, in order:
//   1. both agent versions with both tools: one SMS each, the tool result in the answer, and the
//      tool description and schema the model was given;
//   2. a bad number from the model: a clear tool error, nothing sent;
//   3. an agent that keeps calling "send SMS": the Spending Cap stops it after one;
//   4. Send and Wait for Response answered in the browser (send-and-wait.ts);
//   5. nobody answers within Limit Wait Time: the item says so.

import fs from 'node:fs';
import path from 'node:path';
import { accountCredential, expect, sandboxOf } from '../../comms.ts';
import { waitFor, waitForProductionWebhook } from '../../rig/n8n-server.ts';
import { log } from '../../rig/proc.ts';
import type { LiveScenario } from '../../rig/live-scenarios.ts';
import type { N8nProfile } from '../../rig/n8n-versions.ts';
import type { Workflow } from '../../rig/types.ts';
import { agentToolChecks } from './agent-tools.ts';
import { sendAndWaitChecks } from './send-and-wait.ts';
import { aiWorkflow, type ChainPaths } from './workflow.ts';

const EXAMPLE = 'ai-agent-texts-customer.json';

/** `has`: what the n8n has (its profile's): its newest AI Agent version, how it hands tool errors. */
export function aiScenario(repo: string, has: N8nProfile['has']): LiveScenario {
	const newest = has.agentVersion;
	const example: Workflow = JSON.parse(
		fs.readFileSync(path.join(repo, 'examples', EXAMPLE), 'utf8'),
	);
	const paths: ChainPaths = {};

	return {
		name: `AI Agent (${newest} and 2.2) with the Comms Account and Comms Unified tools and a scripted model; SMS Send and Wait for Response answered in the browser`,
		credentials: (server) => {
			const sandbox = sandboxOf(server);
			return [
				{
					name: 'OpenAI (scripted)',
					type: 'openAiApi',
					data: { apiKey: 'sk-scripted-e2e', url: sandbox.model.url },
				},
				accountCredential(sandbox, 'Comms Account (AI agents)'),
				{
					name: 'Comms Unified (AI agents, live key)',
					type: 'commsUnifiedApi',
					data: { apiKey: sandbox.credentials.unified.live, endpointUrl: sandbox.unifiedUrl },
				},
			];
		},
		workflows: (server, credentials) => [
			aiWorkflow(example, sandboxOf(server), credentials, paths, newest),
		],

		async run({ url, server }) {
			const sandbox = sandboxOf(server);
			const model = sandbox.model;
			const hook = (name: string) => `${url}/webhook/${paths[name]}`;
			await waitForProductionWebhook(hook(`account ${newest}`));
			// Started first: n8n's wait tracker may take a minute to resume it, while the rest runs.
			const timeoutQuestion = `Reply by the end of the day? ${Date.now()}`;
			const started = await fetch(`${url}/webhook/${paths['Timeout (Account)']}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ question: timeoutQuestion }),
			});
			expect(started.status === 200, `the timeout chain answered ${started.status}`);
			const smsTo = (marker: string) =>
				sandbox
					.requests()
					.filter(
						(r) =>
							r.method === 'POST' &&
							String(JSON.stringify(r.body ?? '')).includes(marker) &&
							(r.path === '/v1/sms' || r.api === 'unified'),
					);

			// 1-3. The agents and their tools.
			await agentToolChecks(model, hook, smsTo, has);

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
