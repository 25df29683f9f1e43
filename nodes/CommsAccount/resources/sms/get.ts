import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Operation } from '../../../shared/runtime/operation';
import { accountApiRequest } from '../../api/accountApi';
import { forOperation, simplifyParameter } from '../../../shared/parameters/descriptions';
import { identifier } from '../../../shared/parameters/nodeParameters';
import { simplifySms } from './shared';
import { quotePrefix } from '../../../shared/parameters/expressionValues';

export const smsGetDescription: INodeProperties[] = forOperation('sms', 'get', [
	{
		displayName: 'Message ID',
		name: 'messageId',
		type: 'string',
		default: '',
		required: true,
		description: 'The messageId returned when the SMS was sent, or found in the SMS history',
	},
	simplifyParameter,
]);

export const smsGet: Operation<{ messageId: string; simplify: boolean }> = {
	prepare(i) {
		return {
			messageId: identifier(this, i, 'messageId', 'Message ID'),
			simplify: this.getNodeParameter('simplify', i, false) as boolean,
		};
	},
	async run({ messageId, simplify }, i) {
		const body = await accountApiRequest(this, {
			method: 'GET',
			path: '/v1/sms',
			qs: { messageId },
			itemIndex: i,
		});
		const [message] = Array.isArray(body.messages) ? (body.messages as IDataObject[]) : [];
		if (!message)
			throw new NodeOperationError(
				this.getNode(),
				`No SMS with message ID "${quotePrefix(String(messageId))}" was found`,
				{ itemIndex: i },
			);
		return simplify ? simplifySms(message) : message;
	},
};
