import type { INodeProperties } from 'n8n-workflow';

import { forOperation } from '../../../shared/parameters/descriptions';
import type { Operation } from '../../../shared/runtime/operation';
import { UNIFIED_LIMITS } from '../../api/unifiedApi';
import { optionalString } from '../../../shared/parameters/nodeParameters';
import {
	type Envelope,
	includeBillingOption,
	moneySettings,
	sendEnvelope,
	spendingCapOption,
} from '../../envelope';
import { chatMessages } from '../../inputs';
import { priceOf } from '../../api/pricing';

export const aiChatDescription: INodeProperties[] = forOperation('ai', 'chat', [
	{
		displayName: 'Messages',
		name: 'messages',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Message',
		default: { values: [{ role: 'user', content: '' }] },
		required: true,
		description:
			'The conversation so far, oldest first. At least one message must have Role "User".',
		options: [
			{
				displayName: 'Message',
				name: 'values',
				values: [
					{
						displayName: 'Role',
						name: 'role',
						type: 'options',
						options: [
							{
								name: 'Assistant',
								value: 'assistant',
								description:
									'An earlier answer of the model (the API documents only System and User)',
							},
							{
								name: 'System',
								value: 'system',
								description: 'Instructions for how the model should answer',
							},
							{ name: 'User', value: 'user', description: 'What the person asks or says' },
						],
						default: 'user',
					},
					{
						displayName: 'Content',
						name: 'content',
						type: 'string',
						typeOptions: { rows: 2 },
						default: '',
						description: 'The text of the message',
					},
				],
			},
		],
	},
	{
		displayName: 'Model',
		name: 'model',
		type: 'string',
		default: '',
		placeholder: "Leave empty for the server's default model",
		description:
			"The ID of the model to answer with. Leave empty for the server's default, its most capable model. The API documentation names no model IDs: copy one from your provider's dashboard (it also offers a faster model).",
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [includeBillingOption, spendingCapOption],
	},
]);

export const aiChat: Operation<Envelope> = {
	prepare(i) {
		const messages = chatMessages(this, i);
		const model = optionalString(this, i, 'model', 'Model');
		const data = { messages, ...(model ? { model } : {}) };
		return {
			data,
			price: priceOf('ai', data),
			what: 'AI chat request',
			money: moneySettings(this, i),
		};
	},
	concurrency: UNIFIED_LIMITS.ai.concurrency,
	carriesOutOnce: true,
	describe: () => 'AI chat request',
	async run(envelope, i) {
		return await sendEnvelope(this, i, 'ai', 'chat', envelope);
	},
};
