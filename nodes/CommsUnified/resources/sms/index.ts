import type { INodeProperties } from 'n8n-workflow';

import { smsSend, smsSendDescription } from './send';
import { smsSendAndWait, smsSendAndWaitDescription } from './sendAndWait';

export const smsOperations = { send: smsSend, sendAndWait: smsSendAndWait };

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
			{
				name: 'Send and Wait for Response',
				value: 'sendAndWait',
				action: 'Send an SMS and wait for response',
				description:
					'Send a text message with a link to a page where the person approves, declines or answers, and wait for the answer; costs 3p per 160 characters, link included, with a live key',
			},
		],
		default: 'send',
	},
	...smsSendDescription,
	...smsSendAndWaitDescription,
];
