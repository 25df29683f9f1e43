// Brings queue mode up for `npm run test:queue`: the package installed as n8n installs it, the
// sandbox (its limits set for the bursts) and Redis started together, credentials and workflows
// imported and published, then a main, two workers and one webhook process started together
// from one user folder and one SQLite database.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { REPO, type CommsSandbox } from '../comms.ts';
import { startCollector } from '../rig/collector.ts';
import { executionReader } from '../rig/executions.ts';
import type { N8nInstall } from '../rig/n8n-install.ts';
import { ownerSession } from '../rig/n8n-server.ts';
import { E2eError, log } from '../rig/proc.ts';
import * as rig from '../rig/queue-processes.ts';
import * as harness from '../rig/suite.ts';
import type { Credential } from '../rig/types.ts';
import {
	ACCOUNT_LIMIT,
	DURABLE_CURSORS,
	DURABLE_CURSORS_ENV,
	LATENCY_MS,
	round,
	RUN_SMS,
	UNIFIED_SMS_LIMIT,
	WINDOW_SECONDS,
} from './settings.ts';
import type { Lifetime } from './sms-trigger.ts';
import { waitWebhookLive } from './webhook-trigger.ts';
import { workflowsFor } from './workflows.ts';

const require = createRequire(import.meta.url);

/** The compiled sandbox (`npm run build`), typed by its source. */
function loadSandbox(): typeof import('../../../sandbox/index.ts') {
	const file = path.join(REPO, 'build', 'sandbox', 'index.js');
	if (!fs.existsSync(file) || !fs.existsSync(path.join(REPO, 'dist')))
		throw new E2eError('build/ and dist/ are missing: run `npm run build` first');
	return require(file);
}

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
	const { startSandbox } = loadSandbox();
	const userFolder = path.join(tempRoot, 'user');
	fs.mkdirSync(userFolder);
	const baseEnv = await harness.n8nEnvironment(n8n, userFolder);
	const packed = await harness.packPackage(REPO, tempRoot);
	const [, redisServer, sb] = await Promise.all([
		harness.installCommunityPackage(packed, userFolder, n8n),
		rig.startRedis(logDir),
		startSandbox({ port: 0, autoSettleMs: 1000 }),
	]);
	const redis = redisServer;
	started.redis = redis;
	const sandbox = Object.assign(sb, {
		collector: await startCollector(),
	}) as CommsSandbox;
	started.sandbox = sandbox;
	sandbox.control.updateSettings({
		retryAfter: false,
		accountRequestsPerMinute: ACCOUNT_LIMIT,
		rateWindowSeconds: WINDOW_SECONDS,
		latencyMs: LATENCY_MS,
		unifiedLimits: { sms: { perMinute: UNIFIED_SMS_LIMIT, concurrent: 50 } },
	});
	sandbox.control.setBalances({ smsCredits: { subscription: 100000, topUp: 0 } });
	log(
		`sandbox at ${sandbox.url}: Account ${ACCOUNT_LIMIT} per ${WINDOW_SECONDS}s, Unified SMS ${UNIFIED_SMS_LIMIT} per ${WINDOW_SECONDS}s, no Retry-After, ${LATENCY_MS} ms latency`,
	);

	// -- Credentials and workflows (imported, then published before start) --------------
	const creds: Record<'account' | 'trigger' | 'unified', Credential> = {
		account: {
			id: harness.n8nId(),
			name: 'Comms Account (queue)',
			type: 'commsAccountApi',
			data: { apiKey: sandbox.credentials.account.unrestricted, baseUrl: sandbox.accountBaseUrl },
		},
		// The SMS trigger polls with another key (the sandbox's restricted key, which may read
		// the main number): the Account limit is per key, and polls on the burst's key would
		// take part of its 600 a minute and move the least time the run measures against.
		trigger: {
			id: harness.n8nId(),
			name: 'Comms Account (queue, trigger)',
			type: 'commsAccountApi',
			data: { apiKey: sandbox.credentials.account.restricted, baseUrl: sandbox.accountBaseUrl },
		},
		unified: {
			id: harness.n8nId(),
			name: 'Comms Unified (queue)',
			type: 'commsUnifiedApi',
			data: {
				apiKey: sandbox.credentials.unified.test,
				endpointUrl: sandbox.unifiedUrl,
				webhookSecret: sandbox.credentials.webhookSecret,
			},
		},
	};
	const workflows = workflowsFor(sandbox, creds);
	const toPublish = RUN_SMS
		? Object.values(workflows)
		: Object.values(workflows).filter((w) => w !== workflows.smsTrigger);
	for (const workflow of Object.values(workflows)) workflow.id = harness.n8nId();
	const credentialsFile = path.join(tempRoot, 'credentials.json');
	const workflowsFile = path.join(tempRoot, 'workflows.json');
	fs.writeFileSync(credentialsFile, JSON.stringify(Object.values(creds)));
	fs.writeFileSync(
		workflowsFile,
		JSON.stringify(Object.values(workflows).map(({ webhookId: _webhookId, ...w }) => w)),
	);
	log('n8n import:credentials, import:workflow');
	await harness.n8nCli(n8n, baseEnv, ['import:credentials', `--input=${credentialsFile}`]);
	await harness.n8nCli(n8n, baseEnv, ['import:workflow', `--input=${workflowsFile}`]);
	for (const workflow of toPublish) {
		log(`n8n publish:workflow --id=${workflow.id} (${workflow.name})`);
		await harness.n8nCli(n8n, baseEnv, ['publish:workflow', `--id=${workflow.id}`]);
	}

	// -- n8n in queue mode: main, two workers, one webhook process, together -------------
	const queueEnv = {
		...rig.queueEnvironment(baseEnv, redis),
		...(DURABLE_CURSORS ? DURABLE_CURSORS_ENV : {}),
	};
	// The e2e environment's ports (the main's, and the broker port the CLI commands used) are
	// taken; every other port of the run comes from rig.uniquePort().
	const mainPort = Number(baseEnv.N8N_PORT);
	await rig.uniquePort(mainPort, baseEnv.N8N_RUNNERS_BROKER_PORT);
	const startBegan = Date.now();
	const [mainProc, worker1, worker2, webhookProc] = await Promise.all([
		rig.startQueueProcess(n8n, queueEnv, { role: 'main', label: 'main', logDir, port: mainPort }),
		rig.startQueueProcess(n8n, queueEnv, { role: 'worker', label: 'worker-1', logDir }),
		rig.startQueueProcess(n8n, queueEnv, { role: 'worker', label: 'worker-2', logDir }),
		rig.startQueueProcess(n8n, queueEnv, {
			role: 'webhook',
			label: 'webhook',
			logDir,
		}),
	]);
	// Each main's lifetime, from spawn to SIGTERM (scenario 4 counts polls in each).
	const lifetimes: Lifetime[] = [{ from: startBegan, to: null }];
	started.processes.push(worker1, worker2, webhookProc);
	const workers = [worker1, worker2];
	const startSeconds = round((Date.now() - startBegan) / 1000, 1);
	log(`queue mode up in ${startSeconds}s (4 n8n processes started together)`);
	// A restarted main listens on the same port.
	const reader = executionReader(n8n, () => mainProc.url!);
	await ownerSession(mainProc.url!);

	const hookOf = (workflowPath: string) => `${webhookProc.url}/webhook/${workflowPath}`;
	await Promise.all([
		waitWebhookLive(hookOf('queue-account')),
		waitWebhookLive(hookOf('queue-unified')),
	]);
	return {
		sandbox,
		redis,
		workflows,
		queueEnv,
		mainPort,
		main: mainProc,
		workers,
		webhookProc,
		lifetimes,
		reader,
		figures: { redisVersion: redis.version, durablePollCursors: DURABLE_CURSORS, startSeconds },
	};
}
