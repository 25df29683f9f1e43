import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { type Operation, runItems } from '../shared/items';
import { getNumbers } from './listSearch/getNumbers';
import { callDescription, callOperations } from './resources/call';
import { numberDescription, numberOperations } from './resources/number';
import { smsDescription, smsOperations } from './resources/sms';

// Each operation prepares and runs its own item type; the table only routes to them, so it
// holds them under one erased type.
const operations: Record<string, Record<string, Operation<never>>> = {
	number: numberOperations,
	call: callOperations,
	sms: smsOperations,
} as never;

export class CommsAccount implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Comms Account',
		name: 'commsAccount',
		icon: { light: 'file:../../icons/comms.svg', dark: 'file:../../icons/comms.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Send SMS, place manual and AI phone calls, and read call and SMS history with the Comms Account API',
		defaults: { name: 'Comms Account' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'commsAccountApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Call', value: 'call' },
					{ name: 'Number', value: 'number' },
					{ name: 'SMS', value: 'sms' },
				],
				default: 'sms',
			},
			...numberDescription,
			...callDescription,
			...smsDescription,
		],
	};

	methods = { listSearch: { getNumbers } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const resource = this.getNodeParameter('resource', 0) as string;
		const operation = this.getNodeParameter('operation', 0) as string;
		const run = operations[resource]?.[operation];
		if (!run) throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`);
		return [await runItems(this, run)];
	}
}
