import type { INodeProperties } from 'n8n-workflow';

import { forOperation } from '../../../shared/parameters/descriptions';
import type { Operation } from '../../../shared/runtime/operation';
import { UNIFIED_LIMITS } from '../../api/unifiedApi';
import { optionalString, requiredMessage } from '../../../shared/parameters/nodeParameters';
import {
	type Envelope,
	includeBillingOption,
	moneySettings,
	sendEnvelope,
	spendingCapOption,
	noHistoryNotice,
} from '../../envelope';
import { emailAddress } from '../../inputs';
import { priceOf } from '../../api/pricing';

export const emailSendDescription: INodeProperties[] = forOperation('email', 'send', [
	noHistoryNotice,
	{
		displayName: 'To',
		name: 'to',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. someone@example.com',
		description: "The recipient's email address (one address)",
	},
	{
		displayName: 'Subject',
		name: 'subject',
		type: 'string',
		default: '',
		required: true,
	},
	{
		displayName: 'HTML',
		name: 'html',
		type: 'string',
		typeOptions: { rows: 6 },
		default: '',
		required: true,
		placeholder: 'e.g. <p>Your order has shipped.</p>',
		description: 'The body of the email, as HTML',
	},
	{
		displayName: 'Sender Name',
		name: 'fromName',
		type: 'string',
		default: '',
		placeholder: 'e.g. Acme Support',
		description:
			"The name the recipient sees as the sender. Leave empty for the account's default.",
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

export const emailSend: Operation<Envelope> = {
	prepare(i) {
		const to = emailAddress(this, i, 'to', 'To');
		const subject = requiredMessage(this, i, 'subject', 'Subject');
		const html = requiredMessage(this, i, 'html', 'HTML');
		const fromName = optionalString(this, i, 'fromName', 'Sender Name');
		const data = { to, subject, html, ...(fromName ? { from_name: fromName } : {}) };
		return { data, price: priceOf('email', data), what: 'email', money: moneySettings(this, i) };
	},
	concurrency: UNIFIED_LIMITS.email.concurrency,
	carriesOutOnce: true,
	describe: (envelope) => `email to ${String(envelope.data.to)}`,
	async run(envelope, i) {
		return await sendEnvelope(this, i, 'email', 'send', envelope);
	},
};
