import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Operation } from '../../../shared/runtime/operation';
import { findEarlierSms, noteSmsToSend, skippedOutput } from '../../api/earlierSms';
import { sentSmsLookup } from '../../api/recoveryLookups';
import { withOutcome } from '../../../shared/transport';
import { accountApiRequest } from '../../api/accountApi';
import {
	defaultCountryOption,
	forOperation,
	phoneDocIdLocator,
	smsSenderModes,
	toParameter,
} from '../../../shared/parameters/descriptions';
import {
	options,
	phoneDocId,
	phoneNumber,
	requiredMessage,
	requiredString,
	shown,
	withoutSuccess,
} from '../../../shared/parameters/nodeParameters';
import {
	checkSegments,
	maxSegments,
	maxSegmentsOption,
} from '../../../shared/parameters/smsLength';
import { SMS_MAX_LENGTH, SMS_MAX_SEGMENTS, smsSegments } from './shared';

/** Max Segments: at most the API's own 1,600 characters. */
const maxSegmentsAccountOption = maxSegmentsOption({
	ceiling: SMS_MAX_SEGMENTS,
	charge: "each uses the plan's SMS credits as one SMS",
});

/** Skip If Sent Within's window when the option is not set: on by default (see docs/decisions.md). */
export const DEFAULT_SKIP_MINUTES = 60;

const skipIfSentWithinOption: INodeProperties = {
	displayName: 'Skip If Sent Within (Minutes)',
	name: 'skipIfSentWithinMinutes',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: DEFAULT_SKIP_MINUTES,
	description: `Before sending, look in the SMS history for an SMS from this number to the same recipient with exactly this text, sent in this many minutes before this execution's first SMS Send. If there is one, output it with "skipped" true and send nothing, so running a workflow again after a run that was cut short (a crash, a failed execution) sends only what did not go. Each earlier SMS stands for one item, and what this execution sends itself never counts. On by default (${DEFAULT_SKIP_MINUTES} minutes, even without this option); one history request per node run. 0: off, for a workflow that sends the same text to the same person again on purpose.`,
};

export const smsSendDescription: INodeProperties[] = forOperation('sms', 'send', [
	{
		...phoneDocIdLocator,
		description:
			'The account number to send from; its paired SMS sender is used. The list shows only numbers that can send SMS.',
		modes: smsSenderModes,
	},
	toParameter('The recipient.'),
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		description:
			'Up to 1600 characters. Every 160 characters use one SMS segment; the output shows how many.',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [defaultCountryOption, maxSegmentsAccountOption, skipIfSentWithinOption],
	},
]);

/**
 * An SMS's request body from an item's parameters (From, To, Message), checked: bad input
 * throws before anything is sent. For every operation that sends an SMS.
 */
function prepareSms(ctx: IExecuteFunctions, i: number): IDataObject {
	const message = requiredMessage(ctx, i, 'message', 'Message');
	const length = [...message].length;
	if (length > SMS_MAX_LENGTH) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Message is ${length} characters long; the limit is ${SMS_MAX_LENGTH}`,
			{
				itemIndex: i,
				description: `Message starts "${[...message].slice(0, 40).join('')}…". Shorten it or split it over several SMS.`,
			},
		);
	}
	checkSegments(ctx, i, message, maxSegments(ctx, i, SMS_MAX_SEGMENTS));
	return {
		phoneDocId: phoneDocId(ctx, i),
		to: phoneNumber(ctx, i, requiredString(ctx, i, 'to', 'To'), 'To'),
		message,
	};
}

/**
 * Sends one SMS (a body from `prepareSms`) with the guarantees of the transport: a send whose
 * outcome is unknown is looked up in the SMS history, never sent again blindly. Returns the
 * send result. For every operation that sends an SMS.
 */
export async function sendSms(
	ctx: IExecuteFunctions,
	body: IDataObject,
	i: number,
): Promise<IDataObject> {
	const result = withoutSuccess(
		await accountApiRequest(ctx, {
			method: 'POST',
			path: '/v1/sms',
			body,
			itemIndex: i,
			action: 'the SMS was sent',
			recoveryLookup: sentSmsLookup(body),
		}),
	);
	// One segments field: the API's segmentsUsed, or the API's own rule where it sent none.
	return {
		...result,
		segmentsUsed:
			typeof result.segmentsUsed === 'number'
				? result.segmentsUsed
				: smsSegments(body.message as string),
	};
}

/** Skip If Sent Within (Minutes) of an item: 0 when off, the default when not set. */
function skipWithinMinutes(ctx: IExecuteFunctions, i: number): number {
	const value = options(ctx, i).skipIfSentWithinMinutes;
	if (value === undefined || value === null || value === '') return DEFAULT_SKIP_MINUTES;
	const minutes = typeof value === 'number' ? value : Number(String(value).trim());
	if (!Number.isFinite(minutes) || minutes < 0)
		throw new NodeOperationError(
			ctx.getNode(),
			`Skip If Sent Within (Minutes) "${shown(value)}" must be a number of minutes, 0 or more`,
			{ itemIndex: i },
		);
	return minutes;
}

const smsOf = (body: IDataObject) => ({
	phoneDocId: String(body.phoneDocId),
	to: String(body.to),
	message: String(body.message),
});

export const smsSend: Operation<{ body: IDataObject; skipWithinMinutes: number }> = {
	prepare(i) {
		const prepared = { body: prepareSms(this, i), skipWithinMinutes: skipWithinMinutes(this, i) };
		if (prepared.skipWithinMinutes > 0) noteSmsToSend(this, smsOf(prepared.body));
		return prepared;
	},
	// Several SMS to one person leave in item order (and so arrive in it, as far as the network keeps it).
	sequenceKey: ({ body }) => String(body.to),
	carriesOutOnce: true,
	describe: ({ body }) => `SMS to ${String(body.to)}`,
	async run({ body, skipWithinMinutes }, i) {
		if (skipWithinMinutes <= 0) return await sendSms(this, body, i);
		const sms = smsOf(body);
		const earlier = await findEarlierSms(this, sms, skipWithinMinutes, i).catch(
			(error: unknown) => {
				// The history could not be read, so the SMS was not sent.
				throw withOutcome(error, 'notSent');
			},
		);
		if (earlier.record)
			return skippedOutput(earlier.record, sms, skipWithinMinutes, smsSegments(sms.message));
		const sent = await sendSms(this, body, i);
		if (!earlier.unchecked) return sent;
		return {
			...sent,
			skipCheck: `Sent without a full check: ${earlier.unchecked} (Skip If Sent Within looked for an earlier SMS to ${sms.to} with this text and found none among those it could read).`,
		};
	},
};
