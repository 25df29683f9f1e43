// The queue run's four scenarios in order, each adding its figures and its outcome: the two
// bursts (bursts.ts) with the webhook trigger (webhook-trigger.ts) running beside them, then the
// SMS trigger with a restart of the main (sms-trigger.ts).

import { finishedExecutions, type LoggedRequest } from '../rig/executions.ts';
import type { N8nInstall } from '../rig/n8n-install.ts';
import { E2eError, log } from '../rig/proc.ts';
import * as rig from '../rig/queue-processes.ts';
import type { Json } from '../rig/types.ts';
import { burstScenario, printBurst } from './bursts.ts';
import {
	ACCOUNT_ITEMS,
	ACCOUNT_LIMIT,
	expect,
	UNIFIED_ITEMS,
	UNIFIED_SMS_LIMIT,
} from './settings.ts';
import { smsTriggerScenario } from './sms-trigger.ts';
import type { QueueRun } from './start.ts';
import { post, webhookTriggerScenario } from './webhook-trigger.ts';

export type Outcome = { name: string; problems: string[] };
/** The figures are a JSON report (bench/results.json). */
export type Figures = Record<string, Json>;

/** Scenarios 1 and 2 (bursts, posted to the webhook process) with 3 running beside them. */
export async function burstsAndWebhook(run: QueueRun, figures: Figures, outcomes: Outcome[]) {
	const { sandbox, workflows, reader, workers, webhookProc, main } = run;
	const hookOf = (workflowPath: string) => `${webhookProc.url}/webhook/${workflowPath}`;
	const triggers: [string, string, number][] = [
		['queue-account', 'account-1', ACCOUNT_ITEMS],
		['queue-account', 'account-2', ACCOUNT_ITEMS],
		['queue-unified', 'unified-1', UNIFIED_ITEMS],
		['queue-unified', 'unified-2', UNIFIED_ITEMS],
	];
	log(
		`scenarios 1 and 2: 2 x ${ACCOUNT_ITEMS} Account SMS and 2 x ${UNIFIED_ITEMS} Unified SMS, posted to the webhook process`,
	);
	const burstStarted = Date.now();
	for (const [hookPath, tag, count] of triggers) {
		const answer = await post(hookOf(hookPath), JSON.stringify({ tag, count }));
		if (answer.status !== 200)
			throw new E2eError(`POST ${hookPath} (${tag}) answered ${answer.status}: ${answer.text}`);
		await rig.sleep(250);
	}
	const bursts = Promise.all([
		finishedExecutions(reader, workflows.account.id!, 2, 6 * 60 * 1000),
		finishedExecutions(reader, workflows.unified.id!, 2, 6 * 60 * 1000),
	]);
	// Scenario 3 runs while the bursts do.
	const webhookId = workflows.webhookTrigger.webhookId as string;
	const webhookScenario = webhookTriggerScenario({
		sandbox,
		hook: hookOf(`${webhookId}/webhook`),
		mainHook: `${main.url}/webhook/${webhookId}/webhook`,
	}).catch((error: Error): Figures => ({ problems: [error.message], error }));

	const [accountRuns, unifiedRuns] = await bursts;
	log(`bursts finished ${((Date.now() - burstStarted) / 1000).toFixed(1)}s after the first POST`);
	const byExecution = rig.executionsByWorker(workers);
	const requests = sandbox.requests() as unknown as LoggedRequest[];
	const account = await burstScenario(reader, byExecution, requests, {
		name: '1. Account SMS across two workers (2 x 600 on one key)',
		runs: accountRuns,
		items: ACCOUNT_ITEMS,
		select: (e) => e.api === 'account' && e.method === 'POST' && e.path === '/v1/sms',
		textOf: (e) => String(e.body?.message),
		limit: ACCOUNT_LIMIT,
	});
	outcomes.push({
		name: '1. Account SMS across two workers (2 x 600 on one key)',
		problems: account.problems,
	});
	const unified = await burstScenario(reader, byExecution, requests, {
		name: '2. Unified SMS across two workers (2 x 100 on one key)',
		runs: unifiedRuns,
		items: UNIFIED_ITEMS,
		select: (e) =>
			e.api === 'unified' &&
			e.method === 'POST' &&
			e.body?.service === 'sms' &&
			e.body?.action === 'send',
		textOf: (e) => String(e.body?.data?.message),
		limit: UNIFIED_SMS_LIMIT,
	});
	outcomes.push({
		name: '2. Unified SMS across two workers (2 x 100 on one key)',
		problems: unified.problems,
	});
	figures.accountAcrossWorkers = account;
	figures.unifiedOneService = unified;
	for (const key of ['accountAcrossWorkers', 'unifiedOneService']) printBurst(key, figures[key]);

	// Scenario 3's verdict: two executions of the trigger workflow, each on a worker.
	const webhook: Figures = await webhookScenario;
	if (!webhook.error) {
		const runs = (await reader.list()).filter((e) => e.workflowId === workflows.webhookTrigger.id);
		const onWorkers = rig.executionsByWorker(workers);
		webhook.executions = runs.map((r) => ({
			id: String(r.id),
			status: r.status,
			worker: onWorkers.get(String(r.id)) || null,
		}));
		expect(
			webhook.problems,
			webhook.executions.length === 2,
			`${webhook.executions.length} executions of the trigger workflow, expected 2`,
		);
		expect(
			webhook.problems,
			webhook.executions.every((e: Figures) => e.worker),
			`not every trigger execution ran on a worker: ${JSON.stringify(webhook.executions)}`,
		);
	}
	delete webhook.error;
	webhook.pass = webhook.problems.length === 0;
	figures.webhookTrigger = webhook;
	outcomes.push({
		name: '3. Comms Unified Trigger through the webhook process',
		problems: webhook.problems,
	});
	log(`  webhook trigger: ${JSON.stringify(webhook)}`);
}

/** Scenario 4: SMS trigger, one poller, a restart of the main during a burst. */
export async function smsTrigger(
	run: QueueRun,
	n8n: N8nInstall,
	logDir: string,
	figures: Figures,
	outcomes: Outcome[],
) {
	const restartMain = async () => {
		const stopBegan = Date.now();
		run.lifetimes[run.lifetimes.length - 1].to = stopBegan;
		const exit = await run.main.stop(60000);
		const stopSeconds = (Date.now() - stopBegan) / 1000;
		log(`main stopped (SIGTERM) in ${stopSeconds.toFixed(1)}s: ${JSON.stringify(exit)}`);
		run.lifetimes.push({ from: Date.now(), to: null });
		run.main = await rig.startQueueProcess(n8n, run.queueEnv, {
			role: 'main',
			label: 'main-2',
			logDir,
			port: run.mainPort,
		});
		run.reader.reset();
		return { stopSeconds, startSeconds: run.main.startSeconds, exit };
	};
	const sms: Figures = await smsTriggerScenario({
		sandbox: run.sandbox,
		restartMain,
		lifetimes: run.lifetimes,
	}).catch((error: Error) => ({ problems: [error.message] }));
	sms.pass = sms.problems.length === 0;
	figures.smsTrigger = sms;
	outcomes.push({
		name: '4. SMS trigger: one poller; a restart of the main loses and repeats nothing',
		problems: sms.problems,
	});
	log(`  SMS trigger: ${JSON.stringify(sms)}`);
}
