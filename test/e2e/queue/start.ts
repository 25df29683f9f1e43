// Brings queue mode up for `npm run test:queue`: the package installed as n8n installs it, the
// sandbox (its limits set for the bursts), Redis and a throw-away PostgreSQL started together,
// credentials and workflows imported and published, then a main, the workers and the webhook
// processes started together from one user folder and one PostgreSQL database. Also the restart
// of the main the SMS trigger's scenario needs.

import fs from 'node:fs';
import path from 'node:path';
import { REPO, type CommsSandbox } from '../comms.ts';
import { installCommunityPackage } from '../rig/community-package.ts';
import { executionReader } from '../rig/executions.ts';
import { uniquePort } from '../rig/logged-process.ts';
import { DURABLE_POLL_ENV, n8nEnvironment } from '../rig/n8n-environment.ts';
import { importIntoN8n, n8nId, publishWorkflows } from '../rig/n8n-import.ts';
import type { N8nInstall } from '../rig/n8n-install.ts';
import { ownerSession, waitForProductionWebhook } from '../rig/n8n-server.ts';
import { packPackage } from '../rig/pack-package.ts';
import { postgresEnvironment, startPostgres, type Postgres } from '../rig/postgres.ts';
import { log } from '../rig/proc.ts';
import * as rig from '../rig/queue-processes.ts';
import type { Workflow } from '../rig/types.ts';
import { startQueueSandbox } from './sandbox.ts';
import {
	DURABLE_CURSORS,
	round,
	RUN_SMS,
	WEBHOOK_PROCESSES,
	WORKER_CONCURRENCY,
	WORKERS,
} from './settings.ts';
import type { Lifetime } from './sms-polls.ts';
import { credentialsFor, HOOKS, workflowsFor } from './workflows.ts';

/** What is up, for the scenarios and the clean-up (`stopAll`). */
export interface QueueRun {
	sandbox: CommsSandbox;
	redis: rig.Redis;
	workflows: ReturnType<typeof workflowsFor>;
	queueEnv: NodeJS.ProcessEnv;
	mainPort: number;
	main: rig.QueueProcess;
	workers: rig.QueueProcess[];
	/** The webhook processes; the first takes the bursts. */
	webhookProcs: rig.QueueProcess[];
	webhookProc: rig.QueueProcess;
	lifetimes: Lifetime[];
	reader: ReturnType<typeof executionReader>;
	/** What to stop at the end: a worker started again is added here. */
	started: Started;
	n8n: N8nInstall;
	logDir: string;
	tempRoot: string;
	packed: Awaited<ReturnType<typeof packPackage>>;
	figures: {
		redisVersion: string;
		postgresVersion: string;
		durablePollCursors: boolean;
		startSeconds: number;
		publishSeconds: number;
	};
}

/** Everything started so far, so that a failure half-way can still stop it. */
export interface Started {
	sandbox?: CommsSandbox;
	redis?: rig.Redis;
	postgres?: Postgres;
	processes: rig.QueueProcess[];
}

/**
 * `n8n publish:workflow` for each workflow, a few at a time: each boots n8n (several seconds,
 * most of it loading), and PostgreSQL takes them side by side.
 */
async function publishAll(n8n: N8nInstall, env: NodeJS.ProcessEnv, workflows: Workflow[]) {
	const queue = [...workflows];
	await Promise.all(
		Array.from({ length: 3 }, async () => {
			for (let next = queue.shift(); next; next = queue.shift())
				await publishWorkflows(n8n, env, [next]);
		}),
	);
}

export async function startQueueMode(
	n8n: N8nInstall,
	tempRoot: string,
	logDir: string,
	started: Started,
): Promise<QueueRun> {
	const userFolder = path.join(tempRoot, 'user');
	fs.mkdirSync(userFolder);
	const packed = await packPackage(REPO, tempRoot);
	const [, redis, sandbox, postgres] = await Promise.all([
		installCommunityPackage(packed, userFolder, n8n),
		rig.startRedis(logDir),
		startQueueSandbox(),
		startPostgres(logDir),
	]);
	started.redis = redis;
	started.sandbox = sandbox;
	started.postgres = postgres;
	// Every n8n process and command of the run on the one PostgreSQL database.
	const baseEnv: NodeJS.ProcessEnv = {
		...(await n8nEnvironment(n8n, userFolder)),
		...postgresEnvironment(postgres),
	};

	// -- Credentials and workflows (imported, then published before start) --------------
	const credentials = credentialsFor(sandbox, redis);
	const workflows = workflowsFor(sandbox, credentials);
	for (const workflow of Object.values(workflows)) workflow.id = n8nId();
	await importIntoN8n(n8n, baseEnv, tempRoot, {
		credentials: Object.values(credentials),
		workflows: Object.values(workflows).map(({ webhookId: _webhookId, ...w }) => w),
	});
	const publishBegan = Date.now();
	await publishAll(
		n8n,
		baseEnv,
		Object.values(workflows).filter((w) => RUN_SMS || w !== workflows.smsTrigger),
	);
	const publishSeconds = round((Date.now() - publishBegan) / 1000, 1);

	// -- n8n in queue mode: a main, the workers and the webhook processes, together -------
	const queueEnv = {
		...rig.queueEnvironment(baseEnv, redis),
		...(DURABLE_CURSORS ? DURABLE_POLL_ENV : {}),
	};
	// The e2e environment's ports (the main's, and the broker port the CLI commands used) are
	// taken; every other port of the run comes from uniquePort().
	const mainPort = Number(baseEnv.N8N_PORT);
	await uniquePort(mainPort, baseEnv.N8N_RUNNERS_BROKER_PORT);
	const startBegan = Date.now();
	const [mainProc, ...others] = await Promise.all([
		rig.startQueueProcess(n8n, queueEnv, { role: 'main', label: 'main', logDir, port: mainPort }),
		...Array.from({ length: WORKERS }, (_, i) =>
			rig.startQueueProcess(n8n, queueEnv, {
				role: 'worker',
				label: `worker-${i + 1}`,
				logDir,
				concurrency: WORKER_CONCURRENCY,
			}),
		),
		...Array.from({ length: WEBHOOK_PROCESSES }, (_, i) =>
			rig.startQueueProcess(n8n, queueEnv, { role: 'webhook', label: `webhook-${i + 1}`, logDir }),
		),
	]);
	const workers = others.slice(0, WORKERS);
	const webhookProcs = others.slice(WORKERS);
	// Each main's lifetime, from spawn to SIGTERM (the SMS trigger's scenario counts polls in each).
	const lifetimes: Lifetime[] = [{ from: startBegan, to: null }];
	started.processes.push(...others);
	const startSeconds = round((Date.now() - startBegan) / 1000, 1);
	log(
		`queue mode up in ${startSeconds}s (${1 + others.length} n8n processes started together: a main, ${WORKERS} workers, ${WEBHOOK_PROCESSES} webhook processes)`,
	);
	// A restarted main listens on the same port.
	const reader = executionReader(n8n, () => mainProc.url!);
	await ownerSession(mainProc.url!);
	await Promise.all(
		webhookProcs.flatMap((proc) =>
			[HOOKS.many, HOOKS.one, HOOKS.unified, HOOKS.killed, HOOKS.capWait].map((hookPath) =>
				waitForProductionWebhook(`${proc.url}/webhook/${hookPath}`, 90000),
			),
		),
	);
	return {
		sandbox,
		redis,
		workflows,
		queueEnv,
		mainPort,
		main: mainProc,
		workers,
		webhookProcs,
		webhookProc: webhookProcs[0],
		lifetimes,
		reader,
		started,
		n8n,
		logDir,
		tempRoot,
		packed,
		figures: {
			redisVersion: redis.version,
			postgresVersion: postgres.version,
			durablePollCursors: DURABLE_CURSORS,
			startSeconds,
			publishSeconds,
		},
	};
}

/** SIGTERM to the main, then a new one on the same port; records both lifetimes. */
export async function restartMain(run: QueueRun, n8n: N8nInstall, logDir: string) {
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
}

/**
 * A worker in place of one that was killed, as a restarted container is: the same settings, a new
 * label, and an n8n folder of its own with the package installed (the killed worker's folder,
 * shared here by every process, holds its event log, which a process starting on it reads to
 * mark the killed execution crashed at once; a new container has none).
 */
export async function replaceWorker(
	run: QueueRun,
	gone: rig.QueueProcess,
): Promise<rig.QueueProcess> {
	run.workers = run.workers.filter((worker) => worker !== gone);
	const label = `${gone.label}b`;
	const userFolder = path.join(run.tempRoot, `user-${label}`);
	fs.mkdirSync(userFolder);
	await installCommunityPackage(run.packed, userFolder, run.n8n);
	const worker = await rig.startQueueProcess(run.n8n, run.queueEnv, {
		role: 'worker',
		label,
		logDir: run.logDir,
		concurrency: WORKER_CONCURRENCY,
		extraEnv: { N8N_USER_FOLDER: userFolder },
	});
	run.workers.push(worker);
	run.started.processes.push(worker);
	return worker;
}
