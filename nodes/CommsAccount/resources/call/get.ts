import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Operation } from '../../../shared/runtime/operation';
import { accountApiRequest } from '../../api/accountApi';
import {
	forOperation,
	phoneDocIdLocator,
	simplifyParameter,
} from '../../../shared/parameters/descriptions';
import { identifier, phoneDocId } from '../../../shared/parameters/nodeParameters';
import { callModeParameter, simplifyCall } from './shared';
import { quotePrefix } from '../../../shared/parameters/expressionValues';

export const callGetDescription: INodeProperties[] = forOperation('call', 'get', [
	callModeParameter,
	{ ...phoneDocIdLocator, description: 'The number the call was placed from' },
	{
		displayName: 'Call ID',
		name: 'callId',
		type: 'string',
		default: '',
		required: true,
		description: "The call's ID; for AI calls, the callSid returned when the call was created",
	},
	simplifyParameter,
]);

export interface CallQuery {
	qs: IDataObject;
	simplify: boolean;
}

export const callGet: Operation<CallQuery> = {
	prepare(i) {
		return {
			qs: {
				mode: this.getNodeParameter('mode', i, 'manual'),
				phoneDocId: phoneDocId(this, i),
				callId: identifier(this, i, 'callId', 'Call ID'),
			},
			simplify: this.getNodeParameter('simplify', i, false) as boolean,
		};
	},
	async run({ qs, simplify }, i) {
		const body = await accountApiRequest(this, {
			method: 'GET',
			path: '/v1/calls',
			qs,
			itemIndex: i,
		});
		const [call] = Array.isArray(body.calls) ? (body.calls as IDataObject[]) : [];
		if (!call)
			throw new NodeOperationError(
				this.getNode(),
				`No call with ID "${quotePrefix(String(qs.callId))}" was found on this number`,
				{ itemIndex: i },
			);
		return simplify ? simplifyCall(call) : call;
	},
};
