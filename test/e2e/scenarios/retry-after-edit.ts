// The editor's Retry after an edit, in the real n8n: a published workflow Webhook -> Code (two
// people) -> Comms Unified Voice Make a Call under a 100p Spending Cap -> each item to the
// collector. The first call goes (a call counts 70p) and the second is refused by the cap, so the
// execution fails with "Raise Spending Cap (Pence)". The user does that: the cap is raised to
// 200p, the workflow saved, and the failed execution retried with the currently saved workflow
// (what the editor's Retry does: POST /rest/executions/:id/retry with { loadWorkflow: true }).
// The first person is not rung again and the second is: one call to each, as the sandbox's log
// says, and the retried execution's first item says it was carried out earlier. The Message names
// the execution, so it evaluates differently in the retry too. When the memory of what was carried
// out was keyed on the evaluated request (the cap in it), the first person was rung twice and the
// second refused at 210p.

import crypto from 'node:crypto';
import { expect, sandboxOf, UNIFIED_NODE } from '../comms.ts';
import { inLine, liveUnifiedCredential } from '../cap-across-wait.ts';
import { collectNode } from '../rig/collector.ts';
import { E2eError, log } from '../rig/proc.ts';
import type { LiveScenario } from '../rig/live-scenarios.ts';
import { ownerSession, waitFor, waitForProductionWebhook } from '../rig/n8n-server.ts';
import type { CredentialRef, Json, Workflow } from '../rig/types.ts';

const HOOK = 'retry-after-edit';
const COLLECT = '/retry-after-edit';
/** Two people nothing else in the run calls. */
const PEOPLE = ['+447700900731', '+447700900732'];

function workflow(credential: CredentialRef, collectorUrl: string, capPence: number): Workflow {
	const collect = collectNode('Collect', collectorUrl, COLLECT, [660, 0]);
	const nodes = [
		{
			id: 'retry-edit-webhook',
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0] as [number, number],
			webhookId: crypto.randomUUID(),
			parameters: { httpMethod: 'POST', path: HOOK, responseMode: 'onReceived', options: {} },
		},
		{
			id: 'retry-edit-people',
			name: 'Two people',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: [220, 0] as [number, number],
			parameters: {
				jsCode: `return ${JSON.stringify(PEOPLE)}.map((to) => ({ json: { to } }));`,
			},
		},
		{
			id: 'retry-edit-call',
			name: 'Call',
			type: UNIFIED_NODE,
			typeVersion: 1,
			position: [440, 0] as [number, number],
			parameters: {
				resource: 'voice',
				operation: 'makeCall',
				to: '={{ $json.to }}',
				message: '=Your delivery is tomorrow at 10:00 (execution {{ $execution.id }})',
				options: { spendingCapPence: capPence },
			},
			credentials: { commsUnifiedApi: credential },
		},
		collect,
	];
	return inLine('e2e: the editor Retry after raising the Spending Cap', nodes);
}

export const retryAfterEditScenario: LiveScenario = {
	name: "The editor's Retry after raising the Spending Cap (voice, 2 items, 100p then 200p): one call to each person",
	async run({ url, server }) {
		const sandbox = sandboxOf(server);
		const session = await ownerSession(url);
		const credential = await session.post(
			'/rest/credentials',
			liveUnifiedCredential(sandbox, 'Comms Unified (live, retry after edit)'),
		);
		const ref = { id: credential.id, name: credential.name };
		const created = await session.post(
			'/rest/workflows',
			workflow(ref, sandbox.collector.url, 100),
		);
		await session.post(`/rest/workflows/${created.id}/activate`, {
			versionId: created.versionId,
		});
		await waitForProductionWebhook(`${url}/webhook/${HOOK}`);
		const calls = () =>
			sandbox
				.requests()
				.filter(
					(entry) =>
						entry.api === 'unified' &&
						entry.method === 'POST' &&
						entry.status === 200 &&
						PEOPLE.includes(String((entry.body as Json)?.data?.to)),
				)
				.map((entry) => String((entry.body as Json).data.to));

		const started = await fetch(`${url}/webhook/${HOOK}`, { method: 'POST' });
		expect(started.ok, `the webhook answered ${started.status}`);
		const failed = await waitFor(
			'the execution to fail at the Spending Cap',
			async () => {
				const list = await session.get('/rest/executions?limit=50');
				return (list.results ?? list).find(
					(e: Json) => e.workflowId === created.id && e.status === 'error',
				);
			},
			{ timeoutMs: 60_000, intervalMs: 1000 },
		);
		expect(
			JSON.stringify(calls()) === JSON.stringify([PEOPLE[0]]),
			`before the retry the sandbox placed ${JSON.stringify(calls())}, expected one call to ${PEOPLE[0]}`,
		);

		// What the node's error asks for: raise the cap, save the workflow.
		const edited = workflow(ref, sandbox.collector.url, 200);
		const saved = await fetch(`${url}/rest/workflows/${created.id}`, {
			method: 'PATCH',
			headers: { 'content-type': 'application/json', cookie: session.cookie },
			body: JSON.stringify({
				nodes: edited.nodes.map((node, i) => ({ ...node, webhookId: created.nodes[i]?.webhookId })),
				connections: edited.connections,
				versionId: created.versionId,
			}),
		});
		if (!saved.ok)
			throw new E2eError(
				`saving the workflow answered ${saved.status}: ${(await saved.text()).slice(0, 300)}`,
			);

		// The editor's "Retry with currently saved workflow".
		const retried = await session.post(`/rest/executions/${failed.id}/retry`, {
			loadWorkflow: true,
		});
		const finished = await waitFor(
			'the retried execution to finish',
			async () => {
				const execution = await session.get(`/rest/executions/${retried.id}`);
				return ['success', 'error', 'crashed'].includes(execution.status) ? execution : null;
			},
			{ timeoutMs: 60_000, intervalMs: 1000 },
		);
		const placed = calls();
		const items = sandbox.collector.bodies(COLLECT);
		expect(
			finished.status === 'success' &&
				placed.length === 2 &&
				placed[0] === PEOPLE[0] &&
				placed[1] === PEOPLE[1],
			`the retried execution ${retried.id} ended ${finished.status}; the sandbox placed ${placed.length} calls in all (${JSON.stringify(placed)}), expected one to each person`,
		);
		expect(
			items.length === 2 &&
				items[0].carriedOutEarlier === true &&
				items[0].to === PEOPLE[0] &&
				items[1].carriedOutEarlier === undefined &&
				items[1].to === PEOPLE[1],
			`the retried execution's items were ${JSON.stringify(items).slice(0, 600)}`,
		);
		log(
			`  execution ${failed.id} failed at the cap; retried with the cap raised (${retried.id}): 2 calls in all, one to each person, item 1 carried out earlier`,
		);
	},
};
