/**
 * What an AI agent is told about a node used as a tool.
 *
 * n8n (2.41) turns every `usableAsTool` node into a tool node ("Comms Account Tool"): its copy
 * of the description is the node's own with `usableAsTool.replacements` laid over it. With the
 * Tool Description left on "Set Automatically", the model is told
 * "<the chosen operation's `action`> in <the node's default name>"; with "Set Manually", the text
 * starts as the node's `description`. The schema the model fills holds only the parameters the
 * workflow's author set with `$fromAI()`, under the keys and descriptions written there.
 *
 * So the tool copy gets its own operation options whose `action` is written for a model (what
 * the operation does, what each field it needs means and its format, what comes back, and what
 * it costs), while the nodes panel keeps its short actions.
 */
import type { INodeProperties, INodePropertyOptions, INodeTypeBaseDescription } from 'n8n-workflow';

/** For each resource, for each operation, what the model is told it does. */
export type ToolActions = Record<string, Record<string, string>>;

/** Said of every operation that sends something: it costs money and reaches a person. */
export const REAL_SEND =
	'It reaches a real person and cannot be undone, and it costs money: call it once per message you mean to send, never to test or retry (a failed call says whether anything went out).';

/** The phone-number format every operation asks for. */
export const E164 =
	'a phone number in international E.164 form, "+" then country code and number with no spaces (for example +447700900123)';

function resourceOf(property: INodeProperties): string | undefined {
	const resources = property.displayOptions?.show?.resource;
	return Array.isArray(resources) && typeof resources[0] === 'string' ? resources[0] : undefined;
}

/**
 * The node's properties with each operation's `action` replaced by its agent-facing text.
 * An operation without one keeps its own action (a missing text is caught by the unit test).
 */
export function toolProperties(
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

/**
 * The `usableAsTool` of a node: the tool copy's description (the starting text of a manual Tool
 * Description) and its properties with agent-facing actions.
 */
export function usableAsTool(
	description: string,
	properties: INodeProperties[],
	actions: ToolActions,
): { replacements: Partial<INodeTypeBaseDescription> } {
	// n8n lays `replacements` over the whole node description, so `properties` may be replaced
	// too; n8n-workflow's type names only the base fields.
	const replacements: Partial<INodeTypeBaseDescription> & { properties: INodeProperties[] } = {
		description,
		properties: toolProperties(properties, actions),
	};
	return { replacements };
}
