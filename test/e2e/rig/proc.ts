// Process and logging helpers for the real-n8n end-to-end runner.
// Every child is spawned in its own process group so that a timeout (or Ctrl-C)
// can kill it together with whatever it spawned (n8n starts task-runner children).

import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

const startedAt = Date.now();

/** Seconds since the runner started, for log lines CI readers can follow. */
export function elapsed(): string {
	return `${((Date.now() - startedAt) / 1000).toFixed(1)}s`;
}

/** One progress line on stderr, prefixed so it stands out in CI logs. */
export function log(message: string): void {
	process.stderr.write(`[e2e +${elapsed()}] ${message}\n`);
}

export function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** An error whose message is already meant for humans (no stack trace needed). */
export class E2eError extends Error {
	details: string | undefined;
	constructor(message: string, details?: string) {
		super(message);
		this.name = 'E2eError';
		this.details = details;
	}
}

/** Children still running, so that cleanup can kill them. */
const liveChildren = new Set<ChildProcess>();

/** Kills a child's whole process group: SIGTERM, then SIGKILL after graceMs. */
function killGroup(child: ChildProcess, graceMs = 5000): void {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const signalGroup = (signal: NodeJS.Signals) => {
		try {
			process.kill(-child.pid!, signal);
		} catch {
			// The group is already gone.
		}
	};
	signalGroup('SIGTERM');
	const timer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
	timer.unref();
	child.once('exit', () => clearTimeout(timer));
}

/**
 * Kills every child still running, at once, with SIGKILL: used when this
 * process is about to exit (time-out, signal, crash), so there is no time for
 * n8n's graceful shutdown, which can take long or hang.
 */
export function killAllChildren(): void {
	for (const child of liveChildren) {
		try {
			process.kill(-child.pid!, 'SIGKILL');
		} catch {
			// Already gone.
		}
	}
	liveChildren.clear();
}

// Whatever ends this process (an exception, process.exit from a handler), its
// children must not outlive it: they run in their own process groups, so
// nothing else would stop them.
process.on('exit', killAllChildren);

/** Keeps the last `limit` characters of a stream (error reports need the tail). */
function tailBuffer(limit: number) {
	let text = '';
	return {
		add(chunk: string) {
			text += chunk;
			if (text.length > limit * 2) text = text.slice(-limit);
		},
		get() {
			return text.length > limit ? `…${text.slice(-limit)}` : text;
		},
	};
}

/**
 * Runs a command and resolves with { code, stdout, stderr } when it exits.
 * Options:
 *   cwd, env          as for spawn
 *   timeoutMs         kill the process group after this long (rejects)
 *   echo              prefix: copy output line by line to stderr with this prefix
 *   capture           keep stdout in full (default true); stderr keeps its tail
 *   check             reject when the exit code is not 0 (default true)
 *   label             name used in error messages
 */
export interface RunOptions {
	cwd?: string;
	env?: NodeJS.ProcessEnv;
	timeoutMs?: number;
	echo?: string;
	capture?: boolean;
	check?: boolean;
	label?: string;
}

export interface RunResult {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

export function run(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
	const { cwd, env = process.env, timeoutMs = 0, echo, capture = true, check = true } = options;
	const label = options.label || [command, ...args].join(' ');
	return new Promise((resolve, reject) => {
		let child: ChildProcess;
		try {
			child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
		} catch (error) {
			reject(new E2eError(`could not start ${label}: ${error.message}`));
			return;
		}
		liveChildren.add(child);
		let stdout = '';
		const stdoutTail = tailBuffer(8000);
		const stderrTail = tailBuffer(8000);
		const echoer = echo ? lineEchoer(echo) : null;
		child.stdout!.setEncoding('utf8');
		child.stderr!.setEncoding('utf8');
		child.stdout!.on('data', (chunk: string) => {
			if (capture) stdout += chunk;
			stdoutTail.add(chunk);
			if (echoer) echoer.add(chunk);
		});
		child.stderr!.on('data', (chunk: string) => {
			stderrTail.add(chunk);
			if (echoer) echoer.add(chunk);
		});
		let timedOut = false;
		const timer =
			timeoutMs > 0
				? setTimeout(() => {
						timedOut = true;
						log(`${label}: no result after ${Math.round(timeoutMs / 1000)}s, killing it`);
						killGroup(child);
					}, timeoutMs)
				: null;
		child.on('error', (error) => {
			if (timer) clearTimeout(timer);
			liveChildren.delete(child);
			reject(new E2eError(`could not start ${label}: ${error.message}`));
		});
		child.on('close', (code, signal) => {
			if (timer) clearTimeout(timer);
			liveChildren.delete(child);
			// Anything the command left behind in its group (n8n's task runners) goes too.
			try {
				process.kill(-child.pid!, 'SIGKILL');
			} catch {
				// The group is empty, as it should be.
			}
			if (echoer) echoer.flush();
			const result = {
				code,
				signal,
				stdout: capture ? stdout : stdoutTail.get(),
				stderr: stderrTail.get(),
			};
			if (timedOut) {
				reject(
					new E2eError(
						`${label} timed out after ${Math.round(timeoutMs / 1000)}s`,
						outputOf(result),
					),
				);
			} else if (check && code !== 0) {
				const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
				reject(new E2eError(`${label} ${how}`, outputOf(result)));
			} else {
				resolve(result);
			}
		});
	});
}

function outputOf(result: RunResult): string {
	const parts: string[] = [];
	const out = result.stdout.length > 8000 ? `…${result.stdout.slice(-8000)}` : result.stdout;
	if (out.trim()) parts.push(`--- stdout (tail) ---\n${out.trimEnd()}`);
	if (result.stderr.trim()) parts.push(`--- stderr (tail) ---\n${result.stderr.trimEnd()}`);
	return parts.join('\n');
}

/** Splits streamed output into lines and writes each to stderr with a prefix. */
function lineEchoer(prefix: string) {
	let pending = '';
	return {
		add(chunk: string) {
			pending += chunk;
			const lines = pending.split('\n');
			pending = lines.pop() ?? '';
			for (const line of lines) process.stderr.write(`${prefix}${line}\n`);
		},
		flush() {
			if (pending) process.stderr.write(`${prefix}${pending}\n`);
			pending = '';
		},
	};
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as net.AddressInfo;
			server.close(() => resolve(port));
		});
	});
}

/** Prints "still working" every intervalMs while a long step runs; returns stop(). */
export function heartbeat(what: string, intervalMs = 30000, extra = () => ''): () => void {
	const began = Date.now();
	const timer = setInterval(() => {
		const seconds = Math.round((Date.now() - began) / 1000);
		const more = extra();
		log(`${what}: still running after ${seconds}s${more ? ` (${more})` : ''}`);
	}, intervalMs);
	timer.unref();
	return () => clearInterval(timer);
}
