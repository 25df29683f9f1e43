import type { INodeProperties } from 'n8n-workflow';

import { emailSend, emailSendDescription } from './send';

export const emailOperations = { send: emailSend };

export const emailDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['email'] } },
		options: [
			{
				name: 'Send',
				value: 'send',
				action: 'Send an email',
				description: 'Send an HTML email to one address; costs 0.15p with a live key',
			},
		],
		default: 'send',
	},
	...emailSendDescription,
];
