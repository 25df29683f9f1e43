// Comms Account Trigger, published in a running n8n: history from before activation never
// reaches the workflow; SMS arriving afterwards each reach it exactly once, over more than one poll.

import {
	accountCredential,
	expect,
	sandboxOf,
	SMS_TRIGGER_TYPE,
	triggerWorkflow,
	type CommsSandbox,
} from '../comms.ts';
import { waitFor } from '../rig/n8n-server.ts';
import { log, sleep } from '../rig/proc.ts';
import type { LiveScenario } from '../rig/live-scenarios.ts';
import type { Json } from '../rig/types.ts';

function smsPolls(sandbox: CommsSandbox) {
	return sandbox
		.requests()
		.filter((r) => r.method === 'GET' && r.path === '/v1/sms' && r.query.direction === 'received');
}

export const smsTriggerScenario: LiveScenario = {
	name: 'Comms Account Trigger in a running n8n: each new SMS starts the workflow once, history does not',
	credentials: (server) => [accountCredential(sandboxOf(server), 'Comms Account (live)')],
	workflows: (server, credentials) => {
		const sandbox = sandboxOf(server);
		// History that must not flood the workflow on activation.
		sandbox.control.injectInboundSms({
			from: '+447700900777',
			body: 'Before activation',
			count: 3,
		});
		return [
			triggerWorkflow(
				'SMS trigger (live)',
				{
					id: 'sms-trigger',
					name: 'On SMS',
					type: SMS_TRIGGER_TYPE,
					typeVersion: 1,
					parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, options: {} },
					credentials: {
						commsAccountApi: {
							id: credentials['Comms Account (live)'].id,
							name: 'Comms Account (live)',
						},
					},
				},
				sandbox.collector.url,
				'/sms',
			),
		];
	},
	async run({ server }) {
		const sandbox = sandboxOf(server);
		// Activation polls once to set the cursor at "now".
		await waitFor("the SMS trigger's first poll", () => smsPolls(sandbox).length >= 1, {
			timeoutMs: 120000,
		});
		await sleep(1500);
		const sent = sandbox.control.injectInboundSms({
			from: '+447700900778',
			body: 'After activation',
			count: 3,
			intervalSeconds: 1,
		});
		const ids = sent.map((m) => m.id);
		const polls = smsPolls(sandbox).length;
		log(`  injected ${ids.length} SMS; waiting for the next poll (at most a minute)`);
		const delivered = await waitFor(
			'the new SMS to reach the workflow',
			() =>
				sandbox.collector.bodies('/sms').length >= ids.length
					? sandbox.collector.bodies('/sms')
					: null,
			{ timeoutMs: 150000 },
		);
		// One more poll after delivery must bring nothing twice.
		const pollsAfter = smsPolls(sandbox).length;
		await waitFor('one more poll', () => smsPolls(sandbox).length > pollsAfter, {
			timeoutMs: 150000,
		});
		await sleep(3000);
		const bodies = sandbox.collector.bodies('/sms');
		const got = bodies.map((b: Json) => b.id);
		expect(
			JSON.stringify([...got].sort()) === JSON.stringify([...ids].sort()),
			`the workflow received ${JSON.stringify(got)}, expected each of ${JSON.stringify(ids)} once`,
		);
		expect(
			!bodies.some(
				(b: Json) =>
					b.body === 'Before activation' || String(b.body).startsWith('Before activation'),
			),
			'history from before activation reached the workflow',
		);
		expect(
			delivered.every((b: Json) => b.direction === 'received'),
			'an item that is not a received SMS reached the workflow',
		);
		log(
			`  ${got.length} SMS reached the workflow once each over ${smsPolls(sandbox).length - polls + 1} polls; none of the 3 from before activation`,
		);
	},
};
