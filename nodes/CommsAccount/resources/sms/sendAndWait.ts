import type { INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { sendAndWaitProperties } from '../../../shared/runtime/sendAndWait/description';
import { answerLink, withAnswerLink } from '../../../shared/runtime/sendAndWait/wait';
import { checkSegments, maxSegments } from '../../../shared/parameters/smsLength';
import { SMS_MAX_LENGTH, SMS_MAX_SEGMENTS } from './shared';
import { smsSend, smsSendDescription } from './send';

export const smsSendAndWaitDescription: INodeProperties[] = sendAndWaitProperties(
	'sms',
	smsSendDescription,
	'The question to ask. The link to the answer page is added on a line of its own after it (129 characters plus your n8n address and the execution ID: about 160 in all), and counts towards the 1600-character limit and the 160-character segments.',
);

/**
 * Send's checks and send, with the answer link added to the message: the same never-twice,
 * rate-limit and reconciliation path as every SMS.
 */
export const smsSendAndWait: typeof smsSend = {
	async prepare(i) {
		const prepared = await smsSend.prepare.call(this, i);
		const link = answerLink(this);
		const message = withAnswerLink(String(prepared.body.message), link);
		const length = [...message].length;
		if (length > SMS_MAX_LENGTH) {
			throw new NodeOperationError(
				this.getNode(),
				`Message with the answer link is ${length} characters long; the limit is ${SMS_MAX_LENGTH}`,
				{
					itemIndex: i,
					description: `The link takes ${[...link].length + 1} characters. Shorten the message to ${SMS_MAX_LENGTH - [...link].length - 1} characters or fewer.`,
				},
			);
		}
		checkSegments(this, i, message, maxSegments(this, i, SMS_MAX_SEGMENTS), {
			label: 'Message with the answer link',
		});
		return { ...prepared, body: { ...prepared.body, message } };
	},
	sequenceKey: smsSend.sequenceKey,
	carriesOutOnce: smsSend.carriesOutOnce,
	describe: smsSend.describe,
	run: smsSend.run,
};
