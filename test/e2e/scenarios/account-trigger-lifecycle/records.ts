// What the lifecycle scenario (index.ts) sends through the sandbox, and the sandbox's view of
// the trigger's polls: inbound SMS, a call to a busy number and a sent SMS, each a record one
// event's workflow must receive exactly once.

import { expect, type CommsSandbox } from '../../comms.ts';
import type { Json } from '../../rig/types.ts';
import type { AccountEvent } from './event-workflows.ts';

const CUSTOMER = '+447700900123';
const BUSY = '+447700900201';

async function accountPost(sandbox: CommsSandbox, apiPath: string, body: unknown): Promise<Json> {
	const response = await fetch(`${sandbox.accountBaseUrl}${apiPath}`, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			authorization: `Bearer ${sandbox.credentials.account.unrestricted}`,
		},
		body: JSON.stringify(body),
	});
	const json: Json = await response.json();
	expect(
		response.status === 201,
		`${apiPath} answered ${response.status}: ${JSON.stringify(json)}`,
	);
	return json;
}

/** Polls of one event's endpoint the sandbox has answered so far. */
export function polls(sandbox: CommsSandbox, event: AccountEvent): number {
	return sandbox.requests().filter((r) => {
		if (r.method !== 'GET') return false;
		if (event === 'callEnded') return r.path === '/v1/calls';
		return (
			r.path === '/v1/sms' && r.query?.direction === (event === 'smsReceived' ? 'received' : 'sent')
		);
	}).length;
}

/** Three inbound SMS, a call that ends busy and a sent SMS; resolves to what each event must bring. */
export async function sendRecords(sandbox: CommsSandbox, pathName: string) {
	const sms = sandbox.control.injectInboundSms({
		from: '+447700900779',
		body: `Lifecycle ${pathName}`,
		count: 3,
		intervalSeconds: 0.2,
	});
	const call = await accountPost(sandbox, '/v1/calls', {
		phoneDocId: sandbox.numbers.main,
		to: BUSY,
	});
	const sent = await accountPost(sandbox, '/v1/sms', {
		phoneDocId: sandbox.numbers.main,
		to: CUSTOMER,
		message: `Lifecycle ${pathName}`,
	});
	return { smsIds: sms.map((m) => m.id), callId: call.callId, messageId: sent.messageId };
}

/** More SMS than a page (200), sent between two polls and delivered at once. */
export const BULK = 250;

/**
 * `BULK` SMS sent (25 at a time, so they go out within a second or so) and delivered at once
 * through the sandbox's control: resolves to their messageIds, oldest first.
 */
export async function sendBulk(sandbox: CommsSandbox, pathName: string): Promise<string[]> {
	const sent: string[] = [];
	for (let from = 0; from < BULK; from += 25) {
		const batch = await Promise.all(
			Array.from({ length: Math.min(25, BULK - from) }, (_, i) =>
				accountPost(sandbox, '/v1/sms', {
					phoneDocId: sandbox.numbers.main,
					to: CUSTOMER,
					message: `Bulk ${pathName} ${from + i}`,
				}),
			),
		);
		sent.push(...batch.map((result) => String(result.messageId)));
	}
	for (const messageId of sent) await sandbox.control.advance(messageId, { untilFinal: true });
	// Oldest first, as the sandbox dates and orders them.
	const views = await Promise.all(sent.map((messageId) => sandbox.control.get(messageId)));
	return views
		.sort(
			(a, b) =>
				Date.parse(String(a.record.sentAt)) - Date.parse(String(b.record.sentAt)) ||
				String(a.record.id).localeCompare(String(b.record.id)),
		)
		.map((view) => String(view.record.messageId));
}
