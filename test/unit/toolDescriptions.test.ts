/**
 * What an AI agent is told about each operation, computed the way n8n 2.41 does it at run time:
 * the tool is the node itself (n8n's NodeTypes clones it; `usableAsTool.replacements` reach only
 * the editor), and the automatic Tool Description is n8n-workflow's own `getToolDescriptionForNode`.
 */
import type {
	INode,
	INodeProperties,
	INodePropertyOptions,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { CommsAccount } from '../../nodes/CommsAccount/CommsAccount.node';
import { CommsUnified } from '../../nodes/CommsUnified/CommsUnified.node';

// n8n-core's exports of this deep module type the schema loosely; required with the shape read here.
const { getSchema } =
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
	require('n8n-core/dist/execution-engine/node-execution-context/utils/create-node-as-tool') as {
		getSchema(node: INode): {
			shape: Record<string, { _def: { typeName: string; description?: string } }>;
		};
	};

function operationsOf(description: INodeTypeDescription): Array<[string, INodePropertyOptions]> {
	return description.properties
		.filter((p: INodeProperties) => p.name === 'operation')
		.flatMap((p) =>
			(p.options as INodePropertyOptions[]).map((o): [string, INodePropertyOptions] => [
				String(p.displayOptions?.show?.resource?.[0]),
				o,
			]),
		);
}

function node(type: string, parameters: Record<string, unknown>): INode {
	return {
		id: 'tool',
		name: 'Comms',
		type,
		typeVersion: 1,
		position: [0, 0],
		parameters: { descriptionType: 'auto', ...parameters },
	} as INode;
}

const SENDS = new Set([
	'call.create',
	'sms.send',
	'sms.sendAndWait',
	'voice.makeCall',
	'email.send',
]);
const PHONE = new Set(['call.create', 'sms.send', 'sms.sendAndWait', 'voice.makeCall']);

describe.each([
	['Comms Account', new CommsAccount().description],
	['Comms Unified', new CommsUnified().description],
])('%s used as a tool', (name, description) => {
	const cases = operationsOf(description).map(([resource, option]) => [
		`${resource}.${String(option.value)}`,
		resource,
		option,
	]) as Array<[string, string, INodePropertyOptions]>;

	it.each(cases)(
		'%s: the automatic description tells the model what it needs',
		(key, resource, option) => {
			const text = NodeHelpers.getToolDescriptionForNode(
				node(`n8n-nodes-comms-api.${description.name}Tool`, { resource, operation: option.value }),
				{ description } as never,
			);
			// n8n's form: "<action> in <node name>"; ours is written for a model, not the nodes panel.
			expect(text.endsWith(` in ${name}`)).toBe(true);
			expect(text.length).toBeGreaterThan(120);
			// OpenAI's limit on a function description.
			expect(text.length).toBeLessThan(1024);
			if (SENDS.has(key)) {
				expect(text).toMatch(/real person/);
				expect(text).toMatch(/costs money/);
				expect(text).toMatch(/Returns /);
			} else {
				expect(text).toMatch(/Free|Sends nothing/);
			}
			if (PHONE.has(key)) expect(text).toMatch(/E\.164.*\+447700900123/);
		},
	);

	it('each action starts with the short name the nodes panel shows, then a colon', () => {
		for (const [, option] of operationsOf(description))
			expect(option.action).toMatch(/^[A-Z][a-zA-Z ]{5,40}: /);
	});
});

it("the schema the model fills is the workflow's $fromAI() fields, with their types and descriptions", () => {
	const schema = getSchema(
		node('n8n-nodes-comms-api.commsAccountTool', {
			resource: 'sms',
			operation: 'send',
			to: "={{ $fromAI('To', 'The customer phone number in E.164 form', 'string') }}",
			message: "={{ $fromAI('Message', 'The text to send', 'string') }}",
		}),
	);
	expect(Object.keys(schema.shape).sort()).toEqual(['Message', 'To']);
	expect(schema.shape.To._def.typeName).toBe('ZodString');
	expect(schema.shape.To._def.description).toBe('The customer phone number in E.164 form');
});
