/**
 * A workflow saved by n8n before the nodes moved into one folder per API (issue 39) still loads
 * and runs: fixtures/saved-workflow-2026-11.json, committed as n8n's editor saves it, holds all
 * four nodes with their type names, versions, parameters and credential names as they were. The
 * node types come from package.json's `n8n.nodes`, as n8n loads them; each chain runs through
 * n8n's engine against the sandbox (the Account Trigger's manual poll, and the Unified Trigger
 * receiving the sandbox's own signed event over HTTP).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { NodeHelpers, type INode } from 'n8n-workflow';

import { HarnessNodeTypes, runWorkflow, WebhookHarness, type WorkflowJson } from '../../harness';
import { forgetCredentials } from '../../nodes/CommsUnified/trigger/credentialCache';
import { TEST_NUMBERS, UNIFIED_KEYS } from '../../sandbox';
import { accountCredentials, unifiedApi, unifiedCredentials, useSandbox } from '../support/sandbox';

// The Unified Trigger keeps the credential it verified with for a minute: its timer must not outlive the file.
afterAll(forgetCredentials);

const saved = JSON.parse(
	fs.readFileSync(path.join(__dirname, 'fixtures', 'saved-workflow-2026-11.json'), 'utf8'),
) as WorkflowJson;

it('every node of the saved workflow is a type and version the package registers, its parameters without issues', () => {
	const types = new HarnessNodeTypes();
	expect(saved.nodes.map((node) => node.type).sort()).toEqual([
		'n8n-nodes-comms-api.commsAccount',
		'n8n-nodes-comms-api.commsAccountTrigger',
		'n8n-nodes-comms-api.commsUnified',
		'n8n-nodes-comms-api.commsUnifiedTrigger',
	]);
	for (const node of saved.nodes) {
		const { description } = types.getByNameAndVersion(node.type, node.typeVersion);
		expect(`${description.name}@${String(description.version)}`).toBe(
			`${node.type.split('.')[1]}@${node.typeVersion}`,
		);
		expect(Object.keys(node.credentials ?? {})).toEqual(
			(description.credentials ?? []).map((credential) => credential.name),
		);
		const issues = NodeHelpers.getNodeParametersIssues(
			description.properties,
			node as unknown as INode,
			description,
		);
		expect({ node: node.name, issues }).toEqual({ node: node.name, issues: null });
	}
});

describe('the Account chain: the trigger polls, and Reply answers each inbound SMS', () => {
	const sandbox = useSandbox();

	it('runs without an error, each node producing items', async () => {
		const result = await runWorkflow(saved, {
			startNode: 'When an SMS arrives',
			credentials: accountCredentials(sandbox()),
		});
		expect(result.error).toBeUndefined();
		const inbound = result.output('When an SMS arrives');
		expect(inbound.length).toBeGreaterThan(0);
		expect(result.output('Reply')).toHaveLength(inbound.length);
		for (const item of result.output('Reply')) expect(item.json.messageId).toBeDefined();
	});
});

describe("the Unified chain: the sandbox's signed event starts it, and Text the team sends an SMS", () => {
	const sandbox = useSandbox({ frozenClock: true });

	it('the event reaches the workflow and the SMS is sent', async () => {
		const h = new WebhookHarness(saved, {
			nodeName: 'When a Unified event arrives',
			credentials: unifiedCredentials(sandbox(), UNIFIED_KEYS.test),
		});
		const server = await h.listen();
		try {
			sandbox().control.setEventsWebhookUrl(server.productionUrl);
			const sent = await unifiedApi(sandbox(), UNIFIED_KEYS.test)('sms', 'send', {
				to: TEST_NUMBERS.customer,
				message: 'Hi',
			});
			expect(sent.status).toBe(200);
			await sandbox().control.advanceClock(600);
			expect(
				sandbox()
					.control.deliveries()
					.map((d) => d.responseStatus),
			).toEqual([200]);
			const runs = await h.executions();
			expect(runs).toHaveLength(1);
			expect(runs[0].error).toBeUndefined();
			expect(runs[0].output('When a Unified event arrives')[0].json.event).toBe('sms.delivered');
			const texted = runs[0].output('Text the team');
			expect(texted).toHaveLength(1);
			expect(texted[0].json).toMatchObject({ status: expect.any(String) });
		} finally {
			await server.close();
		}
	});
});
