// The execution's money survives n8n parking it and restarting: in an n8n of its own (it is
// restarted), a published workflow Webhook -> Comms Unified SMS x2 (cap 9p) -> Wait 70 s -> Comms
// Unified SMS x2 (cap 9p) is started; once the execution is waiting, n8n is stopped and started
// again, and n8n's wait tracker resumes it from its database. Three SMS go and the fourth is
// refused, saying 9p were spent (cap-across-wait.ts). About two and a half minutes.

import { sandboxOf } from '../comms.ts';
import {
	capAcrossWaitProblems,
	capAcrossWaitWorkflow,
	liveUnifiedCredential,
	WAIT_SECONDS,
} from '../cap-across-wait.ts';
import { expect } from '../comms.ts';
import type { LiveScenario } from '../rig/live-scenarios.ts';
import { ensureN8n } from '../rig/n8n-install.ts';
import { ownerSession, waitFor, waitForProductionWebhook } from '../rig/n8n-server.ts';
import { ownN8nEnvironment, startOwnN8nServer } from '../rig/own-n8n.ts';
import { log } from '../rig/proc.ts';
import type { Json } from '../rig/types.ts';

const HOOK = 'cap-across-wait';
const COLLECT = '/cap-across-wait';

export const executionStateScenario: LiveScenario = {
	name: `Comms Unified Spending Cap across a ${WAIT_SECONDS} s Wait and an n8n restart while it waits: 3 SMS under a 9p cap, the 4th refused`,
	async run(context) {
		const sandbox = sandboxOf(context.server);
		const n8n = await ensureN8n();
		const env = await ownN8nEnvironment(n8n, 'execution-state', context);
		let running = await startOwnN8nServer(n8n, env, 'n8n (execution state)');
		try {
			let session = await ownerSession(running.url);
			const credential = await session.post(
				'/rest/credentials',
				liveUnifiedCredential(sandbox, 'Comms Unified (live, cap)'),
			);
			const created = await session.post(
				'/rest/workflows',
				capAcrossWaitWorkflow(
					'Cap across a wait',
					HOOK,
					{ id: credential.id, name: credential.name },
					sandbox.collector.url,
					COLLECT,
				),
			);
			await session.post(`/rest/workflows/${created.id}/activate`, {
				versionId: created.versionId,
			});
			await waitForProductionWebhook(`${running.url}/webhook/${HOOK}`);
			const started = await fetch(`${running.url}/webhook/${HOOK}`, { method: 'POST' });
			expect(started.ok, `the webhook answered ${started.status}`);

			const waiting = await waitFor(
				'the execution to wait',
				async () => {
					const list = await session.get('/rest/executions?limit=20');
					return (list.results ?? list).find(
						(e: Json) => e.workflowId === created.id && e.status === 'waiting',
					);
				},
				{ timeoutMs: 60_000, intervalMs: 1000 },
			);
			log(`  execution ${waiting.id} is waiting; restarting n8n while it waits`);
			await running.proc.stop();
			running = await startOwnN8nServer(n8n, env, 'n8n (execution state, restarted)');
			session = await ownerSession(running.url);

			const finished = await waitFor(
				'the resumed execution to finish',
				async () => {
					const execution = await session.get(`/rest/executions/${waiting.id}`);
					return ['success', 'error', 'crashed'].includes(execution.status) ? execution : null;
				},
				{ timeoutMs: (WAIT_SECONDS + 120) * 1000, intervalMs: 2000 },
			);
			const problems = capAcrossWaitProblems(
				sandbox,
				String(waiting.id),
				sandbox.collector.bodies(COLLECT),
			);
			expect(
				problems.length === 0 && finished.status === 'success',
				`execution ${waiting.id} ended ${finished.status}: ${problems.join('; ')}`,
			);
			log(
				`  execution ${waiting.id}: resumed after the restart, 3 SMS went, the 4th was refused at 9p`,
			);
		} finally {
			await running.proc.stop();
		}
	},
};
