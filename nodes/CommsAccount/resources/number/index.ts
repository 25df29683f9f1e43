import type { INodeProperties } from 'n8n-workflow';

import { numberGetAll, numberGetAllDescription } from './getAll';

export const numberOperations = { getAll: numberGetAll };

export const numberDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['number'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many numbers',
				description:
					"List the account's voice numbers, each with its paired SMS sender and phoneDocId",
			},
		],
		default: 'getAll',
	},
	...numberGetAllDescription,
];
