import type { INodeProperties } from 'n8n-workflow';

import { callCreate, callCreateDescription } from './create';
import { callGet, callGetDescription } from './get';
import { callGetAll, callGetAllDescription } from './getAll';

export const callOperations = { create: callCreate, get: callGet, getAll: callGetAll };

export const callDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['call'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Place a call',
				description:
					'Place an outbound phone call from an account number: manual (agent rung first, then bridged) or AI (an AI agent talks to the customer)',
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get a call',
				description: 'Get one call from the call history by its ID',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many calls',
				description:
					'Read outbound call history, most recent first, with status, duration and recording details',
			},
		],
		default: 'create',
	},
	...callCreateDescription,
	...callGetDescription,
	...callGetAllDescription,
];
