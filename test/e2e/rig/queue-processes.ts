// The queue-mode rig for `npm run test:queue` (test/e2e/queue.ts): Redis on a loopback port
// and n8n 2.41 in queue mode from one user folder and one SQLite database: a main
// (`n8n start`), two `n8n worker` processes and one `n8n webhook` process. Generic: nothing
// here knows the Comms API.
//
// Every process runs in its own process group and keeps its output (with arrival times) in
// memory and in a log file, so a check can read which worker ran which execution, and a
// failure report can show the tail.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { N8nInstall } from './n8n-install.ts';
import { E2eError, freePort, log } from './proc.ts';

export function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Ports handed out by this run. freePort() only says a port was free a moment ago, so several
 * calls before anyone binds (processes started together) can get the same one: never hand out
 * a port twice.
 */
const handedOut = new Set<number>();

/** A free loopback port no other process of this run was given; `reserve` marks taken ones. */
export async function uniquePort(...reserve: (number | string | undefined)[]): Promise<number> {
	for (const port of reserve) if (port) handedOut.add(Number(port));
	for (let attempt = 0; attempt < 50; attempt += 1) {
		const port = await freePort();
		if (!handedOut.has(port)) {
			handedOut.add(port);
			return port;
		}
	}
	throw new E2eError('could not find a free loopback port not already handed out');
}

/** Processes started here and still running: killed when this process exits. */
const started = new Set<ChildProcess>();

function killTree(child: ChildProcess, signal: NodeJS.Signals): void {
	try {
		process.kill(-child.pid!, signal);
	} catch {
		// Already gone.
	}
}

process.on('exit', () => {
	for (const child of started) killTree(child, 'SIGKILL');
});

/**
 * Starts `command args` in its own process group and keeps its output.
 * Resolves at once to { label, child, lines: [{ at, text }], text(), exited(), stop(graceMs) }.
 */
export type Exit =
	| { code: number | null; signal: NodeJS.Signals | null; at: number; error?: undefined }
	| { error: NodeJS.ErrnoException; at: number };

export interface LoggedProcess {
	label: string;
	child: ChildProcess;
	lines: { at: number; text: string }[];
	text(): string;
	tail(n?: number): string;
	exited(): Exit | null;
	waitExit(): Promise<Exit>;
	stop(graceMs?: number): Promise<Exit>;
}

export interface StartOptions {
	env?: NodeJS.ProcessEnv;
	cwd?: string;
	logDir?: string;
	echo?: boolean;
}

export function startLogged(
	label: string,
	command: string,
	args: string[],
	{ env, cwd, logDir, echo }: StartOptions = {},
): LoggedProcess {
	const child = spawn(command, args, {
		cwd,
		env,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	started.add(child);
	const lines: LoggedProcess['lines'] = [];
	const file = logDir ? fs.createWriteStream(path.join(logDir, `${label}.log`)) : null;
	let exit = null as Exit | null;
	const exitPromise = new Promise<Exit>((resolve) => {
		child.on('exit', (code, signal) => {
			exit = { code, signal, at: Date.now() };
			started.delete(child);
			resolve(exit!);
		});
		child.on('error', (error: NodeJS.ErrnoException) => {
			exit = { error, at: Date.now() };
			started.delete(child);
			resolve(exit!);
		});
	});
	for (const stream of [child.stdout!, child.stderr!]) {
		let pending = '';
		stream.setEncoding('utf8');
		stream.on('data', (chunk: string) => {
			pending += chunk;
			const parts = pending.split('\n');
			pending = parts.pop() ?? '';
			const at = Date.now();
			for (const text of parts) {
				lines.push({ at, text });
				if (file) file.write(`${new Date(at).toISOString()} ${text}\n`);
				if (echo) process.stderr.write(`  ${label}| ${text}\n`);
			}
		});
	}
	return {
		label,
		child,
		lines,
		text: () => lines.map((l) => l.text).join('\n'),
		tail: (n = 40) =>
			lines
				.slice(-n)
				.map((l) => l.text)
				.join('\n'),
		exited: () => exit,
		waitExit: () => exitPromise,
		/** SIGTERM to the group, SIGKILL after graceMs; resolves when it has exited. */
		async stop(graceMs = 15000) {
			if (exit) return exit;
			killTree(child, 'SIGTERM');
			const timer = setTimeout(() => killTree(child, 'SIGKILL'), graceMs);
			const result = await exitPromise;
			clearTimeout(timer);
			killTree(child, 'SIGKILL'); // the task runner and anything else left in the group
			if (file) file.end();
			return result;
		},
	};
}

/** Waits until GET url answers 200, or the process exits, or timeoutMs passes. */
export async function waitReady(
	proc: LoggedProcess,
	url: string,
	timeoutMs: number,
): Promise<number> {
	const began = Date.now();
	for (;;) {
		if (proc.exited())
			throw new E2eError(
				`${proc.label} exited before it was ready (${JSON.stringify(proc.exited())})`,
				proc.tail(60),
			);
		try {
			const response = await fetch(url);
			if (response.ok) return (Date.now() - began) / 1000;
		} catch {
			// Not listening yet.
		}
		if (Date.now() - began > timeoutMs)
			throw new E2eError(
				`${proc.label} did not answer ${url} within ${timeoutMs / 1000}s`,
				proc.tail(60),
			);
		await sleep(500);
	}
}

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
 * SQLite database and encryption key) plus queue mode on the given Redis.
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
		// One SQLite file for every process: n8n 2.x's pooled SQLite driver (the default,
		// DB_SQLITE_POOL_SIZE 3) opens it in WAL mode; n8n warns that scaling mode with SQLite
		// is not officially supported and runs.
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
	{ role, label, logDir, port, extraEnv = {} }: QueueProcessOptions,
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
		args = ['worker', `--concurrency=${process.env.QUEUE_WORKER_CONCURRENCY || 10}`];
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
	const timeoutMs = Number(process.env.E2E_N8N_START_TIMEOUT_MS) || 3 * 60 * 1000;
	await waitReady(proc, healthUrl, timeoutMs);
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
