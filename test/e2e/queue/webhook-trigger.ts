// Scenario 3 of the queue run: signed, forged, repeated and simultaneous Comms Unified events
// at the webhook process; the executions run on the workers.

import { sign, TEST_NUMBER, type CommsSandbox } from '../comms.ts';
import { waitFor } from '../rig/n8n-server.ts';
import { sleep } from '../rig/queue-processes.ts';
import { expect } from './settings.ts';

/** A POST whose failure to connect is an answer (status 0), not an exception. */
export async function post(
	url: string,
	body: string,
	headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
	try {
		const response = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json', ...headers },
			body,
		});
		return { status: response.status, text: await response.text() };
	} catch (error) {
		return { status: 0, text: error.message };
	}
}

export async function waitWebhookLive(url: string, timeoutMs = 90000): Promise<void> {
	await waitFor(
		`the production webhook ${url}`,
		async () => {
			const probe = await fetch(url).catch(() => null);
			if (!probe) return false;
			const text = await probe.text();
			return probe.status !== 404 || /POST request/i.test(text);
		},
		{ timeoutMs },
	);
}

/** Scenario 3: signed, forged, repeated and simultaneous events at the webhook process. */
export async function webhookTriggerScenario({
	sandbox,
	hook,
	mainHook,
}: {
	sandbox: CommsSandbox;
	hook: string;
	mainHook: string;
}) {
	const problems: string[] = [];
	const secret = sandbox.credentials.webhookSecret;
	const events = () => sandbox.collector.bodies('/events');
	await waitWebhookLive(hook);
	const event = (name: string, id: string) =>
		JSON.stringify({
			event: name,
			timestamp: new Date().toISOString(),
			data: name.startsWith('call')
				? { call_id: id, duration: 42 }
				: { message_id: id, to: TEST_NUMBER },
		});
	// 1. A signed event: 200 and one execution on a worker.
	const first = event('call.completed', `call_queue_${Date.now()}`);
	const signed = { 'x-signature': sign(first, secret) };
	const accepted = await post(hook, first, signed);
	expect(problems, accepted.status === 200, `a signed event answered ${accepted.status}`);
	await waitFor('the call.completed execution', () => events().length >= 1, { timeoutMs: 60000 });
	// 2. Forged: 401 each.
	const forged: [string, string, Record<string, string>][] = [
		['altered body', first.replace('"duration":42', '"duration":43'), signed],
		['no signature', first, {}],
		['wrong signature', first, { 'x-signature': sign(first, 'not-the-secret') }],
	];
	const refused: Record<string, number> = {};
	for (const [what, body, headers] of forged) {
		const answer = await post(hook, body, headers);
		refused[what] = answer.status;
		expect(problems, answer.status === 401, `${what}: answered ${answer.status}, expected 401`);
	}
	// 3. The same delivery again at the webhook process, then at the main: 200, nothing new.
	const repeat = await post(hook, first, signed);
	expect(problems, repeat.status === 200, `a repeat answered ${repeat.status}`);
	const repeatViaMain = await post(mainHook, first, signed);
	// 4. Three copies of a fresh event at the same moment: one execution.
	const fresh = event('sms.delivered', `sms_queue_${Date.now()}`);
	const copies = await Promise.all(
		[1, 2, 3].map(() => post(hook, fresh, { 'x-signature': `sha256=${sign(fresh, secret)}` })),
	);
	expect(
		problems,
		copies.every((c) => c.status === 200),
		`simultaneous copies answered ${copies.map((c) => c.status).join(', ')}`,
	);
	await waitFor('the sms.delivered execution', () => events().length >= 2, { timeoutMs: 60000 });
	await sleep(5000);
	const got = events().map((e: { event: string }) => e.event);
	expect(
		problems,
		JSON.stringify(got) === JSON.stringify(['call.completed', 'sms.delivered']),
		`the workflow ran for ${JSON.stringify(got)}, expected call.completed and sms.delivered once each`,
	);
	return {
		signedAnswered: accepted.status,
		forgedAnswered: refused,
		repeatAtWebhookProcess: repeat.status,
		repeatAtMain: repeatViaMain.status,
		simultaneousCopies: copies.map((c) => c.status),
		workflowRanFor: got,
		problems,
	};
}
