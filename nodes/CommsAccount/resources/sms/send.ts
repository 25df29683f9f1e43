import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Operation } from '../../../shared/items';
import { accountApiRequest } from '../../../shared/transport';
import { defaultCountryOption, forOperation, phoneDocIdLocator, toParameter } from '../../shared/descriptions';
import { phoneDocId, phoneNumber, requiredString, SMS_MAX_LENGTH, smsSegments, withoutSuccess } from '../../shared/params';

export const smsSendDescription: INodeProperties[] = forOperation('sms', 'send', [
	{ ...phoneDocIdLocator, description: 'The account number to send from; its paired SMS sender is used' },
	toParameter('The recipient.'),
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		description: 'Up to 1600 characters. Every 160 characters use one SMS segment; the output shows how many.',
	},
	{ displayName: 'Options', name: 'options', type: 'collection', placeholder: 'Add Option', default: {}, options: [defaultCountryOption] },
]);

export const smsSend: Operation<IDataObject> = {
	prepare(i) {
		const message = this.getNodeParameter('message', i, '') as string;
		if (typeof message !== 'string' || !message.trim()) throw new NodeOperationError(this.getNode(), 'Message is required but was empty', { itemIndex: i });
		const length = [...message].length;
		if (length > SMS_MAX_LENGTH) {
			throw new NodeOperationError(this.getNode(), `Message is ${length} characters long; the limit is ${SMS_MAX_LENGTH}`, {
				itemIndex: i,
				description: `Message starts "${[...message].slice(0, 40).join('')}…". Shorten it or split it over several SMS.`,
			});
		}
		return { phoneDocId: phoneDocId(this, i), to: phoneNumber(this, i, requiredString(this, i, 'to', 'To'), 'To'), message };
	},
	async run(body, i) {
		const result = withoutSuccess(await accountApiRequest(this, { method: 'POST', path: '/v1/sms', body, itemIndex: i, action: 'the SMS was sent' }));
		return { ...result, segments: typeof result.segmentsUsed === 'number' ? result.segmentsUsed : smsSegments(body.message as string) };
	},
};
