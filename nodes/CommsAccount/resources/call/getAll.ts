import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

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
import { MAX_PAGE_SIZE } from '../../api/smsPaging';
import { callModeParameter, simplifyCall } from './shared';

export const callGetAllDescription: INodeProperties[] = forOperation('call', 'getAll', [
	callModeParameter,
	...returnAllAndLimit(MAX_PAGE_SIZE),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				...phoneDocIdLocator,
				required: false,
				description: 'Only calls from this number. Required when Mode is AI.',
			},
			{
				displayName: 'Peer',
				name: 'peer',
				type: 'string',
				default: '',
				placeholder: 'e.g. +44 7700 900123',
				description: 'Only calls with this customer number',
			},
			{
				displayName: 'Since',
				name: 'since',
				type: 'dateTime',
				default: '',
				description: 'Only calls at or after this time',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'string',
				default: '',
				placeholder: 'e.g. completed',
				description: 'Only calls with this status',
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

export interface CallListQuery {
	qs: IDataObject;
	limit: number;
	simplify: boolean;
}

export const callGetAll: Operation<CallListQuery> = {
	prepare(i) {
		const mode = this.getNodeParameter('mode', i, 'manual') as string;
		const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
		const qs: IDataObject = { mode };
		const phoneDocId = locatorValue(filters.phoneDocId);
		if (phoneDocId) qs.phoneDocId = phoneDocId;
		else if (mode === 'ai') {
			throw new NodeOperationError(
				this.getNode(),
				'Phone Number is required when Mode is AI: add it under Filters',
				{ itemIndex: i },
			);
		}
		if (filters.peer) qs.peer = phoneNumber(this, i, filters.peer, 'Peer');
		if (filters.since) qs.since = isoTimestamp(this, i, filters.since, 'Since');
		if (filters.status) qs.status = String(filters.status).trim();
		const limit = limitOf(this, i);
		return { qs, limit, simplify: this.getNodeParameter('simplify', i, false) as boolean };
	},
	async run({ qs, limit, simplify }, i) {
		const pageSize = Math.min(limit, MAX_PAGE_SIZE);
		const body = await accountApiRequest(this, {
			method: 'GET',
			path: '/v1/calls',
			qs: { ...qs, limit: pageSize },
			itemIndex: i,
		});
		const calls = Array.isArray(body.calls) ? (body.calls as IDataObject[]) : [];
		if (limit > MAX_PAGE_SIZE && calls.length >= MAX_PAGE_SIZE) {
			this.addExecutionHints({
				message: `The API returns at most ${MAX_PAGE_SIZE} calls per request and has no cursor for call history, so these are the ${calls.length} most recent. To reach older calls, narrow the filters (Since, Peer, Status or Phone Number).`,
				location: 'outputPane',
			});
		}
		return simplify ? calls.map(simplifyCall) : calls;
	},
};
