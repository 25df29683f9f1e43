import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Operation } from '../../../shared/items';
import { sentSmsLookup } from '../../../shared/lookups';
import { accountApiRequest } from '../../../shared/transport';
import {
	defaultCountryOption,
	forOperation,
	phoneDocIdLocator,
	smsSenderModes,
	toParameter,
} from '../../../shared/descriptions';
import {
	phoneDocId,
	phoneNumber,
	requiredMessage,
	requiredString,
	withoutSuccess,
} from '../../../shared/params';
import { SMS_MAX_LENGTH, smsSegments } from './shared';

export const smsSendDescription: INodeProperties[] = forOperation('sms', 'send', [
	{
		...phoneDocIdLocator,
		description:
			'The account number to send from; its paired SMS sender is used. The list shows only numbers that can send SMS.',
		modes: smsSenderModes,
	},
	toParameter('The recipient.'),
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		description:
			'Up to 1600 characters. Every 160 characters use one SMS segment; the output shows how many.',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [defaultCountryOption],
	},
]);

export const smsSend: Operation<IDataObject> = {
	prepare(i) {
		const message = requiredMessage(this, i, 'message', 'Message');
		const length = [...message].length;
		if (length > SMS_MAX_LENGTH) {
			throw new NodeOperationError(
				this.getNode(),
				`Message is ${length} characters long; the limit is ${SMS_MAX_LENGTH}`,
				{
					itemIndex: i,
					description: `Message starts "${[...message].slice(0, 40).join('')}…". Shorten it or split it over several SMS.`,
				},
			);
		}
		return {
			phoneDocId: phoneDocId(this, i),
			to: phoneNumber(this, i, requiredString(this, i, 'to', 'To'), 'To'),
			message,
		};
	},
	// Several SMS to one person leave in item order (and so arrive in it, as far as the network keeps it).
	sequenceKey: (body) => String(body.to),
	once: true,
	describe: (body) => `SMS to ${String(body.to)}`,
	async run(body, i) {
		const result = withoutSuccess(
			await accountApiRequest(this, {
				method: 'POST',
				path: '/v1/sms',
				body,
				itemIndex: i,
				action: 'the SMS was sent',
				reconcile: sentSmsLookup(body),
			}),
		);
		// One segments field: the API's segmentsUsed, or the API's own rule where it sent none.
		return {
			...result,
			segmentsUsed:
				typeof result.segmentsUsed === 'number'
					? result.segmentsUsed
					: smsSegments(body.message as string),
		};
	},
};
