/**
 * A node used as an AI agent's tool, retried: n8n's Retry On Fail on the tool node, and a model
 * that asks for the same thing again. Both ways an agent calls a tool run here through n8n-core's
 * own machinery (test/support/agents.ts): like AI Agent 3 (the engine runs the tool as a node; its
 * tries share a run index, each call of the model has an id of its own) and like AI Agent 2.2
 * (`getInputConnectionData`; each try runs at the next run index). Either way an SMS whose outcome
 * is unknown is sent once, and a call with other arguments is a new item.
 */
import type { IDataObject, INode } from 'n8n-workflow';

import { CREDENTIAL_REFS, runWorkflow, START, type WorkflowJson } from '../../harness';
import { CommsUnified } from '../../nodes/CommsUnified/CommsUnified.node';
import { TEST_NUMBERS } from '../../sandbox';
import { asTool, ConnectionAgent, EngineAgent, type ScriptedCalls } from '../support/agents';
import { useFaultyProxy } from '../support/faultyProxy';
import { useSandbox } from '../support/sandbox';

const sandbox = useSandbox();
const proxy = useFaultyProxy(() => sandbox().url);

const unifiedPath = () => new URL(sandbox().unifiedUrl).pathname;
const nodeTypes = {
	'n8n-nodes-comms-api.commsUnifiedTool': asTool(new CommsUnified()),
	'test.engineAgent': new EngineAgent(),
	'test.connectionAgent': new ConnectionAgent(),
};

type AgentKind = 'engine' | 'connection';

function agentWorkflow(kind: AgentKind, script: ScriptedCalls, retryOnFail: boolean): WorkflowJson {
	const agent: INode = {
		id: 'agent',
		name: 'Agent',
		type: `test.${kind}Agent`,
		typeVersion: 1,
		position: [200, 0],
		parameters: { tool: 'Text', script: JSON.stringify(script) },
	};
	const tool: INode = {
		id: 'tool',
		name: 'Text',
		type: 'n8n-nodes-comms-api.commsUnifiedTool',
		typeVersion: 1,
		position: [200, 200],
		parameters: {
			resource: 'sms',
			operation: 'send',
			to: "={{ $fromAI('To', 'the recipient', 'string') }}",
			message: "={{ $fromAI('Message', 'the text', 'string') }}",
		},
		credentials: CREDENTIAL_REFS,
		...(retryOnFail ? { retryOnFail: true, maxTries: 3, waitBetweenTries: 10 } : {}),
	};
	return {
		nodes: [START, agent, tool],
		connections: {
			Start: { main: [[{ node: 'Agent', type: 'main', index: 0 }]] },
			Text: { ai_tool: [[{ node: 'Agent', type: 'ai_tool', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

const run = (kind: AgentKind, script: ScriptedCalls, retryOnFail = false) =>
	runWorkflow(agentWorkflow(kind, script, retryOnFail), {
		credentials: {
			commsUnifiedApi: {
				apiKey: sandbox().credentials.unified.live,
				endpointUrl: `${proxy().url}${unifiedPath()}`,
			},
		},
		nodeTypes,
	});

const posts = () => proxy().log.filter((entry) => entry.method === 'POST');
const sentTo = () =>
	sandbox()
		.requests()
		.filter((entry) => entry.api === 'unified' && entry.method === 'POST' && entry.status === 200)
		.map((entry) => (entry.body as { data: IDataObject }).data);

const CALL = { To: TEST_NUMBERS.customer, Message: 'Your order is ready' };

describe.each<[AgentKind, string]>([
	['engine', 'like AI Agent 3 (the engine runs the tool)'],
	['connection', 'like AI Agent 2.2 (getInputConnectionData)'],
])('a Comms Unified tool called by an agent %s', (kind, how) => {
	it(`${how}: Retry On Fail (Max Tries 3) after an SMS whose outcome is unknown sends it once`, async () => {
		proxy().inject('POST', unifiedPath(), 'gatewayAfter');
		const result = await run(kind, [[CALL]], true);
		expect(result.error).toBeUndefined();
		// n8n's tries: at one run index when the engine runs the tool, at the next each time when
		// the agent invokes it; the same arguments either way.
		expect(result.run.data.resultData.runData.Text).toHaveLength(kind === 'engine' ? 1 : 3);
		expect(posts()).toHaveLength(1);
		expect(sentTo()).toHaveLength(1);
	});

	it(`${how}: the model asking again with the same arguments right after gets the same answer, and nothing is sent again; other arguments are sent`, async () => {
		proxy().inject('POST', unifiedPath(), 'gatewayAfter');
		const other = { To: '+447700900124', Message: 'Your order is ready' };
		const result = await run(kind, [[CALL], [CALL], [other]]);
		expect(result.error).toBeUndefined();
		expect(sentTo().map((data) => data.to)).toEqual([TEST_NUMBERS.customer, other.To]);
		expect(posts()).toHaveLength(2);
	});
});
