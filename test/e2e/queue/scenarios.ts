// The queue run's scenarios in order, each adding its figures and its outcome. First a worker is
// killed mid-send (5, killed-worker.ts) and another put in its place; while n8n takes its time to
// fail that execution, the bursts (1 and 2, bursts.ts) run with the webhook trigger at one
// webhook process (3, webhook-trigger.ts) and across two (4, webhook-processes.ts). Last, the SMS
// trigger with a restart of the main (6, sms-trigger.ts) beside the Spending Cap across a Wait
// resumed on another worker (7, cap-across-wait.ts; it stops a worker).

import { post } from '../comms.ts';
import { finishedExecutions, type LoggedRequest } from '../rig/executions.ts';
import { E2eError, log, sleep } from '../rig/proc.ts';
import { executionsByWorker, type QueueProcess } from '../rig/queue-processes.ts';
import type { Json } from '../rig/types.ts';
import { burstScenario, onWorkers, printBurst } from './bursts.ts';
import { capAcrossWaitScenario } from './cap-across-wait.ts';
import { killedWorkerScenario } from './killed-worker.ts';
import {
	ACCOUNT_LIMIT,
	MANY_EXECUTIONS,
	MANY_ITEMS,
	ONE_EXECUTIONS,
	ONE_ITEMS,
	RUN_SMS,
	UNIFIED_ITEMS,
	UNIFIED_SMS_LIMIT,
	WORKERS,
} from './settings.ts';
import { smsTriggerScenario } from './sms-trigger.ts';
import { replaceWorker, restartMain, type QueueRun } from './start.ts';
import { twoWebhookProcessesScenario } from './webhook-processes.ts';
import { checkRanOnWorkers, webhookTriggerScenario } from './webhook-trigger.ts';
import { HOOKS } from './workflows.ts';

export type Outcome = { name: string; problems: string[] };
/** The figures are a JSON report (bench/results.json). */
export type Figures = Record<string, Json>;

const ACCOUNT_BURST = `1. Account SMS on one key across ${WORKERS} workers: ${MANY_EXECUTIONS} x ${MANY_ITEMS} to many recipients and ${ONE_EXECUTIONS} x ${ONE_ITEMS} to one recipient`;
const UNIFIED_BURST = `2. Unified SMS across two workers (2 x ${UNIFIED_ITEMS} on one key)`;
const WEBHOOK_TRIGGER = '3. Comms Unified Trigger through a webhook process';
const TWO_WEBHOOK_PROCESSES =
	'4. Comms Unified Trigger on two webhook processes: each event reaches the workflow once after the recipe';
const KILLED_WORKER =
	'5. A worker killed mid-send, the Retry, the run again: each of the 300 SMS once in all';
const SMS_TRIGGER = '6. SMS trigger: one poller; a restart of the main loses and repeats nothing';
const CAP_ACROSS_WAIT =
	'7. Spending Cap across a 70 s Wait, resumed on another worker: 3 SMS under 9p, the 4th refused';

/** Starts the bursts through the first webhook process: the executions of each burst workflow. */
async function postBursts({ webhookProc }: QueueRun): Promise<void> {
	// The two to one recipient first, while every worker is idle, so that two workers take them.
	const triggers: [string, string, number][] = [
		...Array.from({ length: ONE_EXECUTIONS }, (_, i): [string, string, number] => [
			HOOKS.one,
			`one-${i + 1}`,
			ONE_ITEMS,
		]),
		...Array.from({ length: MANY_EXECUTIONS }, (_, i): [string, string, number] => [
			HOOKS.many,
			`many-${i + 1}`,
			MANY_ITEMS,
		]),
		[HOOKS.unified, 'unified-1', UNIFIED_ITEMS],
		[HOOKS.unified, 'unified-2', UNIFIED_ITEMS],
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

/** Scenarios 1 and 2 (bursts, posted to a webhook process) with 3 and 4 running beside them. */
export async function burstsAndWebhooks(run: QueueRun, figures: Figures, outcomes: Outcome[]) {
	const { sandbox, workflows, reader, workers, webhookProc, main } = run;
	log(
		`scenarios 1 to 4: ${MANY_EXECUTIONS} x ${MANY_ITEMS} and ${ONE_EXECUTIONS} x ${ONE_ITEMS} Account SMS and 2 x ${UNIFIED_ITEMS} Unified SMS, posted to a webhook process, and signed events`,
	);
	const burstStarted = Date.now();
	await postBursts(run);
	const finished = (id: string, count: number) =>
		finishedExecutions(reader, id, count, 8 * 60 * 1000);
	const bursts = Promise.all([
		finished(workflows.many.id!, MANY_EXECUTIONS),
		finished(workflows.one.id!, ONE_EXECUTIONS),
		finished(workflows.unified.id!, 2),
	]);
	// Scenarios 3 and 4 run while the bursts do.
	const webhookId = workflows.webhookTrigger.webhookId as string;
	const webhookScenario = webhookTriggerScenario({
		sandbox,
		hook: `${webhookProc.url}/webhook/${webhookId}/webhook`,
		mainHook: `${main.url}/webhook/${webhookId}/webhook`,
	}).catch((error: Error): Figures => ({ problems: [error.message], error }));
	const multiScenario = twoWebhookProcessesScenario(run).catch((error: Error): Figures => ({
		problems: [error.message],
	}));

	const [manyRuns, oneRuns, unifiedRuns] = await bursts;
	log(`bursts finished ${((Date.now() - burstStarted) / 1000).toFixed(1)}s after the first POST`);
	const byExecution = executionsByWorker(workers);
	const requests = sandbox.requests() as unknown as LoggedRequest[];
	const textOfAccount = (e: LoggedRequest) => String(e.body?.message);
	const account = await burstScenario(reader, byExecution, requests, {
		groups: [
			{ name: 'many recipients', runs: manyRuns, items: MANY_ITEMS, textPrefix: 'many-' },
			{ name: 'one recipient', runs: oneRuns, items: ONE_ITEMS, textPrefix: 'one-' },
		],
		select: (e) =>
			e.api === 'account' &&
			e.method === 'POST' &&
			e.path === '/v1/sms' &&
			/^(many|one)-/.test(textOfAccount(e)),
		textOf: textOfAccount,
		limit: ACCOUNT_LIMIT,
		// Every worker sends on the key, and the SMS to one recipient go from two of them. (Which
		// worker takes which execution is Bull's choice: one worker may take two to many recipients.)
		checkWorkers: (problems, executions, groups) => {
			onWorkers(problems, executions, groups.slice(1));
			const used = new Set(executions.map((e) => e.worker));
			if (used.size !== WORKERS)
				problems.push(`the executions ran on ${used.size} of the ${WORKERS} workers`);
		},
	});
	outcomes.push({ name: ACCOUNT_BURST, problems: account.problems });
	const unified = await burstScenario(reader, byExecution, requests, {
		groups: [
			{ name: 'one service', runs: unifiedRuns, items: UNIFIED_ITEMS, textPrefix: 'unified-' },
		],
		select: (e) =>
			e.api === 'unified' &&
			e.method === 'POST' &&
			e.body?.service === 'sms' &&
			e.body?.action === 'send',
		textOf: (e) => String(e.body?.data?.message),
		limit: UNIFIED_SMS_LIMIT,
		checkWorkers: onWorkers,
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
	const multi: Figures = await multiScenario;
	multi.pass = multi.problems.length === 0;
	figures.twoWebhookProcesses = multi;
	outcomes.push({ name: TWO_WEBHOOK_PROCESSES, problems: multi.problems });
	log(`  two webhook processes: ${JSON.stringify(multi)}`);
}

/**
 * Scenario 5, a worker killed mid-send: started first, on the second key. Resolves once the worker
 * is dead and another has taken its place (the bursts want every worker); `finished` then
 * resolves when the scenario has run to its end (n8n fails the execution a minute or two later).
 */
export async function killedWorker(run: QueueRun, figures: Figures, outcomes: Outcome[]) {
	let killed!: (worker?: QueueProcess) => void;
	const dead = new Promise<QueueProcess | undefined>((resolve) => (killed = resolve));
	const scenario = killedWorkerScenario(run, killed).catch((error: Error) => ({
		problems: [error.message],
	}));
	const worker = await Promise.race([dead, scenario.then(() => undefined)]);
	if (worker) await replaceWorker(run, worker);
	const finished = scenario.then((result: Figures) => {
		result.pass = result.problems.length === 0;
		figures.killedWorker = result;
		outcomes.push({ name: KILLED_WORKER, problems: result.problems });
		log(`  worker killed mid-send: ${JSON.stringify(result)}`);
	});
	return { finished };
}

/**
 * Scenario 6, the SMS trigger with a restart of the main, and 7, the Spending Cap across a Wait
 * (started once the new main serves, so that it parks and resumes under one main).
 */
export async function smsTriggerAndCap(run: QueueRun, figures: Figures, outcomes: Outcome[]) {
	let restarted!: () => void;
	const mainBack = new Promise<void>((resolve) => (restarted = resolve));
	const sms: Promise<Figures> = RUN_SMS
		? smsTriggerScenario({
				sandbox: run.sandbox,
				restartMain: async () => {
					try {
						return await restartMain(run, run.n8n, run.logDir);
					} finally {
						restarted();
					}
				},
				lifetimes: run.lifetimes,
			}).catch((error: Error) => ({ problems: [error.message] }))
		: Promise.resolve({ skipped: 'QUEUE_SMS=0', problems: [] });
	if (!RUN_SMS) restarted();
	await Promise.race([mainBack, sms]);
	const cap: Figures = await capAcrossWaitScenario(run).catch((error: Error) => ({
		problems: [error.message],
	}));
	cap.pass = cap.problems.length === 0;
	const smsFigures = await sms;
	if (RUN_SMS) {
		smsFigures.pass = smsFigures.problems.length === 0;
		outcomes.push({ name: SMS_TRIGGER, problems: smsFigures.problems });
		log(`  SMS trigger: ${JSON.stringify(smsFigures)}`);
	}
	figures.smsTrigger = RUN_SMS ? smsFigures : { skipped: 'QUEUE_SMS=0' };
	figures.capAcrossWait = cap;
	outcomes.push({ name: CAP_ACROSS_WAIT, problems: cap.problems });
	log(`  Spending Cap across a Wait: ${JSON.stringify(cap)}`);
}
