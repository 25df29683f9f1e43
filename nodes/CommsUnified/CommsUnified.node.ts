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
import { UNIFIED_CREDENTIAL } from './api/unifiedApi';
import { aiDescription, aiOperations } from './resources/ai';
import { emailDescription, emailOperations } from './resources/email';
import { smsDescription, smsOperations } from './resources/sms';
import { voiceDescription, voiceOperations } from './resources/voice';
import { quotePrefix } from '../shared/parameters/expressionValues';
import { unifiedToolDescriptions } from './tool';

/** Every service of the node (its resources) and their operations. */
export interface CommsUnifiedResources {
	voice: 'makeCall';
	sms: 'send' | 'sendAndWait';
	email: 'send';
	ai: 'chat';
}

const operations: OperationTable<CommsUnifiedResources> = {
	voice: voiceOperations,
	sms: smsOperations,
	email: emailOperations,
	ai: aiOperations,
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
				{ name: 'AI', value: 'ai', description: 'Chat with an AI model' },
				{ name: 'Email', value: 'email', description: 'Send an email' },
				{ name: 'SMS', value: 'sms', description: 'Send a text message' },
				{ name: 'Voice', value: 'voice', description: 'Make an AI phone call' },
			],
			default: 'sms',
		},
		...voiceDescription,
		...smsDescription,
		...emailDescription,
		...aiDescription,
	],
	unifiedToolDescriptions,
);

export class CommsUnified implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Comms Unified',
		name: 'commsUnified',
		icon: { light: 'file:../../icons/comms.svg', dark: 'file:../../icons/comms.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description:
			'Make AI voice calls, send SMS and email, and chat with an AI model through the Comms Unified API, with prepaid credits',
		defaults: { name: 'Comms Unified' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		webhooks: sendAndWaitWebhooks,
		credentials: [{ name: 'commsUnifiedApi', required: true }],
		properties,
	};

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
		const run = () => runItems(this, handler, { credentialType: UNIFIED_CREDENTIAL });
		if (operation === SEND_AND_WAIT_OPERATION) return await sendAndWait(this, run);
		return [await run()];
	}
}
