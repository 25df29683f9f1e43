// Scenario 5 of the queue run: a worker killed mid-send, and the user's way to finish the job.
// An execution of 300 Comms Account SMS Sends (100 recipients, every setting at its default) is
// started through a webhook process; once the sandbox has accepted about 80 of them, the worker
// running it gets SIGKILL (as an out-of-memory kill or a node eviction does). Then, as a user
// would: wait for n8n to fail the execution, Retry it (POST /rest/executions/:id/retry, the
// editor's button), and run the workflow again on the same input. Each of the 300 SMS must have
// been accepted once in all (the sandbox's log), and the run again must say what it skipped.

import { post } from '../comms.ts';
import { FINISHED } from '../rig/executions.ts';
import { ownerSession, waitFor } from '../rig/n8n-server.ts';
import { log, sleep } from '../rig/proc.ts';
import type { QueueProcess } from '../rig/queue-processes.ts';
import type { Json } from '../rig/types.ts';
import { sendNodeResult } from './bursts.ts';
import { expect, KILL_AFTER, KILL_ITEMS, round } from './settings.ts';
import type { QueueRun } from './start.ts';
import { HOOKS } from './workflows.ts';

const TAG = 'killed';

/** The execution a webhook process enqueued after `since` ("Enqueued execution N (job J)"). */
function enqueuedAfter(proc: QueueProcess, since: number): string | undefined {
	for (const { at, text } of proc.lines) {
		if (at < since) continue;
		const match = /Enqueued execution (\S+) \(job/.exec(text);
		if (match) return match[1];
	}
	return undefined;
}

/** The worker whose log says it started `executionId`. */
function workerOf(workers: QueueProcess[], executionId: string): QueueProcess | undefined {
	const line = new RegExp(`Worker started execution ${executionId} \\(job`);
	return workers.find((worker) => worker.lines.some(({ text }) => line.test(text)));
}

/**
 * `onKilled`: called once the worker is dead (or the scenario could not get that far), so that
 * the run can put a worker in its place and use the wait for other scenarios.
 */
export async function killedWorkerScenario(
	run: QueueRun,
	onKilled: (worker?: QueueProcess) => void,
): Promise<Json> {
	const { sandbox, reader, workers, webhookProc, workflows, main } = run;
	const problems: string[] = [];
	const workflowId = workflows.killed.id!;
	const isOurs = (entry: Json) =>
		entry.method === 'POST' &&
		entry.path === '/v1/sms' &&
		String(entry.body?.message ?? '').startsWith(`${TAG} #`);
	const accepted = (): Json[] =>
		sandbox.requests().filter((entry: Json) => isOurs(entry) && entry.status === 201);
	const body = JSON.stringify({ tag: TAG, count: KILL_ITEMS });

	// 1. The execution, and the SIGKILL of its worker once about 80 SMS were accepted.
	const postedAt = Date.now();
	const answer = await post(`${webhookProc.url}/webhook/${HOOKS.killed}`, body);
	if (answer.status !== 200) {
		onKilled();
		return { problems: [`the webhook answered ${answer.status}`] };
	}
	const executionId = await waitFor(
		'the webhook process to enqueue the execution',
		() => enqueuedAfter(webhookProc, postedAt),
		{ timeoutMs: 30_000, intervalMs: 50 },
	);
	const worker = await waitFor('a worker to start it', () => workerOf(workers, executionId), {
		timeoutMs: 60_000,
		intervalMs: 50,
	});
	await waitFor(`${KILL_AFTER} SMS to be accepted`, () => accepted().length >= KILL_AFTER, {
		timeoutMs: 60_000,
		intervalMs: 40,
	});
	worker.kill('SIGKILL');
	const killedAt = Date.now();
	await worker.waitExit();
	onKilled(worker);
	await sleep(1000);
	const beforeKill = accepted().length;
	log(
		`  execution ${executionId}: ${worker.label} got SIGKILL after ${beforeKill} SMS were accepted`,
	);

	// 2. What n8n makes of it: the execution fails, in time, with n8n's message.
	const failed = await waitFor(
		'n8n to end the execution of the killed worker',
		async () => {
			const execution = await reader.get(executionId).catch(() => null);
			return execution && FINISHED.has(execution.status) ? execution : null;
		},
		{ timeoutMs: 5 * 60_000, intervalMs: 2000 },
	);
	const failedAfterSeconds = round((Date.now() - killedAt) / 1000, 1);
	const failure = failed.data?.resultData?.error?.message ?? null;
	log(`  n8n ended it ${failed.status} ${failedAfterSeconds}s after the kill: ${failure}`);
	expect(problems, failed.status !== 'success', `the killed execution ended ${failed.status}`);

	// 3. The editor's Retry of it.
	const session = await ownerSession(main.url!);
	const retryBegan = Date.now();
	let retry: Json;
	try {
		const answer = await session.post(`/rest/executions/${executionId}/retry`, {
			loadWorkflow: false,
		});
		// What the new execution n8n answers with holds: its status, and the nodes it ran.
		retry = {
			execution: String(answer?.id ?? ''),
			mode: answer?.mode ?? null,
			status: answer?.status ?? null,
			nodesRun: Object.keys(answer?.data?.resultData?.runData ?? {}),
			error: answer?.data?.resultData?.error?.message ?? null,
		};
	} catch (error) {
		retry = { refused: error.message };
	}
	// A retry that started an execution: wait for it to end.
	const retried = await waitFor(
		'the retry to end (or to have started nothing)',
		async () => {
			const list = (await reader.list().catch((): Json[] => [])).filter(
				(e: Json) => e.workflowId === workflowId && String(e.id) !== executionId,
			);
			if (list.some((e: Json) => !FINISHED.has(e.status))) return null;
			return {
				executions: list.map((e: Json) => ({ id: String(e.id), status: e.status, mode: e.mode })),
			};
		},
		{ timeoutMs: 120_000, intervalMs: 2000 },
	);
	await sleep(2000);
	const afterRetry = accepted().length;
	retry = {
		...retry,
		...retried,
		sentByRetry: afterRetry - beforeKill,
		seconds: round((Date.now() - retryBegan) / 1000, 1),
	};
	log(`  Retry: ${JSON.stringify(retry)}`);

	// 4. The workflow run again on the same input.
	const again = await post(`${webhookProc.url}/webhook/${HOOKS.killed}`, body);
	expect(problems, again.status === 200, `running it again: the webhook answered ${again.status}`);
	const knownIds = new Set([executionId, ...retried.executions.map((e: Json) => e.id)]);
	const rerun = await waitFor(
		'the run again to end',
		async () =>
			(await reader.list().catch((): Json[] => [])).find(
				(e: Json) =>
					e.workflowId === workflowId && !knownIds.has(String(e.id)) && FINISHED.has(e.status),
			),
		{ timeoutMs: 180_000, intervalMs: 2000 },
	);
	const result = await sendNodeResult(reader, String(rerun.id), KILL_ITEMS);
	const skipped = result.items.filter((item: Json) => item.skipped === true);
	const sentNow = result.items.filter((item: Json) => !item.skipped && item.error === undefined);
	expect(
		problems,
		rerun.status === 'success',
		`the run again ended ${rerun.status}: ${result.error}`,
	);
	expect(
		problems,
		skipped.every((item: Json) =>
			/^Already sent: the SMS history holds an SMS/.test(item.skippedBecause),
		),
		'a skipped item does not say what was found',
	);

	// Each of the 300 once in all, in the sandbox's log.
	const times = new Map<string, number>();
	for (const entry of accepted()) {
		const text = String(entry.body.message);
		times.set(text, (times.get(text) ?? 0) + 1);
	}
	const twice = [...times.values()].filter((n) => n > 1).length;
	expect(
		problems,
		times.size === KILL_ITEMS,
		`${times.size} of the ${KILL_ITEMS} SMS were accepted`,
	);
	expect(problems, twice === 0, `${twice} SMS were accepted more than once`);
	expect(
		problems,
		skipped.length === afterRetry,
		`the run again skipped ${skipped.length}, but ${afterRetry} had been accepted before it`,
	);
	// The run again's history requests (Skip If Sent Within): the number's, and each recipient's.
	const rerunStarted = Date.parse(rerun.startedAt);
	const reads = sandbox
		.requests()
		.filter(
			(entry: Json) =>
				entry.method === 'GET' &&
				entry.path === '/v1/sms' &&
				entry.query?.direction === 'sent' &&
				Date.parse(entry.time) >= rerunStarted,
		);
	const historyReads = {
		number: reads.filter((entry: Json) => entry.query?.peer === undefined).length,
		perRecipient: reads.filter((entry: Json) => entry.query?.peer !== undefined).length,
	};
	return {
		execution: executionId,
		worker: worker.label,
		acceptedWhenKilled: beforeKill,
		failedAfterSeconds,
		failedStatus: failed.status,
		failure,
		retry,
		runAgain: {
			execution: String(rerun.id),
			status: rerun.status,
			skipped: skipped.length,
			sent: sentNow.length,
			historyRequests: historyReads,
			exampleSkipped: skipped[0]?.skippedBecause ?? null,
		},
		acceptedInAll: [...times.values()].reduce((sum, n) => sum + n, 0),
		distinctAccepted: times.size,
		sentTwice: twice,
		problems,
	};
}
