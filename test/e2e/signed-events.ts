// Comms Unified events as the Comms Unified Trigger receives them: a body, its HMAC signature,
// and several copies posted at the same moment. Shared by the webhook-trigger scenarios of
// `test:e2e` (scenarios/webhook-trigger.ts) and `test:queue` (queue/webhook-trigger.ts).

import crypto from 'node:crypto';
import { post, TEST_NUMBER } from './comms.ts';

/** The hex HMAC-SHA256 of `body` with `secret`, as the x-signature header carries it. */
export function sign(body: string, secret: string): string {
	return crypto.createHmac('sha256', secret).update(body).digest('hex');
}

/** An event's JSON body: a call event carries `id` as its call, any other as its message. */
export function unifiedEvent(name: string, id: string, at = new Date()): string {
	return JSON.stringify({
		event: name,
		timestamp: at.toISOString(),
		data: name.startsWith('call')
			? { call_id: id, duration: 42 }
			: { message_id: id, to: TEST_NUMBER },
	});
}

/** `copies` posts of one signed body at the same moment (sha256= prefix); resolves to their statuses. */
export async function postCopiesAtOnce(
	url: string,
	body: string,
	secret: string,
	copies = 3,
): Promise<number[]> {
	const answers = await Promise.all(
		Array.from({ length: copies }, () =>
			post(url, body, { 'x-signature': `sha256=${sign(body, secret)}` }),
		),
	);
	return answers.map((answer) => answer.status);
}
