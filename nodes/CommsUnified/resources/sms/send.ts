import type { INodeProperties } from 'n8n-workflow';

import {
	defaultCountryOption,
	forOperation,
	toParameter,
} from '../../../shared/parameters/descriptions';
import type { Operation } from '../../../shared/runtime/operation';
import { UNIFIED_LIMITS } from '../../api/unifiedApi';
import {
	phoneNumber,
	requiredMessage,
	requiredString,
} from '../../../shared/parameters/nodeParameters';
import {
	type Envelope,
	includeBillingOption,
	moneySettings,
	sendEnvelope,
	spendingCapOption,
	noHistoryNotice,
} from '../../envelope';
import { optionalPhoneNumber } from '../../inputs';
import { formatPence, priceOf, PRICES, toUnits } from '../../api/pricing';
import {
	checkSegments,
	maxSegments,
	maxSegmentsOption,
} from '../../../shared/parameters/smsLength';

/** What `segments` SMS cost with a live key, in words, for a refusal. */
export const segmentsCost = (segments: number) =>
	`${formatPence(toUnits(PRICES.smsPerMessage * segments))} with a live key (${PRICES.smsPerMessage}p an SMS)`;

export const smsSendDescription: INodeProperties[] = forOperation('sms', 'send', [
	noHistoryNotice,
	toParameter('The mobile number to text.'),
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		description:
			'The text to send. Every 160 characters make one SMS, charged 3p each with a live key; a text longer than Max Segments (10 SMS, 1,600 characters, unless changed under Options) is refused before sending.',
	},
	{
		displayName: 'From',
		name: 'from',
		type: 'string',
		default: '',
		placeholder: 'e.g. +44 7700 900010',
		description:
			"Your own SMS number to send from. Leave empty for the account's default SMS number.",
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			defaultCountryOption,
			includeBillingOption,
			maxSegmentsOption({ charge: 'each is charged as one SMS, 3p with a live key' }),
			spendingCapOption,
		],
	},
]);

export const smsSend: Operation<Envelope> = {
	prepare(i) {
		const to = phoneNumber(this, i, requiredString(this, i, 'to', 'To'), 'To');
		const message = requiredMessage(this, i, 'message', 'Message');
		checkSegments(this, i, message, maxSegments(this, i), { cost: segmentsCost });
		const from = optionalPhoneNumber(this, i, 'from', 'From');
		const data = { to, message, ...(from ? { from } : {}) };
		return { data, price: priceOf('sms', data), what: 'SMS', money: moneySettings(this, i) };
	},
	// Several SMS to one person leave in item order.
	sequenceKey: (envelope) => String(envelope.data.to),
	concurrency: UNIFIED_LIMITS.sms.concurrency,
	carriesOutOnce: true,
	describe: (envelope) => `SMS to ${String(envelope.data.to)}`,
	async run(envelope, i) {
		return await sendEnvelope(this, i, 'sms', 'send', envelope);
	},
};
