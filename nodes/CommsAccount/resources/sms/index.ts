import type { INodeProperties } from 'n8n-workflow';

import { smsGet, smsGetDescription } from './get';
import { smsGetAll, smsGetAllDescription } from './getAll';
import { smsSend, smsSendDescription } from './send';
import { smsSendAndWait, smsSendAndWaitDescription } from './sendAndWait';

export const smsOperations = {
	send: smsSend,
	sendAndWait: smsSendAndWait,
	get: smsGet,
	getAll: smsGetAll,
};

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
			{
				name: 'Send and Wait for Response',
				value: 'sendAndWait',
				action: 'Send an SMS and wait for response',
				description:
					'Send a text message with a link to a page where the person approves, declines or answers, and wait for the answer',
			},
		],
		default: 'send',
	},
	...smsSendDescription,
	...smsSendAndWaitDescription,
	...smsGetDescription,
	...smsGetAllDescription,
];
