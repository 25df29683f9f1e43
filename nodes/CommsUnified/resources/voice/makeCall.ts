import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

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
	shown,
} from '../../../shared/parameters/nodeParameters';
import {
	type Envelope,
	includeBillingOption,
	moneySettings,
	sendEnvelope,
	spendingCapOption,
	noHistoryNotice,
} from '../../envelope';
import { optionalPhoneNumber, optionalWebhookUrl } from '../../inputs';
import { priceOf } from '../../api/pricing';

/** The five voices, with what a person needs to choose one. All speak English. */
export const VOICES = [
	{ name: 'Amy (UK English, Female, British Accent)', value: 'Voice.Amy' },
	{ name: 'Brian (UK English, Male, British Accent)', value: 'Voice.Brian' },
	{ name: 'Emma (UK English, Female, British Accent)', value: 'Voice.Emma' },
	{ name: 'Joanna (US English, Female, American Accent)', value: 'Voice.Joanna' },
	{ name: 'Matthew (US English, Male, American Accent)', value: 'Voice.Matthew' },
];

export const DEFAULT_VOICE = 'Voice.Amy';

/** The voice as its ID; from an expression, a voice's name alone ("amy") is read too. */
function voiceOf(ctx: IExecuteFunctions, i: number): string {
	const value = requiredString(ctx, i, 'voice', 'Voice');
	const bare = value.replace(/^voice\./i, '').toLowerCase();
	const voice = VOICES.find((v) => v.value.slice('Voice.'.length).toLowerCase() === bare);
	if (!voice) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Voice "${shown(value)}" is not one of the five voices: ${VOICES.map((v) => v.value).join(', ')}`,
			{ itemIndex: i },
		);
	}
	return voice.value;
}

export const voiceMakeCallDescription: INodeProperties[] = forOperation('voice', 'makeCall', [
	noHistoryNotice,
	toParameter('The number to call.'),
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		placeholder:
			"e.g. Call to confirm tomorrow's 10:00 delivery and ask whether someone will be in.",
		description: 'What the AI caller should say or do on the call: a script or instructions',
	},
	{
		displayName: 'Voice',
		name: 'voice',
		type: 'options',
		options: VOICES,
		default: DEFAULT_VOICE,
		description: 'The voice the AI caller speaks with',
	},
	{
		displayName: 'From',
		name: 'from',
		type: 'string',
		default: '',
		placeholder: 'e.g. +44 1632 960100',
		description:
			"Your own number to call from. Leave empty for the account's default caller number.",
	},
	{
		displayName: 'Webhook URL',
		name: 'webhookUrl',
		type: 'string',
		default: '',
		placeholder: 'e.g. https://n8n.example.com/webhook/call-outcomes',
		description:
			"Where the API posts the call's outcome (call.completed or call.failed). Paste the Production URL of a Comms Unified Trigger to start a workflow when the call ends. Leave empty for none.",
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [defaultCountryOption, includeBillingOption, spendingCapOption],
	},
]);

export const voiceMakeCall: Operation<Envelope> = {
	prepare(i) {
		const to = phoneNumber(this, i, requiredString(this, i, 'to', 'To'), 'To');
		const message = requiredMessage(this, i, 'message', 'Message');
		const voice = voiceOf(this, i);
		const from = optionalPhoneNumber(this, i, 'from', 'From');
		const webhookUrl = optionalWebhookUrl(this, i, 'webhookUrl', 'Webhook URL');
		const data = {
			to,
			message,
			voice,
			...(from ? { from } : {}),
			...(webhookUrl ? { webhook_url: webhookUrl } : {}),
		};
		return {
			data,
			price: priceOf('voice', data),
			what: 'voice call',
			money: moneySettings(this, i),
		};
	},
	concurrency: UNIFIED_LIMITS.voice.concurrency,
	carriesOutOnce: true,
	describe: (envelope) => `voice call to ${String(envelope.data.to)}`,
	async run(envelope, i) {
		return await sendEnvelope(this, i, 'voice', 'make_call', envelope);
	},
};
