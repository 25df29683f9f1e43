import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../../shared/runtime/operation';
import { accountApiRequest } from '../../api/accountApi';
import { forOperation, returnAllAndLimit } from '../../../shared/parameters/descriptions';
import { limitOf } from '../../../shared/parameters/nodeParameters';

export const numberGetAllDescription: INodeProperties[] = forOperation('number', 'getAll', [
	...returnAllAndLimit(),
]);

export const numberGetAll: Operation<{ limit: number }> = {
	prepare(i) {
		return { limit: limitOf(this, i) };
	},
	async run({ limit }, i) {
		const body = await accountApiRequest(this, {
			method: 'GET',
			path: '/v1/numbers',
			itemIndex: i,
		});
		const numbers = Array.isArray(body.numbers) ? (body.numbers as IDataObject[]) : [];
		return numbers.slice(0, limit);
	},
};
