/**
 * Stand-ins for n8n's AI Agent, calling a node used as a tool the two ways n8n-core lets an agent
 * do it, with n8n-core's own machinery (a scripted "model": each step is the calls it makes):
 *
 * - `EngineAgent`, like AI Agent 3: it returns an engine request and n8n's engine runs the tool
 *   node as a node of its own (the model's arguments and the call's id as its input), then runs the
 *   agent again with the results (n8n-core's `handleRequest`);
 * - `ConnectionAgent`, like AI Agent 2.2: it takes the tool from `getInputConnectionData` and
 *   invokes it (n8n-core's `createNodeAsTool` and `makeHandleToolInvocation`).
 *
 * `asTool` makes the tool variant n8n generates for a node that is `usableAsTool` (the cli's
 * `convertNodeToAiTool`): the same node, with no main input and one AI tool output.
 */
import type {
	EngineRequest,
	EngineResponse,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { deepCopy, NodeConnectionTypes } from 'n8n-workflow';

export type ScriptedCalls = IDataObject[][];

export function asTool(node: INodeType): INodeType {
	const description = deepCopy(node.description) as INodeTypeDescription;
	description.name += 'Tool';
	description.displayName += ' Tool';
	description.inputs = [];
	description.outputs = [NodeConnectionTypes.AiTool];
	delete description.usableAsTool;
	return Object.assign(Object.create(Object.getPrototypeOf(node) as object) as INodeType, node, {
		description,
	});
}

const agentDescription = (name: string): INodeTypeDescription => ({
	displayName: name,
	name,
	group: ['transform'],
	version: 1,
	description: 'Test fixture',
	defaults: { name },
	inputs: [
		NodeConnectionTypes.Main,
		{ type: NodeConnectionTypes.AiTool, displayName: 'Tools', required: true },
	],
	outputs: [NodeConnectionTypes.Main],
	properties: [
		{ displayName: 'Tool', name: 'tool', type: 'string', default: '' },
		{ displayName: 'Script', name: 'script', type: 'json', default: '[]' },
	],
});

const scriptOf = (ctx: IExecuteFunctions) => {
	const script = ctx.getNodeParameter('script', 0) as unknown;
	return (typeof script === 'string' ? JSON.parse(script) : script) as ScriptedCalls;
};

/** Like AI Agent 3: each step's calls go back to the engine as one request. */
export class EngineAgent implements INodeType {
	description = agentDescription('engineAgent');

	async execute(
		this: IExecuteFunctions,
		response?: EngineResponse<{ step: number }>,
	): Promise<INodeExecutionData[][] | EngineRequest<{ step?: number; itemIndex?: number }>> {
		const script = scriptOf(this);
		const step = response?.metadata?.step === undefined ? 0 : response.metadata.step + 1;
		if (step < script.length)
			return {
				actions: script[step].map((input, n) => ({
					actionType: 'ExecutionNodeAction' as const,
					nodeName: this.getNodeParameter('tool', 0) as string,
					input,
					type: NodeConnectionTypes.AiTool,
					id: `call-${step}-${n}`,
					metadata: { itemIndex: 0 },
				})),
				metadata: { step },
			};
		return [[{ json: { steps: script.length } }]];
	}
}

/** Like AI Agent 2.2: the tool from the connection, invoked call by call; a failed call's error is its result. */
export class ConnectionAgent implements INodeType {
	description = agentDescription('connectionAgent');

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const connected = (await this.getInputConnectionData(NodeConnectionTypes.AiTool, 0)) as
			| Array<{ invoke(args: IDataObject): Promise<string> }>
			| { invoke(args: IDataObject): Promise<string> };
		const tool = Array.isArray(connected) ? connected[0] : connected;
		const results: string[] = [];
		for (const step of scriptOf(this))
			for (const args of step)
				results.push(
					await tool.invoke(args).catch((error: Error) => `error: ${error.message.split('\n')[0]}`),
				);
		return [[{ json: { results } }]];
	}
}
