import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError, SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { findOperation, type OperationTable } from '../shared/runtime/operation';
import { runItems } from '../shared/runtime/runItems';
import { sendAndWaitWebhooks } from '../shared/runtime/sendAndWait/description';
import { sendAndWait } from '../shared/runtime/sendAndWait/wait';
import { sendAndWaitWebhook } from '../shared/runtime/sendAndWait/webhook';
import { withToolDescriptions } from '../shared/runtime/toolDescriptions';
import { getNumbers, getSmsNumbers } from './api/numbersList';
import { callDescription, callOperations } from './resources/call';
import { numberDescription, numberOperations } from './resources/number';
import { smsDescription, smsOperations } from './resources/sms';
import { quotePrefix } from '../shared/parameters/expressionValues';
import { accountToolDescriptions } from './tool';

/** Every resource of the node and its operations, as the Resource and Operation options offer them. */
export interface CommsAccountResources {
	number: 'getAll';
	call: 'create' | 'get' | 'getAll';
	sms: 'send' | 'sendAndWait' | 'get' | 'getAll';
}

const operations: OperationTable<CommsAccountResources> = {
	number: numberOperations,
	call: callOperations,
	sms: smsOperations,
};

/**
 * The node's parameters. Each operation's action also tells an AI agent using the node as a tool
 * what it needs (./tool.ts).
 */
const properties: INodeProperties[] = withToolDescriptions(
	[
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
	accountToolDescriptions,
);

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
		webhooks: sendAndWaitWebhooks,
		credentials: [{ name: 'commsAccountApi', required: true }],
		properties,
	};

	methods = { listSearch: { getNumbers, getSmsNumbers } };

	webhook = sendAndWaitWebhook;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const resource = this.getNodeParameter('resource', 0) as string;
		const operation = this.getNodeParameter('operation', 0) as string;
		const handler = findOperation(operations, resource, operation);
		if (!handler)
			throw new NodeOperationError(
				this.getNode(),
				`The operation "${quotePrefix(String(operation))}" of "${quotePrefix(String(resource))}" is not supported`,
			);
		const run = () => runItems(this, handler);
		if (operation === SEND_AND_WAIT_OPERATION) return await sendAndWait(this, run);
		return [await run()];
	}
}
