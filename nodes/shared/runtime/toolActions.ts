/**
 * What an AI agent is told about a node used as a tool.
 *
 * n8n (2.41) turns every `usableAsTool` node into a tool node ("Comms Account Tool"). With the
 * Tool Description left on "Set Automatically" (the default), the model is told
 * "<the chosen operation's `action`> in <the node's default name>"; the schema it fills holds
 * only the parameters the workflow's author set with `$fromAI()`, under the keys and
 * descriptions written there (the editor's "let the model define this" button writes the
 * parameter's display name as the key and no description).
 *
 * n8n applies `usableAsTool.replacements` only to the editor's copy of a tool node, not to the
 * one it runs (n8n's NodeTypes clones the node itself for a tool), so the only text that reaches
 * the model at run time is the operation's own `action`. Each operation's action therefore starts
 * with its short name, as the nodes panel shows it, and goes on to say what a model needs: each
 * field it must fill and its format, what comes back, and for sends, that they reach a person
 * and cost money.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

/** For each resource, for each operation, its action: its short name, then what a model needs. */
export type ToolActions = Record<string, Record<string, string>>;

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
 * The node's properties with each operation's `action` set from `actions`. An operation without
 * one keeps its own (the unit test names any).
 */
export function withToolActions(
	properties: INodeProperties[],
	actions: ToolActions,
): INodeProperties[] {
	return properties.map((property) => {
		const resource = resourceOf(property);
		if (property.name !== 'operation' || !resource || !Array.isArray(property.options))
			return property;
		const texts = actions[resource] ?? {};
		return {
			...property,
			options: (property.options as INodePropertyOptions[]).map((option) => {
				const text = texts[String(option.value)];
				return text ? { ...option, action: text } : option;
			}),
		};
	});
}
