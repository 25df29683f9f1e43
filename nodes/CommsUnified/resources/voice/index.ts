import type { INodeProperties } from 'n8n-workflow';

import { voiceMakeCall, voiceMakeCallDescription } from './makeCall';

export const voiceOperations = { makeCall: voiceMakeCall };

export const voiceDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['voice'] } },
		options: [
			{
				name: 'Make a Call',
				value: 'makeCall',
				action: 'Make an AI phone call',
				description:
					'Phone a number and have an AI voice deliver a message or follow instructions; costs 7p a minute with a live key',
			},
		],
		default: 'makeCall',
	},
	...voiceMakeCallDescription,
];
