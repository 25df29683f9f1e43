// The Spending Cap across a Wait that parks the execution, for the e2e run (with an n8n restart
// while it waits: scenarios/execution-state.ts) and the queue run (resumed by the other worker:
// queue/cap-across-wait.ts). The workflow is the one users build: Webhook -> two Comms Unified SMS
// under a 9p cap -> Wait 70 s (n8n parks waits of 65 s or more in its database) -> two more SMS
// under the same cap, then each item to the collector. 3p an SMS: three go, the fourth is refused
// with "Spent so far in this execution: 9p". The execution's spend lives in the data n8n saves
// with the parked execution; kept in process memory, it started again from 0 and all four went.

import crypto from 'node:crypto';
import { type CommsSandbox, UNIFIED_NODE } from './comms.ts';
import { collectNode } from './rig/collector.ts';
import type { CredentialInput, CredentialRef, Json, Workflow } from './rig/types.ts';

export const WAIT_SECONDS = 70;
const CAP_PENCE = 9;

/** A Comms Unified credential with the sandbox's live key: the cap counts only what costs. */
export function liveUnifiedCredential(sandbox: CommsSandbox, name: string): CredentialInput {
	return {
		name,
		type: 'commsUnifiedApi',
		data: { apiKey: sandbox.credentials.unified.live, endpointUrl: sandbox.unifiedUrl },
	};
}

/** The workflow; each SMS's text carries the execution id and its place ("cap-wait <id> before 1"). */
export function capAcrossWaitWorkflow(
	name: string,
	hookPath: string,
	credential: CredentialRef,
	collectorUrl: string,
	collectPath: string,
): Workflow {
	const sms = (nodeName: string, when: string, x: number) => ({
		id: crypto.randomUUID(),
		name: nodeName,
		type: UNIFIED_NODE,
		typeVersion: 1,
		position: [x, 0] as [number, number],
		parameters: {
			resource: 'sms',
			operation: 'send',
			to: '={{ $json.to }}',
			message: `={{ "cap-wait " + $execution.id + " ${when} " + $itemIndex }}`,
			options: { spendingCapPence: CAP_PENCE },
		},
		credentials: { commsUnifiedApi: credential },
	});
	const code = ["return ['+447700900123', '+447700900124'].map((to) => ({ json: { to } }));"].join(
		'\n',
	);
	const collect = collectNode('Collect', collectorUrl, collectPath, [1100, 0]);
	collect.id = crypto.randomUUID();
	const nodes = [
		{
			id: crypto.randomUUID(),
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0] as [number, number],
			webhookId: crypto.randomUUID(),
			parameters: { httpMethod: 'POST', path: hookPath, responseMode: 'onReceived', options: {} },
		},
		{
			id: crypto.randomUUID(),
			name: 'Two recipients',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: [220, 0] as [number, number],
			parameters: { jsCode: code },
		},
		sms('SMS before', 'before', 440),
		{
			id: crypto.randomUUID(),
			name: 'Wait',
			type: 'n8n-nodes-base.wait',
			typeVersion: 1.1,
			position: [660, 0] as [number, number],
			webhookId: crypto.randomUUID(),
			parameters: { resume: 'timeInterval', amount: WAIT_SECONDS, unit: 'seconds' },
		},
		// Each item goes on to the collector, the refused one as an error item. The SMS result
		// carries `to`, so the same expression reads each recipient.
		{ ...sms('SMS after', 'after', 880), onError: 'continueRegularOutput' },
		collect,
	];
	return inLine(name, nodes);
}

/** A workflow of `nodes`, each feeding the next. */
export function inLine(name: string, nodes: Workflow['nodes']): Workflow {
	const chain = nodes.map((n) => n.name);
	return {
		name,
		nodes,
		connections: Object.fromEntries(
			chain
				.slice(0, -1)
				.map((from, i) => [from, { main: [[{ node: chain[i + 1], type: 'main', index: 0 }]] }]),
		),
		settings: { executionOrder: 'v1' },
	};
}

/** What went wrong, in words (empty when three SMS went and the fourth was refused by the cap). */
export function capAcrossWaitProblems(
	sandbox: CommsSandbox,
	executionId: string,
	collected: Json[],
): string[] {
	const problems: string[] = [];
	const sent = sandbox
		.requests()
		.filter(
			(entry) =>
				entry.api === 'unified' &&
				entry.method === 'POST' &&
				entry.status === 200 &&
				String((entry.body as Json)?.data?.message ?? '').startsWith(`cap-wait ${executionId} `),
		)
		.map((entry) => String((entry.body as Json).data.message));
	if (sent.length !== 3)
		problems.push(
			`${sent.length} SMS went (${JSON.stringify(sent)}), expected 3 under a ${CAP_PENCE}p cap`,
		);
	const refused = collected.filter((body) => typeof body?.error === 'string');
	const expected =
		/^Spending Cap: this SMS would cost 3p and take this execution's spend to 12p, above the cap of 9p\. It was not sent\.$/;
	if (
		refused.length !== 1 ||
		!expected.test(refused[0].error) ||
		!/^Spent so far in this execution: 9p\./.test(String(refused[0].description)) ||
		refused[0].outcome !== 'notSent'
	)
		problems.push(`the items after the wait were ${JSON.stringify(collected)}`);
	return problems;
}
