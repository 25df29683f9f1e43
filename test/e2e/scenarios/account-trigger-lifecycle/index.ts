// The Comms Account Trigger through a real n8n's lifecycle, on both of n8n 2.41's poll paths:
// the default one, and the durable scheduler with durable cursors (N8N_SCHEDULER_ENABLED,
// N8N_SCHEDULER_POLL_TRIGGERS_ENABLED, N8N_USE_WORKFLOW_PUBLICATION_SERVICE and
// N8N_POLLER_DURABLE_CURSORS_ENABLED). For each path, one n8n of its own (a fresh database,
// the community package copied from the shared run's install) is started; three workflows, one
// per event (SMS Received, Call Ended, SMS Delivered), are published into it while it runs;
// an SMS burst, a call and a sent SMS follow at once, and n8n is restarted before the first
// scheduled poll can emit them. Each record must then reach its workflow exactly once, the
// trigger being found by its new name (commsAccountTrigger). Before those records, 250 SMS are
// sent and delivered at once, so more than a page of sent SMS comes between two polls of the
// sandbox, which answers newest first: SMS Delivered emits the newest 200 (the record's SMS and
// the 199 newest of the 250) once each, and says in n8n's log that the older ones could not be
// read (a documented limit). Two n8n starts per path.

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
import { startOwnN8nServer } from '../../rig/own-n8n.ts';
import { ownEnvironment, type PathName } from './poll-paths.ts';
import { BULK, polls, sendBulk, sendRecords } from './records.ts';

async function runPath(pathName: PathName, context: LiveContext): Promise<void> {
	const sandbox = sandboxOf(context.server);
	const { n8n } = context;
	const env = await ownEnvironment(n8n, pathName, context);
	const pollCounts = () =>
		Object.fromEntries(EVENTS.map((event) => [event, polls(sandbox, event)]));
	const got = (event: AccountEvent): Json[] =>
		sandbox.collector.bodies(collectorPath(pathName, event));
	let running = await startOwnN8nServer(n8n, env, `n8n ${pathName}`);
	try {
		// Published into the running n8n, one workflow per event.
		const before = pollCounts();
		await publishEventWorkflows(await ownerSession(running.url), sandbox, pathName);
		await waitFor(
			'the publish-time poll of each event',
			() => EVENTS.every((event) => polls(sandbox, event) > before[event]),
			{ timeoutMs: 60000 },
		);
		// Right after publishing: more sent SMS than a page, the records, then a restart before a
		// scheduled poll emits them.
		const bulk = await sendBulk(sandbox, pathName);
		const expected = await sendRecords(sandbox, pathName);
		const early = EVENTS.map((event) => got(event).length);
		await running.proc.stop();
		const firstLog = running.proc.text();
		log(
			`  ${pathName}: published 3 workflows into a running n8n, sent ${BULK} SMS delivered at once, 3 SMS, a call and an SMS, restarted n8n (${early.reduce((a, b) => a + b, 0)} items had arrived before the restart)`,
		);
		running = await startOwnN8nServer(n8n, env, `n8n ${pathName} (restarted)`);

		await waitFor(
			'each record to reach its workflow',
			() =>
				got('smsReceived').length >= 3 &&
				got('callEnded').length >= 1 &&
				got('smsDelivered').length >= 200,
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
		// Items carry their messageId (the record's id is not in the send result). Each once: the
		// record's SMS, the newest 199 of the bulk, and (should a poll have come while the bulk was
		// being sent) any of the bulk it saw then, tracked by id since.
		const delivered = got('smsDelivered').map((b) => String(b.messageId));
		const must = [expected.messageId, ...bulk.slice(BULK - 199)];
		const allowed = new Set([expected.messageId, ...bulk]);
		expect(
			new Set(delivered).size === delivered.length &&
				must.every((id) => delivered.includes(id)) &&
				delivered.every((id) => allowed.has(id)) &&
				got('smsDelivered').every((b) => b.status === 'delivered'),
			`${pathName}: SMS Delivered gave ${delivered.length} items (${JSON.stringify(delivered.slice(0, 3))}...), expected ${expected.messageId} and the newest 199 of the bulk, each once`,
		);
		expect(
			/more sent SMS arrived since the last poll than one page \(200\) holds, and the API returns the newest first/.test(
				firstLog + running.proc.text(),
			),
			`${pathName}: n8n's log does not say that the older sent SMS could not be read`,
		);
		log(
			`  ${pathName}: after the restart, 3 SMS, 1 ended call and 1 delivered SMS each reached their workflow once; of ${BULK} more SMS delivered between two polls (newest first), ${delivered.length - 1} came once each, and n8n's log said the older ones could not be read`,
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
