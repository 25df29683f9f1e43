/**
 * Every workflow in examples/ runs through n8n's engine against the sandbox without an
 * error, so the examples users import (and the demo and end-to-end run) stay valid.
 *
 * An AI-agent example needs n8n's AI nodes, which this engine run does not have: it is run in a
 * real n8n by the end-to-end test (test/e2e/scenarios/ai-agent/, with a scripted model). Here its
 * Comms tools are checked the way n8n builds them: each is a tool copy of one of our nodes with
 * an operation that exists, and its $fromAI() fields make a valid tool schema.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { INode, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { runWorkflow, type WorkflowJson } from '../../harness';
import { CommsAccount } from '../../nodes/CommsAccount/CommsAccount.node';
import { CommsUnified } from '../../nodes/CommsUnified/CommsUnified.node';
import { accountCredentials, unifiedCredentials, useSandbox } from '../support/sandbox';

// n8n-core's exports of this deep module type the schema loosely; required with the shape read here.
const { getSchema } =
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
	require('n8n-core/dist/execution-engine/node-execution-context/utils/create-node-as-tool') as {
		getSchema(node: INode): { shape: Record<string, unknown> };
	};

const sandbox = useSandbox();
const dir = path.join(__dirname, '..', '..', 'examples');
const files = fs.readdirSync(dir).filter((file) => file.endsWith('.json'));
const read = (file: string) =>
	JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as WorkflowJson;
const isAgentExample = (file: string) =>
	read(file).nodes.some((node) => node.type.startsWith('@n8n/n8n-nodes-langchain.'));

it('there are examples', () => expect(files.length).toBeGreaterThan(0));

it.each(files.filter((file) => !isAgentExample(file)))(
	'examples/%s runs without an error and every node produces items',
	async (file) => {
		const workflow = read(file);
		const result = await runWorkflow(workflow, {
			credentials: {
				...accountCredentials(sandbox()),
				...unifiedCredentials(sandbox(), sandbox().credentials.unified.test),
			},
		});
		expect(result.error).toBeUndefined();
		for (const node of workflow.nodes) expect(result.output(node.name).length).toBeGreaterThan(0);
	},
);

const tools: Record<string, { properties: INodeProperties[] }> = {
	'n8n-nodes-comms-api.commsAccountTool': new CommsAccount().description,
	'n8n-nodes-comms-api.commsUnifiedTool': new CommsUnified().description,
};

it.each(files.filter(isAgentExample))(
	'examples/%s: every Comms tool is an operation of ours and its $fromAI() fields make a tool schema',
	(file) => {
		const toolNodes = read(file).nodes.filter((node) =>
			node.type.startsWith('n8n-nodes-comms-api.'),
		);
		expect(toolNodes.length).toBeGreaterThan(0);
		for (const node of toolNodes) {
			const description = tools[node.type];
			expect(description).toBeDefined();
			const { resource, operation } = node.parameters as { resource: string; operation: string };
			const operations = description.properties.find(
				(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource),
			);
			expect((operations?.options as INodePropertyOptions[]).map((o) => o.value)).toContain(
				operation,
			);
			const schema = getSchema(node as unknown as INode);
			expect(Object.keys(schema.shape).length).toBeGreaterThan(0);
		}
	},
);
