import type { INodeProperties } from 'n8n-workflow';

import { smsGet, smsGetDescription } from './get';
import { smsGetAll, smsGetAllDescription } from './getAll';
import { smsSend, smsSendDescription } from './send';

export const smsOperations = { send: smsSend, get: smsGet, getAll: smsGetAll };

export const smsDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['sms'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				action: 'Get an SMS',
				description: 'Get one SMS, sent or received, by its message ID',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many SMS',
				description: 'Read sent and received SMS history with delivery status',
			},
			{
				name: 'Send',
				value: 'send',
				action: 'Send an SMS',
				description: "Send a text message from an account number's paired SMS sender",
			},
		],
		default: 'send',
	},
	...smsSendDescription,
	...smsGetDescription,
	...smsGetAllDescription,
];
