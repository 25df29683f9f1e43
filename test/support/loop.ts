/**
 * Stand-in for n8n's Loop Over Items (Split in Batches 3), which n8n-nodes-base holds and the
 * harness does not load: its first run takes the input and hands out the first batch on its
 * "loop" output; each run after that (the loop's branch returning) hands out the next, and once
 * none is left the items that came back go out on "done". Its state lives in its node context,
 * as the real one's does. A workflow wires "loop" (output 1) to the branch and the branch's end
 * back to it; each pass is a run of its own for every node in the branch.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

export class LoopFixture implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Loop',
		name: 'loop',
		group: ['organization'],
		version: 1,
		description: 'Test fixture',
		defaults: { name: 'Loop' },
		inputs: ['main'],
		outputs: ['main', 'main'],
		outputNames: ['done', 'loop'],
		properties: [{ displayName: 'Batch Size', name: 'batchSize', type: 'number', default: 1 }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const state = this.getContext('node') as { left?: IDataObject[]; done?: IDataObject[] };
		if (state.left === undefined) {
			state.left = this.getInputData().map((item) => item.json);
			state.done = [];
		} else state.done!.push(...this.getInputData().map((item) => item.json));
		const batch = state.left.splice(0, this.getNodeParameter('batchSize', 0) as number);
		if (batch.length === 0) return [state.done!.map((json) => ({ json })), []];
		return [[], batch.map((json) => ({ json }))];
	}
}
