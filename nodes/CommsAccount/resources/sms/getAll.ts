import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../../shared/runtime/operation';
import { accountApiRequest } from '../../api/accountApi';
import {
	defaultCountryOption,
	forOperation,
	phoneDocIdLocator,
	returnAllAndLimit,
	simplifyParameter,
} from '../../../shared/parameters/descriptions';
import {
	isoTimestamp,
	limitOf,
	locatorValue,
	phoneNumber,
} from '../../../shared/parameters/nodeParameters';
import { collectSms, type SmsPage } from '../../api/smsPaging';
import { simplifySms } from './shared';

export const smsGetAllDescription: INodeProperties[] = forOperation('sms', 'getAll', [
	...returnAllAndLimit(),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{ ...phoneDocIdLocator, required: false, description: 'Only messages of this number' },
			{
				displayName: 'Direction',
				name: 'direction',
				type: 'options',
				options: [
					{ name: 'Received', value: 'received' },
					{ name: 'Sent', value: 'sent' },
				],
				default: 'received',
				description:
					'Leave this filter out to get both directions (a conversation view, with Peer or Phone Number)',
			},
			{
				displayName: 'Peer',
				name: 'peer',
				type: 'string',
				default: '',
				placeholder: 'e.g. +44 7700 900123',
				description: 'Only messages exchanged with this number',
			},
			{
				displayName: 'Since',
				name: 'since',
				type: 'dateTime',
				default: '',
				description: 'Only messages sent at or after this time',
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [defaultCountryOption],
	},
	simplifyParameter,
]);

export interface SmsListQuery {
	qs: IDataObject;
	since?: string;
	limit: number;
	simplify: boolean;
}

export const smsGetAll: Operation<SmsListQuery> = {
	prepare(i) {
		const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
		const qs: IDataObject = {};
		const phoneDocId = locatorValue(filters.phoneDocId);
		if (phoneDocId) qs.phoneDocId = phoneDocId;
		if (filters.direction) qs.direction = filters.direction;
		if (filters.peer) qs.peer = phoneNumber(this, i, filters.peer, 'Peer');
		const since = filters.since ? isoTimestamp(this, i, filters.since, 'Since') : undefined;
		return {
			qs,
			since,
			limit: limitOf(this, i),
			simplify: this.getNodeParameter('simplify', i, false) as boolean,
		};
	},
	async run({ qs, since, limit, simplify }, i) {
		const { messages, incomplete } = await collectSms(
			async (page) => {
				const body = await accountApiRequest(this, {
					method: 'GET',
					path: '/v1/sms',
					qs: { ...qs, since: page.since, limit: page.limit },
					itemIndex: i,
				});
				return {
					messages: Array.isArray(body.messages) ? body.messages : [],
					nextSince: body.nextSince,
				} as SmsPage;
			},
			{ limit, since },
		);
		if (incomplete) this.addExecutionHints({ message: incomplete, location: 'outputPane' });
		return (messages as IDataObject[]).map((message) =>
			simplify ? simplifySms(message) : message,
		);
	},
};
