/**
 * What an AI agent is told about each operation, computed the way n8n does it at run time: the
 * tool is a clone of the node named "<name>Tool" (`usableAsTool.replacements` reach only the
 * editor), its parameters get their defaults as n8n's Workflow gives them (`@tool` true), and the
 * description is n8n-workflow's own `getToolDescriptionForNode`. And what a person sees: the
 * nodes panel's actions and the name n8n gives a node added from one stay short.
 */
import type {
	INode,
	INodeProperties,
	INodePropertyOptions,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeHelpers } from 'n8n-workflow';

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
		parameters,
	} as INode;
}

/** The tool n8n makes of a node (its name ends in "Tool", which `@tool` display options test). */
function toolOf(description: INodeTypeDescription): INodeTypeDescription {
	return {
		...description,
		name: `${description.name}Tool`,
		displayName: `${description.displayName} Tool`,
		inputs: [],
		outputs: [NodeConnectionTypes.AiTool],
	};
}

/** A tool node's parameters as n8n's Workflow holds them at run time: the defaults filled in. */
function withDefaults(
	tool: INodeTypeDescription,
	parameters: Record<string, unknown>,
): INode['parameters'] {
	const base = node(`n8n-nodes-comms-api.${tool.name}`, parameters);
	return NodeHelpers.getNodeParameters(
		tool.properties,
		base.parameters,
		true,
		false,
		base,
		tool,
	) as INode['parameters'];
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
		'%s: the tool description tells the model what it needs',
		(key, resource, option) => {
			const tool = toolOf(description);
			const parameters = withDefaults(tool, { resource, operation: option.value });
			const text = NodeHelpers.getToolDescriptionForNode(
				node(`n8n-nodes-comms-api.${tool.name}`, parameters),
				{ description: tool } as never,
			);
			// The operation's own text, starting with its short name, not n8n's "<action> in <node>".
			expect(text.startsWith(`${option.action}: `)).toBe(true);
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
			// A workflow author's own Description replaces it.
			const own = NodeHelpers.getToolDescriptionForNode(
				node(`n8n-nodes-comms-api.${tool.name}`, {
					...parameters,
					toolDescription: 'Text the customer',
				}),
				{ description: tool } as never,
			);
			expect(own).toBe('Text the customer');
		},
	);

	it('shows the Description on the tool node only', () => {
		const [resource, option] = operationsOf(description)[0];
		const plain = withDefaults(description, { resource, operation: option.value });
		expect(plain.toolDescription).toBeUndefined();
		const tool = withDefaults(toolOf(description), { resource, operation: option.value });
		expect(String(tool.toolDescription)).toMatch(/^[A-Z]/);
	});

	it('names a node added from the nodes panel after its short action', () => {
		for (const [resource, option] of operationsOf(description)) {
			expect(option.action).toMatch(/^[A-Z][a-zA-Z ]{5,40}$/);
			const parameters = { resource, operation: option.value };
			expect(NodeHelpers.makeNodeName(parameters, description)).toBe(option.action);
			expect(NodeHelpers.makeNodeName(parameters, toolOf(description))).toBe(
				`${option.action} in ${name}`,
			);
		}
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
