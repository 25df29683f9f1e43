// The Comms Account Trigger through a real n8n's lifecycle, on both of n8n 2.41's poll paths:
// the default one, and the durable scheduler with durable cursors (N8N_SCHEDULER_ENABLED,
// N8N_SCHEDULER_POLL_TRIGGERS_ENABLED, N8N_USE_WORKFLOW_PUBLICATION_SERVICE and
// N8N_POLLER_DURABLE_CURSORS_ENABLED). For each path, one n8n of its own (a fresh database,
// the community package copied from the shared run's install) is started; three workflows, one
// per event (SMS Received, Call Ended, SMS Delivered), are published into it while it runs;
// an SMS burst, a call and a sent SMS follow at once, and n8n is restarted before the first
// scheduled poll can emit them. Each record must then reach its workflow exactly once, the
// trigger being found by its new name (commsAccountTrigger). Two n8n starts per path.

import fs from 'node:fs';
import path from 'node:path';
import { expect, sandboxOf } from '../../comms.ts';
import { ownerSession, sleep, waitFor } from '../../rig/n8n-server.ts';
import { ensureN8n } from '../../rig/n8n-install.ts';
import { log } from '../../rig/proc.ts';
import type { LiveContext, LiveScenario } from '../../rig/live-scenarios.ts';
import { n8nEnvironment } from '../../rig/n8n-environment.ts';
import type { Json } from '../../rig/types.ts';
import {
	accountPost,
	BUSY,
	CUSTOMER,
	eventWorkflow,
	PATHS,
	polls,
	startOwnN8n,
	type AccountEvent,
	type PathName,
} from './helpers.ts';

async function runPath(
	pathName: PathName,
	{ env: sharedEnv, server, tempRoot }: LiveContext,
): Promise<void> {
	const sandbox = sandboxOf(server);
	const n8n = await ensureN8n();
	const userFolder = path.join(tempRoot, `lifecycle-${pathName}`);
	fs.mkdirSync(path.join(userFolder, '.n8n'), { recursive: true });
	// The community package as the shared run installed it.
	fs.cpSync(
		path.join(sharedEnv.N8N_USER_FOLDER!, '.n8n', 'nodes'),
		path.join(userFolder, '.n8n', 'nodes'),
		{ recursive: true, verbatimSymlinks: true },
	);
	const env = {
		...(await n8nEnvironment(n8n, userFolder)),
		...PATHS[pathName],
	};
	let running = await startOwnN8n(n8n, env, `n8n ${pathName}`);
	try {
		const session = await ownerSession(running.url);
		const credential = await session.post('/rest/credentials', {
			name: `Comms Account (${pathName})`,
			type: 'commsAccountApi',
			data: {
				apiKey: sandbox.credentials.account.unrestricted,
				baseUrl: sandbox.accountBaseUrl,
			},
		});
		const events: AccountEvent[] = ['smsReceived', 'callEnded', 'smsDelivered'];
		const before = Object.fromEntries(events.map((event) => [event, polls(sandbox, event)]));
		// Published into the running n8n, one workflow per event.
		for (const event of events) {
			const created = await session.post(
				'/rest/workflows',
				eventWorkflow(
					pathName,
					event,
					{ id: credential.id, name: credential.name },
					sandbox.collector.url,
				),
			);
			await session.post(`/rest/workflows/${created.id}/activate`, {
				versionId: created.versionId,
			});
		}
		await waitFor(
			'the publish-time poll of each event',
			() => events.every((event) => polls(sandbox, event) > before[event]),
			{ timeoutMs: 60000 },
		);
		// Right after publishing: the records, then a restart before a scheduled poll emits them.
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
		const early = events.map(
			(event) => sandbox.collector.bodies(`/lc-${pathName}-${event}`).length,
		);
		await running.proc.stop();
		log(
			`  ${pathName}: published 3 workflows into a running n8n, sent 3 SMS, a call and an SMS, restarted n8n (${early.reduce((a, b) => a + b, 0)} items had arrived before the restart)`,
		);
		running = await startOwnN8n(n8n, env, `n8n ${pathName} (restarted)`);

		const expected = {
			smsReceived: sms.map((m) => m.id),
			callEnded: [call.callId],
			smsDelivered: null, // the record id is not in the send result: one item, with its messageId
		};
		const got = (event: AccountEvent): Json[] =>
			sandbox.collector.bodies(`/lc-${pathName}-${event}`);
		await waitFor(
			'each record to reach its workflow',
			() =>
				got('smsReceived').length >= 3 &&
				got('callEnded').length >= 1 &&
				got('smsDelivered').length >= 1,
			{ timeoutMs: 200000, intervalMs: 1000 },
		);
		// One more poll of each event after that must bring nothing twice.
		const after = Object.fromEntries(events.map((event) => [event, polls(sandbox, event)]));
		await waitFor(
			'one more poll of each event',
			() => events.every((event) => polls(sandbox, event) > after[event]),
			{ timeoutMs: 150000, intervalMs: 1000 },
		);
		await sleep(3000);
		const received = got('smsReceived').map((b) => b.id);
		expect(
			JSON.stringify([...received].sort()) === JSON.stringify([...expected.smsReceived].sort()),
			`${pathName}: SMS Received gave ${JSON.stringify(received)}, expected each of ${JSON.stringify(expected.smsReceived)} once`,
		);
		const calls = got('callEnded');
		expect(
			calls.length === 1 && calls[0].id === call.callId && calls[0].status === 'busy',
			`${pathName}: Call Ended gave ${JSON.stringify(calls)}, expected call ${call.callId} once, busy`,
		);
		const delivered = got('smsDelivered');
		expect(
			delivered.length === 1 &&
				delivered[0].messageId === sent.messageId &&
				delivered[0].status === 'delivered',
			`${pathName}: SMS Delivered gave ${JSON.stringify(delivered)}, expected message ${sent.messageId} once`,
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
