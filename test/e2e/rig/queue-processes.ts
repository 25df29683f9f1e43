// The queue-mode rig for `npm run test:queue` (test/e2e/queue/run.ts): Redis on a loopback port
// and n8n 2.41 in queue mode from one user folder and one database (PostgreSQL, postgres.ts): a
// main (`n8n start`), `n8n worker` processes and `n8n webhook` processes, each a logged process
// (logged-process.ts), so a check can read which worker ran which execution. Generic: nothing
// here knows the Comms API.

import {
	startLogged,
	uniquePort,
	waitReady,
	type Exit,
	type LoggedProcess,
} from './logged-process.ts';
import type { N8nInstall } from './n8n-install.ts';
import { N8N_START_TIMEOUT_MS } from './n8n-server.ts';
import { E2eError, log, sleep } from './proc.ts';

/**
 * redis-server on a free loopback port with no persistence. Resolves to
 * { host, port, proc, stop() }. REDIS_SERVER names another binary.
 */
export interface Redis {
	host: string;
	port: number;
	version: string;
	proc: LoggedProcess;
	stop(): Promise<Exit>;
}

export async function startRedis(logDir?: string): Promise<Redis> {
	const binary = process.env.REDIS_SERVER || 'redis-server';
	const port = await uniquePort();
	const proc = startLogged(
		'redis',
		binary,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--protected-mode',
			'yes',
			'--daemonize',
			'no',
		],
		{ logDir },
	);
	const began = Date.now();
	for (;;) {
		const exited = proc.exited();
		if (exited)
			throw new E2eError(
				exited.error?.code === 'ENOENT'
					? `${binary} is not installed: run \`bash scripts/ensure-redis.sh\` (Debian's redis-server package)`
					: `redis-server exited at start (${JSON.stringify(exited)})`,
				proc.tail(),
			);
		if (/Ready to accept connections/i.test(proc.text())) break;
		if (Date.now() - began > 20000)
			throw new E2eError('redis-server did not start within 20s', proc.tail());
		await sleep(100);
	}
	const version = /version=(\d+\.\d+\.\d+)/.exec(proc.text())?.[1] ?? '?';
	log(`redis-server ${version} listening on 127.0.0.1:${port} (no persistence)`);
	return { host: '127.0.0.1', port, version, proc, stop: () => proc.stop(5000) };
}

/**
 * The environment every queue-mode process shares: the e2e environment (same user folder,
 * database and encryption key: `baseEnv` carries the database's settings) plus queue mode on
 * the given Redis.
 */
export function queueEnvironment(
	baseEnv: NodeJS.ProcessEnv,
	redis: Pick<Redis, 'host' | 'port'>,
): NodeJS.ProcessEnv {
	return {
		...baseEnv,
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: redis.host,
		QUEUE_BULL_REDIS_PORT: String(redis.port),
	};
}

/**
 * One queue-mode n8n process: role 'main' (`n8n start`), 'worker' or 'webhook'.
 * Each gets its own task-runner broker port; a main or webhook process its own HTTP port; a
 * worker its own health-check port (QUEUE_HEALTH_CHECK_ACTIVE=true gives /healthz/readiness).
 * Resolves once the process is ready, to the logged process plus { role, url, healthUrl, env }.
 */
export interface QueueProcessOptions {
	role: 'main' | 'worker' | 'webhook';
	label: string;
	logDir?: string;
	port?: number | string;
	/** A worker's `--concurrency` (10 unless QUEUE_WORKER_CONCURRENCY says otherwise). */
	concurrency?: number;
	extraEnv?: NodeJS.ProcessEnv;
}

export interface QueueProcess extends LoggedProcess {
	role: QueueProcessOptions['role'];
	url: string | null;
	healthUrl: string;
	env: NodeJS.ProcessEnv;
	startSeconds: number;
}

export async function startQueueProcess(
	n8n: N8nInstall,
	queueEnv: NodeJS.ProcessEnv,
	{ role, label, logDir, port, concurrency, extraEnv = {} }: QueueProcessOptions,
): Promise<QueueProcess> {
	const env: NodeJS.ProcessEnv = {
		...queueEnv,
		N8N_RUNNERS_BROKER_PORT: String(await uniquePort()),
		...extraEnv,
	};
	let args: string[];
	let healthUrl: string;
	let url: string | null = null;
	if (role === 'worker') {
		const healthPort = await uniquePort();
		Object.assign(env, {
			QUEUE_HEALTH_CHECK_ACTIVE: 'true',
			QUEUE_HEALTH_CHECK_PORT: String(healthPort),
		});
		args = ['worker', `--concurrency=${process.env.QUEUE_WORKER_CONCURRENCY || concurrency || 10}`];
		healthUrl = `http://127.0.0.1:${healthPort}/healthz/readiness`;
	} else {
		env.N8N_PORT = String(port || (await uniquePort()));
		args = [role === 'main' ? 'start' : 'webhook'];
		url = `http://127.0.0.1:${env.N8N_PORT}`;
		healthUrl = `${url}/healthz/readiness`;
	}
	const began = Date.now();
	const proc = startLogged(label, n8n.node, [n8n.n8nBin, ...args], {
		cwd: env.N8N_USER_FOLDER,
		env,
		logDir,
		echo: process.env.E2E_VERBOSE === '1',
	});
	await waitReady(proc, healthUrl, N8N_START_TIMEOUT_MS);
	const seconds = (Date.now() - began) / 1000;
	log(`${label} (n8n ${args[0]}) ready after ${seconds.toFixed(1)}s${url ? ` at ${url}` : ''}`);
	return Object.assign(proc, { role, url, healthUrl, env, startSeconds: seconds });
}

/**
 * Which execution ids each worker started, from its log ("Worker started execution N (job J)").
 * Returns Map executionId -> worker label.
 */
export function executionsByWorker(workers: LoggedProcess[]): Map<string, string> {
	const byExecution = new Map<string, string>();
	for (const worker of workers) {
		for (const { text } of worker.lines) {
			const match = /Worker started execution (\S+) \(job/.exec(text);
			if (match) byExecution.set(String(match[1]), worker.label);
		}
	}
	return byExecution;
}
