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
