// Brings queue mode up for `npm run test:queue`: the package installed as n8n installs it, the
// sandbox (its limits set for the bursts) and Redis started together, credentials and workflows
// imported and published, then a main, two workers and one webhook process started together
// from one user folder and one SQLite database. Also the restart of the main scenario 4 needs.

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
import { log } from '../rig/proc.ts';
import * as rig from '../rig/queue-processes.ts';
import { startQueueSandbox } from './sandbox.ts';
import { DURABLE_CURSORS, round, RUN_SMS } from './settings.ts';
import type { Lifetime } from './sms-polls.ts';
import { CAP_WAIT_HOOK, credentialsFor, workflowsFor } from './workflows.ts';

/** What is up, for the scenarios and the clean-up (`stopAll`). */
export interface QueueRun {
	sandbox: CommsSandbox;
	redis: rig.Redis;
	workflows: ReturnType<typeof workflowsFor>;
	queueEnv: NodeJS.ProcessEnv;
	mainPort: number;
	main: rig.QueueProcess;
	workers: rig.QueueProcess[];
	webhookProc: rig.QueueProcess;
	lifetimes: Lifetime[];
	reader: ReturnType<typeof executionReader>;
	figures: { redisVersion: string; durablePollCursors: boolean; startSeconds: number };
}

/** Everything started so far, so that a failure half-way can still stop it. */
export interface Started {
	sandbox?: CommsSandbox;
	redis?: rig.Redis;
	processes: rig.QueueProcess[];
}

export async function startQueueMode(
	n8n: N8nInstall,
	tempRoot: string,
	logDir: string,
	started: Started,
): Promise<QueueRun> {
	const userFolder = path.join(tempRoot, 'user');
	fs.mkdirSync(userFolder);
	const baseEnv = await n8nEnvironment(n8n, userFolder);
	const packed = await packPackage(REPO, tempRoot);
	const [, redis, sandbox] = await Promise.all([
		installCommunityPackage(packed, userFolder, n8n),
		rig.startRedis(logDir),
		startQueueSandbox(),
	]);
	started.redis = redis;
	started.sandbox = sandbox;

	// -- Credentials and workflows (imported, then published before start) --------------
	const credentials = credentialsFor(sandbox);
	const workflows = workflowsFor(sandbox, credentials);
	for (const workflow of Object.values(workflows)) workflow.id = n8nId();
	await importIntoN8n(n8n, baseEnv, tempRoot, {
		credentials: Object.values(credentials),
		workflows: Object.values(workflows).map(({ webhookId: _webhookId, ...w }) => w),
	});
	await publishWorkflows(
		n8n,
		baseEnv,
		Object.values(workflows).filter((w) => RUN_SMS || w !== workflows.smsTrigger),
	);

	// -- n8n in queue mode: main, two workers, one webhook process, together -------------
	const queueEnv = {
		...rig.queueEnvironment(baseEnv, redis),
		...(DURABLE_CURSORS ? DURABLE_POLL_ENV : {}),
	};
	// The e2e environment's ports (the main's, and the broker port the CLI commands used) are
	// taken; every other port of the run comes from uniquePort().
	const mainPort = Number(baseEnv.N8N_PORT);
	await uniquePort(mainPort, baseEnv.N8N_RUNNERS_BROKER_PORT);
	const startBegan = Date.now();
	const [mainProc, worker1, worker2, webhookProc] = await Promise.all([
		rig.startQueueProcess(n8n, queueEnv, { role: 'main', label: 'main', logDir, port: mainPort }),
		rig.startQueueProcess(n8n, queueEnv, { role: 'worker', label: 'worker-1', logDir }),
		rig.startQueueProcess(n8n, queueEnv, { role: 'worker', label: 'worker-2', logDir }),
		rig.startQueueProcess(n8n, queueEnv, { role: 'webhook', label: 'webhook', logDir }),
	]);
	// Each main's lifetime, from spawn to SIGTERM (scenario 4 counts polls in each).
	const lifetimes: Lifetime[] = [{ from: startBegan, to: null }];
	started.processes.push(worker1, worker2, webhookProc);
	const startSeconds = round((Date.now() - startBegan) / 1000, 1);
	log(`queue mode up in ${startSeconds}s (4 n8n processes started together)`);
	// A restarted main listens on the same port.
	const reader = executionReader(n8n, () => mainProc.url!);
	await ownerSession(mainProc.url!);
	await Promise.all(
		['queue-account', 'queue-unified', CAP_WAIT_HOOK].map((hookPath) =>
			waitForProductionWebhook(`${webhookProc.url}/webhook/${hookPath}`, 90000),
		),
	);
	return {
		sandbox,
		redis,
		workflows,
		queueEnv,
		mainPort,
		main: mainProc,
		workers: [worker1, worker2],
		webhookProc,
		lifetimes,
		reader,
		figures: { redisVersion: redis.version, durablePollCursors: DURABLE_CURSORS, startSeconds },
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
