/**
 * What an AI agent is told about a node used as a tool.
 *
 * n8n turns every `usableAsTool` node into a tool node ("Comms Account Tool"). The model is told
 * the tool node's `toolDescription` parameter; when that is empty (or set to "Set Automatically"),
 * "<the operation's action> in <the node's default name>" instead. The schema it fills holds only
 * the parameters the workflow's author set with `$fromAI()`.
 *
 * An operation's `action` is also what the nodes panel lists and what n8n names a node added from
 * it ("Send an SMS"), so it stays short. What a model needs (each field and its format, what
 * comes back, and for sends that they reach a person and cost money) goes in a `toolDescription`
 * parameter of our own, one per operation, shown only on the tool node (`@tool`), whose default
 * is that text: the tool's panel shows it as its Description, where the workflow's author can
 * read and change it, and n8n passes it to the model. (A node that declares `toolDescription`
 * gets no "Set Automatically" selector from n8n; n8n 1.123 and 2.x read the parameter the same
 * way.) `usableAsTool.replacements` would not do: n8n applies them to the editor's copy of a tool
 * node only, not to the one it runs.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

/** For each resource, for each operation, what the model is told. */
export type ToolDescriptions = Record<string, Record<string, string>>;

/** Said of every operation that sends something. */
export const REAL_SEND =
	'Reaches a real person and costs money: call once per message, never to test.';

/** The phone-number format every operation asks for. */
export const E164 = 'E.164 (+447700900123)';

function resourceOf(property: INodeProperties): string | undefined {
	const resources = property.displayOptions?.show?.resource;
	return Array.isArray(resources) && typeof resources[0] === 'string' ? resources[0] : undefined;
}

/**
 * The node's properties with, first, a Description for the tool node of each operation that has
 * one in `texts` (the unit test names an operation without).
 */
export function withToolDescriptions(
	properties: INodeProperties[],
	texts: ToolDescriptions,
): INodeProperties[] {
	const descriptions: INodeProperties[] = [];
	for (const property of properties) {
		const resource = resourceOf(property);
		if (property.name !== 'operation' || !resource || !Array.isArray(property.options)) continue;
		for (const option of property.options as INodePropertyOptions[]) {
			const text = texts[resource]?.[String(option.value)];
			if (!text) continue;
			descriptions.push({
				displayName: 'Description',
				name: 'toolDescription',
				type: 'string',
				default: text,
				required: true,
				typeOptions: { rows: 4 },
				description:
					'What the AI agent is told this tool does and needs. The default says each field, its format and what comes back.',
				displayOptions: {
					show: { '@tool': [true], resource: [resource], operation: [option.value] },
				},
			});
		}
	}
	return [...descriptions, ...properties];
}
