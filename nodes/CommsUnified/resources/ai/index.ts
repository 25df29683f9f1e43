import type { INodeProperties } from 'n8n-workflow';

import { aiChat, aiChatDescription } from './chat';

export const aiOperations = { chat: aiChat };

export const aiDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['ai'] } },
		options: [
			{
				name: 'Chat',
				value: 'chat',
				action: 'Chat with an AI model',
				description:
					'Send a conversation to an AI model and get its answer; costs 15p a request with a live key',
			},
		],
		default: 'chat',
	},
	...aiChatDescription,
];
