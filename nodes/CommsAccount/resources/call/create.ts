import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Operation } from '../../../shared/runtime/operation';
import { createdCallLookup } from '../../api/recoveryLookups';
import { accountApiRequest } from '../../api/accountApi';
import {
	defaultCountryOption,
	forOperation,
	phoneDocIdLocator,
	toParameter,
} from '../../../shared/parameters/descriptions';
import {
	optionalString,
	phoneDocId,
	phoneNumber,
	requiredString,
	withoutSuccess,
} from '../../../shared/parameters/nodeParameters';
import { quotePrefix } from '../../../shared/parameters/expressionValues';

const manual = { mode: ['manual'] };
const ai = { mode: ['ai'] };

export const callCreateDescription: INodeProperties[] = forOperation('call', 'create', [
	{
		...phoneDocIdLocator,
		description: 'The account number to call from; its voice number is the caller ID',
	},
	toParameter("The customer's phone number."),
	{
		displayName: 'Mode',
		name: 'mode',
		type: 'options',
		options: [
			{
				name: 'Manual',
				value: 'manual',
				description:
					'Ring the agent first, then dial the customer and bridge them on a recorded call',
			},
			{
				name: 'AI',
				value: 'ai',
				description: 'An AI agent dials the customer and holds the conversation',
			},
		],
		default: 'manual',
	},
	{
		displayName: 'Agent Phone',
		name: 'agentPhone',
		type: 'string',
		default: '',
		placeholder: 'e.g. +44 7700 900456',
		displayOptions: { show: manual },
		description:
			"The agent's own phone, rung first for 25 seconds. Leave empty to use the API key's default agent phone.",
	},
	{
		displayName: 'Customer Name',
		name: 'customerName',
		type: 'string',
		default: '',
		displayOptions: { show: ai },
		description: 'Used by the AI to greet the customer',
	},
	{
		displayName: 'Call Purpose',
		name: 'callPurpose',
		type: 'options',
		options: [
			{ name: 'General', value: 'general' },
			{ name: 'Custom', value: 'custom', description: 'State the reason in Custom Call Reason' },
		],
		default: 'general',
		displayOptions: { show: ai },
	},
	{
		displayName: 'Custom Call Reason',
		name: 'customCallReason',
		type: 'string',
		typeOptions: { rows: 2 },
		default: '',
		displayOptions: { show: { ...ai, callPurpose: ['custom'] } },
		description: 'The reason for the call, in plain language, which the AI states to the customer',
	},
	{
		displayName: 'AI Instructions',
		name: 'aiInstructions',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		displayOptions: { show: ai },
		description: 'Extra steering for the AI on this call',
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

export const callCreate: Operation<IDataObject> = {
	prepare(i) {
		const mode = this.getNodeParameter('mode', i, 'manual') as string;
		if (mode !== 'manual' && mode !== 'ai')
			throw new NodeOperationError(
				this.getNode(),
				`Mode "${quotePrefix(String(mode))}" must be "manual" or "ai"`,
				{
					itemIndex: i,
				},
			);
		const body: IDataObject = {
			phoneDocId: phoneDocId(this, i),
			to: phoneNumber(this, i, requiredString(this, i, 'to', 'To'), 'To'),
			mode,
		};
		if (mode === 'manual') {
			const agentPhone = optionalString(this, i, 'agentPhone', 'Agent Phone');
			if (agentPhone) body.agentPhone = phoneNumber(this, i, agentPhone, 'Agent Phone');
			return body;
		}
		const customerName = optionalString(this, i, 'customerName', 'Customer Name');
		if (customerName) body.customerName = customerName;
		body.callPurpose = this.getNodeParameter('callPurpose', i, 'general') as string;
		if (body.callPurpose === 'custom')
			body.customCallReason = requiredString(this, i, 'customCallReason', 'Custom Call Reason');
		const aiInstructions = optionalString(this, i, 'aiInstructions', 'AI Instructions');
		if (aiInstructions) body.aiInstructions = aiInstructions;
		return body;
	},
	carriesOutOnce: true,
	describe: (body) => `${String(body.mode)} call to ${String(body.to)}`,
	async run(body, i) {
		return withoutSuccess(
			await accountApiRequest(this, {
				method: 'POST',
				path: '/v1/calls',
				body,
				itemIndex: i,
				action: 'the call was placed',
				recoveryLookup: createdCallLookup(body),
			}),
		);
	},
};
