// The queue run's five scenarios in order, each adding its figures and its outcome: the two
// bursts (bursts.ts) with the webhook trigger (webhook-trigger.ts) running beside them, the SMS
// trigger with a restart of the main (sms-trigger.ts), then the Spending Cap across a Wait resumed
// on the other worker (cap-across-wait.ts; it stops a worker, so it comes last).

import { post } from '../comms.ts';
import { finishedExecutions, type LoggedRequest } from '../rig/executions.ts';
import type { N8nInstall } from '../rig/n8n-install.ts';
import { E2eError, log, sleep } from '../rig/proc.ts';
import { executionsByWorker } from '../rig/queue-processes.ts';
import type { Json } from '../rig/types.ts';
import { burstScenario, printBurst } from './bursts.ts';
import { capAcrossWaitScenario } from './cap-across-wait.ts';
import { ACCOUNT_ITEMS, ACCOUNT_LIMIT, UNIFIED_ITEMS, UNIFIED_SMS_LIMIT } from './settings.ts';
import { smsTriggerScenario } from './sms-trigger.ts';
import { restartMain, type QueueRun } from './start.ts';
import { checkRanOnWorkers, webhookTriggerScenario } from './webhook-trigger.ts';

export type Outcome = { name: string; problems: string[] };
/** The figures are a JSON report (bench/results.json). */
export type Figures = Record<string, Json>;

const ACCOUNT_BURST = '1. Account SMS across two workers (2 x 600 on one key)';
const UNIFIED_BURST = '2. Unified SMS across two workers (2 x 100 on one key)';
const WEBHOOK_TRIGGER = '3. Comms Unified Trigger through the webhook process';
const SMS_TRIGGER = '4. SMS trigger: one poller; a restart of the main loses and repeats nothing';
const CAP_ACROSS_WAIT =
	'5. Spending Cap across a 70 s Wait, resumed on the other worker: 3 SMS under 9p, the 4th refused';

/** Starts the two bursts: two executions of each burst workflow, through the webhook process. */
async function postBursts({ webhookProc }: QueueRun): Promise<void> {
	const triggers: [string, string, number][] = [
		['queue-account', 'account-1', ACCOUNT_ITEMS],
		['queue-account', 'account-2', ACCOUNT_ITEMS],
		['queue-unified', 'unified-1', UNIFIED_ITEMS],
		['queue-unified', 'unified-2', UNIFIED_ITEMS],
	];
	for (const [hookPath, tag, count] of triggers) {
		const answer = await post(
			`${webhookProc.url}/webhook/${hookPath}`,
			JSON.stringify({ tag, count }),
		);
		if (answer.status !== 200)
			throw new E2eError(`POST ${hookPath} (${tag}) answered ${answer.status}: ${answer.text}`);
		await sleep(250);
	}
}

/** Scenarios 1 and 2 (bursts, posted to the webhook process) with 3 running beside them. */
export async function burstsAndWebhook(run: QueueRun, figures: Figures, outcomes: Outcome[]) {
	const { sandbox, workflows, reader, workers, webhookProc, main } = run;
	log(
		`scenarios 1 and 2: 2 x ${ACCOUNT_ITEMS} Account SMS and 2 x ${UNIFIED_ITEMS} Unified SMS, posted to the webhook process`,
	);
	const burstStarted = Date.now();
	await postBursts(run);
	const bursts = Promise.all([
		finishedExecutions(reader, workflows.account.id!, 2, 6 * 60 * 1000),
		finishedExecutions(reader, workflows.unified.id!, 2, 6 * 60 * 1000),
	]);
	// Scenario 3 runs while the bursts do.
	const webhookId = workflows.webhookTrigger.webhookId as string;
	const webhookScenario = webhookTriggerScenario({
		sandbox,
		hook: `${webhookProc.url}/webhook/${webhookId}/webhook`,
		mainHook: `${main.url}/webhook/${webhookId}/webhook`,
	}).catch((error: Error): Figures => ({ problems: [error.message], error }));

	const [accountRuns, unifiedRuns] = await bursts;
	log(`bursts finished ${((Date.now() - burstStarted) / 1000).toFixed(1)}s after the first POST`);
	const byExecution = executionsByWorker(workers);
	const requests = sandbox.requests() as unknown as LoggedRequest[];
	const account = await burstScenario(reader, byExecution, requests, {
		name: ACCOUNT_BURST,
		runs: accountRuns,
		items: ACCOUNT_ITEMS,
		select: (e) => e.api === 'account' && e.method === 'POST' && e.path === '/v1/sms',
		textOf: (e) => String(e.body?.message),
		limit: ACCOUNT_LIMIT,
	});
	outcomes.push({ name: ACCOUNT_BURST, problems: account.problems });
	const unified = await burstScenario(reader, byExecution, requests, {
		name: UNIFIED_BURST,
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
	outcomes.push({ name: UNIFIED_BURST, problems: unified.problems });
	figures.accountAcrossWorkers = account;
	figures.unifiedOneService = unified;
	for (const key of ['accountAcrossWorkers', 'unifiedOneService']) printBurst(key, figures[key]);

	const webhook: Figures = await webhookScenario;
	if (!webhook.error)
		await checkRanOnWorkers(webhook, reader, workflows.webhookTrigger.id!, workers);
	delete webhook.error;
	webhook.pass = webhook.problems.length === 0;
	figures.webhookTrigger = webhook;
	outcomes.push({ name: WEBHOOK_TRIGGER, problems: webhook.problems });
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
	const sms: Figures = await smsTriggerScenario({
		sandbox: run.sandbox,
		restartMain: () => restartMain(run, n8n, logDir),
		lifetimes: run.lifetimes,
	}).catch((error: Error) => ({ problems: [error.message] }));
	sms.pass = sms.problems.length === 0;
	figures.smsTrigger = sms;
	outcomes.push({ name: SMS_TRIGGER, problems: sms.problems });
	log(`  SMS trigger: ${JSON.stringify(sms)}`);
}

/** Scenario 5: the Spending Cap across a Wait, resumed by the other worker (one worker is stopped). */
export async function capAcrossWait(run: QueueRun, figures: Figures, outcomes: Outcome[]) {
	const cap: Figures = await capAcrossWaitScenario(run).catch((error: Error) => ({
		problems: [error.message],
	}));
	cap.pass = cap.problems.length === 0;
	figures.capAcrossWait = cap;
	outcomes.push({ name: CAP_ACROSS_WAIT, problems: cap.problems });
	log(`  Spending Cap across a Wait: ${JSON.stringify(cap)}`);
}
