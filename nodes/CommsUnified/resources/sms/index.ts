import type { INodeProperties } from 'n8n-workflow';

import { smsSend, smsSendDescription } from './send';

export const smsOperations = { send: smsSend };

export const smsDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['sms'] } },
		options: [
			{
				name: 'Send',
				value: 'send',
				action: 'Send an SMS',
				description:
					'Send a text message to a mobile number; costs 3p per 160 characters with a live key',
			},
		],
		default: 'send',
	},
	...smsSendDescription,
];
