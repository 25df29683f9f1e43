// The Comms Account Trigger through a real n8n's lifecycle, on both of n8n 2.41's poll paths:
// the default one, and the durable scheduler with durable cursors (N8N_SCHEDULER_ENABLED,
// N8N_SCHEDULER_POLL_TRIGGERS_ENABLED, N8N_USE_WORKFLOW_PUBLICATION_SERVICE and
// N8N_POLLER_DURABLE_CURSORS_ENABLED). For each path, one n8n of its own (a fresh database,
// the community package copied from the shared run's install) is started; three workflows, one
// per event (SMS Received, Call Ended, SMS Delivered), are published into it while it runs;
// an SMS burst, a call and a sent SMS follow at once, and n8n is restarted before the first
// scheduled poll can emit them. Each record must then reach its workflow exactly once, the
// trigger being found by its new name (commsAccountTrigger). Two n8n starts per path.

import { expect, sandboxOf } from '../../comms.ts';
import type { LiveContext, LiveScenario } from '../../rig/live-scenarios.ts';
import { ownerSession, waitFor } from '../../rig/n8n-server.ts';
import { log, sleep } from '../../rig/proc.ts';
import type { Json } from '../../rig/types.ts';
import {
	collectorPath,
	EVENTS,
	publishEventWorkflows,
	type AccountEvent,
} from './event-workflows.ts';
import { ownEnvironment, startOwnN8n, type PathName } from './own-n8n.ts';
import { polls, sendRecords } from './records.ts';

async function runPath(pathName: PathName, context: LiveContext): Promise<void> {
	const sandbox = sandboxOf(context.server);
	const { n8n } = context;
	const env = await ownEnvironment(n8n, pathName, context);
	const pollCounts = () =>
		Object.fromEntries(EVENTS.map((event) => [event, polls(sandbox, event)]));
	const got = (event: AccountEvent): Json[] =>
		sandbox.collector.bodies(collectorPath(pathName, event));
	let running = await startOwnN8n(n8n, env, `n8n ${pathName}`);
	try {
		// Published into the running n8n, one workflow per event.
		const before = pollCounts();
		await publishEventWorkflows(await ownerSession(running.url), sandbox, pathName);
		await waitFor(
			'the publish-time poll of each event',
			() => EVENTS.every((event) => polls(sandbox, event) > before[event]),
			{ timeoutMs: 60000 },
		);
		// Right after publishing: the records, then a restart before a scheduled poll emits them.
		const expected = await sendRecords(sandbox, pathName);
		const early = EVENTS.map((event) => got(event).length);
		await running.proc.stop();
		log(
			`  ${pathName}: published 3 workflows into a running n8n, sent 3 SMS, a call and an SMS, restarted n8n (${early.reduce((a, b) => a + b, 0)} items had arrived before the restart)`,
		);
		running = await startOwnN8n(n8n, env, `n8n ${pathName} (restarted)`);

		await waitFor(
			'each record to reach its workflow',
			() =>
				got('smsReceived').length >= 3 &&
				got('callEnded').length >= 1 &&
				got('smsDelivered').length >= 1,
			{ timeoutMs: 200000, intervalMs: 1000 },
		);
		// One more poll of each event after that must bring nothing twice.
		const after = pollCounts();
		await waitFor(
			'one more poll of each event',
			() => EVENTS.every((event) => polls(sandbox, event) > after[event]),
			{ timeoutMs: 150000, intervalMs: 1000 },
		);
		await sleep(3000);
		const received = got('smsReceived').map((b) => b.id);
		expect(
			JSON.stringify([...received].sort()) === JSON.stringify([...expected.smsIds].sort()),
			`${pathName}: SMS Received gave ${JSON.stringify(received)}, expected each of ${JSON.stringify(expected.smsIds)} once`,
		);
		const calls = got('callEnded');
		expect(
			calls.length === 1 && calls[0].id === expected.callId && calls[0].status === 'busy',
			`${pathName}: Call Ended gave ${JSON.stringify(calls)}, expected call ${expected.callId} once, busy`,
		);
		// The delivered record's id is not in the send result: one item, with its messageId.
		const delivered = got('smsDelivered');
		expect(
			delivered.length === 1 &&
				delivered[0].messageId === expected.messageId &&
				delivered[0].status === 'delivered',
			`${pathName}: SMS Delivered gave ${JSON.stringify(delivered)}, expected message ${expected.messageId} once`,
		);
		log(
			`  ${pathName}: after the restart, 3 SMS, 1 ended call and 1 delivered SMS each reached their workflow once`,
		);
	} finally {
		await running.proc.stop();
	}
}

/** One live scenario per poll path; each starts its own n8n twice. */
export function lifecycleScenario(pathName: PathName): LiveScenario {
	return {
		name: `Comms Account Trigger, ${pathName} poll path: published into a running n8n, restarted before the first emit, each event once`,
		async run(context) {
			await runPath(pathName, context);
		},
	};
}
