// Comms Unified Trigger, published in a running n8n: the sandbox's own signed call.completed
// starts the workflow; forged, altered, re-serialised and stale events get 401 and start nothing;
// a repeat inside the replay window, even three copies at once, starts it once.

import crypto from 'node:crypto';
import {
	answered,
	expect,
	post,
	sandboxOf,
	TEST_NUMBER,
	triggerWorkflow,
	UNIFIED_EVENTS,
	UNIFIED_TRIGGER_TYPE,
	unifiedCredential,
} from '../comms.ts';
import type { LiveScenario } from '../rig/live-scenarios.ts';
import { waitFor, waitForProductionWebhook } from '../rig/n8n-server.ts';
import { log, sleep } from '../rig/proc.ts';
import { postCopiesAtOnce, sign, unifiedEvent } from '../signed-events.ts';

export const webhookTriggerScenario: LiveScenario = {
	name: 'Comms Unified Trigger in a running n8n: signed events start the workflow once, forged ones get 401',
	credentials: (server) => [unifiedCredential(sandboxOf(server), 'Comms Unified (live)')],
	workflows: (server, credentials) => {
		const sandbox = sandboxOf(server);
		const webhookId = crypto.randomUUID();
		sandbox.liveWebhookId = webhookId;
		return [
			triggerWorkflow(
				'Webhook trigger (live)',
				{
					id: 'webhook-trigger',
					name: 'On event',
					type: UNIFIED_TRIGGER_TYPE,
					typeVersion: 1,
					webhookId,
					// Replay protection at its default (on, one hour), as a user gets it.
					parameters: { events: UNIFIED_EVENTS, options: {} },
					credentials: {
						commsUnifiedApi: {
							id: credentials['Comms Unified (live)'].id,
							name: 'Comms Unified (live)',
						},
					},
				},
				sandbox.collector.url,
				'/events',
			),
		];
	},
	async run({ url, server }) {
		const sandbox = sandboxOf(server);
		const hook = `${url}/webhook/${sandbox.liveWebhookId}/webhook`;
		const secret = sandbox.credentials.webhookSecret;
		const events = () => sandbox.collector.bodies('/events');
		await waitForProductionWebhook(hook);

		// 1. The sandbox places a voice call whose webhook_url is the trigger; its signed call.completed arrives.
		const made = await post(
			sandbox.unifiedUrl,
			JSON.stringify({
				api_key: sandbox.credentials.unified.test,
				service: 'voice',
				action: 'make_call',
				data: { to: TEST_NUMBER, message: 'Hello from the e2e run', webhook_url: hook },
			}),
		);
		expect(
			made.status === 200,
			`voice/make_call answered ${made.status}: ${made.text.slice(0, 200)}`,
		);
		await sandbox.control.advanceClock(600);
		const deliveries = await sandbox.control.flushWebhooks();
		const delivery = deliveries.find((d) => d.url === hook && d.event === 'call.completed');
		expect(
			delivery,
			`the sandbox delivered no call.completed to the trigger (deliveries: ${JSON.stringify(deliveries.map((d) => [d.event, d.responseStatus]))})`,
		);
		expect(
			delivery.responseStatus === 200,
			`the trigger answered the sandbox's signed event with ${delivery.responseStatus}`,
		);
		await waitFor('the call.completed execution', () => events().length >= 1);
		expect(
			events()[0].event === 'call.completed',
			`the workflow got ${JSON.stringify(events()[0]).slice(0, 200)}`,
		);

		// 2. The same delivery again: 200, nothing new.
		const repeat = await post(hook, delivery.body, delivery.headers);
		expect(repeat.status === 200, `a repeat delivery answered ${answered(repeat)}`);

		// 3. Forged, altered, unsigned, re-serialised: 401.
		const altered = delivery.body.replace(
			/"duration":\s*(\d+)/,
			(_, d) => `"duration":${Number(d) + 1}`,
		);
		expect(altered !== delivery.body, 'could not alter the delivered body');
		const refusals: [string, string, Record<string, string>][] = [
			['a body changed by one value', altered, delivery.headers],
			['no signature', delivery.body, {}],
			['re-serialised JSON', JSON.stringify(JSON.parse(delivery.body), null, 2), delivery.headers],
			[
				'a wrong signature',
				delivery.body,
				{ 'x-signature': sign(delivery.body, 'not-the-secret') },
			],
		];
		for (const [what, body, headers] of refusals) {
			const answer = await post(hook, body, headers);
			expect(answer.status === 401, `${what}: answered ${answered(answer)}, expected 401`);
			expect(
				!answer.text.includes(secret) && !answer.text.includes(sign(body, secret)),
				`${what}: the answer shows the secret or the expected signature`,
			);
		}

		// 4. Stale: a signed event two hours old is outside the replay window.
		const stale = unifiedEvent(
			'sms.delivered',
			'sms_e2e_stale',
			new Date(Date.now() - 2 * 3600_000),
		);
		expect(
			(await post(hook, stale, { 'x-signature': sign(stale, secret) })).status === 401,
			'a stale event was not refused with 401',
		);

		// 5. Three copies of a fresh signed event at the same moment (sha256= prefix): one execution.
		const fresh = unifiedEvent('sms.delivered', 'sms_e2e_fresh');
		const answers = await postCopiesAtOnce(hook, fresh, secret);
		expect(
			answers.every((status) => status === 200),
			`simultaneous copies answered ${answers.join(', ')}`,
		);
		await waitFor('the sms.delivered execution', () => events().length >= 2);
		await sleep(3000);
		const got = events().map((e) => e.event);
		expect(
			JSON.stringify(got) === JSON.stringify(['call.completed', 'sms.delivered']),
			`the workflow ran for ${JSON.stringify(got)}, expected call.completed and sms.delivered once each`,
		);
		log(
			`  signed events ran once each (${got.join(', ')}); 5 forged, altered or stale events got 401`,
		);
	},
};
