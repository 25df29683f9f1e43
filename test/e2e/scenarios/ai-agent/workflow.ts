// The one published workflow of the AI scenario (one `publish:workflow`, to keep CI time small):
// webhook-started chains, each on its own row of the canvas:
//   - examples/ai-agent-texts-customer.json (Comms Account tools) with the newest AI Agent the
//     n8n has (3.1 in n8n 2.41; the example ships with 3, which every supported n8n has);
//   - the same with AI Agent 2.2 (which many saved workflows still use);
//   - both agent versions with the Comms Unified tool (live key, Spending Cap 5p);
//   - Send and Wait for Response: Comms Account (Approval), Comms Unified (Free Text) and one
//     nobody answers, each ending in an HTTP Request node that posts the resumed item to the
//     collector (see waits.ts).

import crypto from 'node:crypto';
import type { CommsSandbox } from '../../comms.ts';
import type { CredentialRef, Json, Workflow, WorkflowNode } from '../../rig/types.ts';
import { waitChains } from './waits.ts';

export const WORKFLOW = 'AI agents and people in the loop';
export const CUSTOMER = '+447700900123';

/** Webhook path of each chain, by the name the checks use ('account 3.1', 'Timeout (Account)', ...). */
export type ChainPaths = Record<string, string>;

/** Adds `nodes` (renamed with `prefix`, new ids, moved down by `row`) and their connections. */
export function addChain(
	workflow: Workflow,
	nodes: WorkflowNode[],
	connections: Record<string, Json>,
	prefix: string,
	row: number,
): void {
	const rename = (name: string) => `${prefix}${name}`;
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
				(lists as Json[][]).map((list) => list.map((c: Json) => ({ ...c, node: rename(c.node) }))),
			]),
		);
	}
}

export function webhookNode(name: string, pathName: string, responseMode: string): WorkflowNode {
	return {
		name,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2.1,
		position: [0, 0],
		webhookId: crypto.randomUUID(),
		parameters: { httpMethod: 'POST', path: pathName, responseMode, options: {} },
	};
}

/** The workflow, with `paths` filled in for each chain; `newest`: the newest AI Agent version. */
export function aiWorkflow(
	example: Workflow,
	sandbox: CommsSandbox,
	credentials: Record<string, CredentialRef>,
	paths: ChainPaths,
	newest: number,
): Workflow {
	const ref = (name: string): CredentialRef => ({ id: credentials[name].id, name });
	const creds: Record<string, CredentialRef> = {
		openAiApi: ref('OpenAI (scripted)'),
		commsAccountApi: ref('Comms Account (AI agents)'),
		commsUnifiedApi: ref('Comms Unified (AI agents, live key)'),
	};
	const withCredentials = (node: WorkflowNode): WorkflowNode =>
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

	// 1-2. The example with the newest agent, and the same with Agent 2.2.
	for (const [prefix, version, row] of [
		['', newest, 0],
		['v2.2 ', 2.2, 1],
	] as [string, number, number][]) {
		const nodes = exampleNodes.map((node): WorkflowNode => {
			if (node === trigger)
				return { ...node, parameters: { ...node.parameters, path: `ai-account-${row}` } };
			if (node.type === '@n8n/n8n-nodes-langchain.agent') return { ...node, typeVersion: version };
			// Agent 2.2 hands a tool's thrown error to the model as an empty string (n8n's
			// own behaviour); with On Error: Continue the node returns the error as an item,
			// which reaches the model. Agent 3 and 3.1 need no setting.
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
		[newest, 2],
		[2.2, 3],
	] as [number, number][]) {
		const unifiedTool: WorkflowNode = {
			name: 'Text via Unified',
			type: 'n8n-nodes-comms-api.commsUnifiedTool',
			typeVersion: 1,
			position: [340, 220],
			parameters: {
				resource: 'sms',
				operation: 'send',
				to: "={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('To', ``, 'string') }}",
				message: "={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('Message', ``, 'string') }}",
				options: { spendingCapPence: 5 },
			},
			credentials: { commsUnifiedApi: creds.commsUnifiedApi },
		};
		paths[`unified ${version}`] = `ai-unified-${row}`;
		addChain(
			workflow,
			[
				webhookNode('Request', `ai-unified-${row}`, 'lastNode'),
				{ ...agent!, name: 'Agent', typeVersion: version, position: [240, 0] },
				{ ...model!, name: 'Model' },
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

	waitChains(workflow, sandbox, creds, paths);
	return workflow;
}
