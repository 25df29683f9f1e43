import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../../../shared/runtime/operation';
import { sendAndWaitProperties } from '../../../shared/runtime/sendAndWait/description';
import { answerLink, withAnswerLink } from '../../../shared/runtime/sendAndWait/wait';
import type { Envelope } from '../../envelope';
import { priceOf } from '../../api/pricing';
import { checkSegments, maxSegments } from '../../../shared/parameters/smsLength';
import { segmentsCost, smsSend, smsSendDescription } from './send';

export const smsSendAndWaitDescription: INodeProperties[] = sendAndWaitProperties(
	'sms',
	smsSendDescription,
	'The question to ask. The link to the answer page is added on a line of its own after it (129 characters plus your n8n address and the execution ID: about 160 in all) and is charged with it: every 160 characters make one SMS, 3p each with a live key, and the two together may use at most Max Segments (10 unless changed under Options).',
);

/**
 * Send's checks and send, with the answer link added to the message and priced with it: the same
 * Spending Cap, rate limit and never-twice path as every SMS.
 */
export const smsSendAndWait: Operation<Envelope> = {
	async prepare(i) {
		const envelope = await smsSend.prepare.call(this, i);
		const data = {
			...envelope.data,
			message: withAnswerLink(String(envelope.data.message), answerLink(this)),
		};
		checkSegments(this, i, data.message, maxSegments(this, i), {
			label: 'Message with the answer link',
			cost: segmentsCost,
		});
		return { ...envelope, data, price: priceOf('sms', data) };
	},
	sequenceKey: smsSend.sequenceKey,
	concurrency: smsSend.concurrency,
	carriesOutOnce: smsSend.carriesOutOnce,
	describe: smsSend.describe,
	run: smsSend.run,
};
