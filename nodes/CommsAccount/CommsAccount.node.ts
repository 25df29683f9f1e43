import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { findOperation, type OperationTable, runItems } from '../shared/items';
import { getNumbers, getSmsNumbers } from '../shared/numbers';
import { callDescription, callOperations } from './resources/call';
import { numberDescription, numberOperations } from './resources/number';
import { smsDescription, smsOperations } from './resources/sms';
import { quotePrefix } from '../shared/quote';

/** Every resource of the node and its operations, as the Resource and Operation options offer them. */
export interface CommsAccountResources {
	number: 'getAll';
	call: 'create' | 'get' | 'getAll';
	sms: 'send' | 'get' | 'getAll';
}

const operations: OperationTable<CommsAccountResources> = {
	number: numberOperations,
	call: callOperations,
	sms: smsOperations,
};

export class CommsAccount implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Comms Account',
		name: 'commsAccount',
		icon: { light: 'file:../../icons/comms.svg', dark: 'file:../../icons/comms.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description:
			'Send SMS, place manual and AI phone calls, and read call and SMS history with the Comms Account API',
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

	methods = { listSearch: { getNumbers, getSmsNumbers } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const resource = this.getNodeParameter('resource', 0) as string;
		const operation = this.getNodeParameter('operation', 0) as string;
		const handler = findOperation(operations, resource, operation);
		if (!handler)
			throw new NodeOperationError(
				this.getNode(),
				`The operation "${quotePrefix(String(operation))}" of "${quotePrefix(String(resource))}" is not supported`,
			);
		return [await runItems(this, handler)];
	}
}
