// Scenario 5: the execution's money survives a resume on another worker. The workflow of
// ../cap-across-wait.ts is started through the webhook process and run by a worker up to its Wait
// of 70 s, where n8n parks it in the database; that worker is then stopped, so the main's wait
// tracker hands the resumed execution to the other worker. Three SMS go under the 9p cap and the
// fourth is refused, saying 9p were spent.

import { capAcrossWaitProblems, WAIT_SECONDS } from '../cap-across-wait.ts';
import { post } from '../comms.ts';
import { FINISHED } from '../rig/executions.ts';
import { waitFor } from '../rig/n8n-server.ts';
import { log } from '../rig/proc.ts';
import { executionsByWorker } from '../rig/queue-processes.ts';
import type { Json } from '../rig/types.ts';
import type { QueueRun } from './start.ts';
import { CAP_WAIT_COLLECT, HOOKS } from './workflows.ts';

export async function capAcrossWaitScenario(run: QueueRun): Promise<Json> {
	const { sandbox, reader, workers, webhookProc, workflows } = run;
	const workflowId = workflows.capAcrossWait.id!;
	const answer = await post(`${webhookProc.url}/webhook/${HOOKS.capWait}`, '{}');
	if (answer.status !== 200) return { problems: [`the webhook answered ${answer.status}`] };
	const waiting = await waitFor(
		'the execution to wait',
		async () =>
			(await reader.list().catch((): Json[] => [])).find(
				(e: Json) => e.workflowId === workflowId && e.status === 'waiting',
			),
		{ timeoutMs: 90_000, intervalMs: 1000 },
	);
	const id = String(waiting.id);
	const before = executionsByWorker(workers).get(id);
	const first = workers.find((worker) => worker.label === before);
	if (!first) return { problems: [`no worker says it ran execution ${id}`] };
	log(`  execution ${id} waits; it ran on ${before}, which is stopped now`);
	await first.stop(30_000);
	const finished = await waitFor(
		'the resumed execution to finish',
		async () => {
			const execution = await reader.get(id).catch(() => null);
			return execution && FINISHED.has(execution.status) ? execution : null;
		},
		{ timeoutMs: (WAIT_SECONDS + 120) * 1000, intervalMs: 2000 },
	);
	const after = executionsByWorker(workers.filter((worker) => worker !== first)).get(id);
	const problems = capAcrossWaitProblems(sandbox, id, sandbox.collector.bodies(CAP_WAIT_COLLECT));
	if (finished.status !== 'success') problems.push(`the execution ended ${finished.status}`);
	if (!after || after === before)
		problems.push(`the resumed execution ran on ${after ?? 'no worker'}`);
	return { execution: id, before, after, status: finished.status, problems };
}
