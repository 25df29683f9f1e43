// Long-running child processes that keep their output: each in its own process group (killed
// with everything it started), its lines kept with their arrival times in memory and in a log
// file, so a check can read what it printed and a failure report can show the tail. Also the
// loopback ports handed to them, never the same one twice.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { E2eError, freePort, sleep } from './proc.ts';

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
	/** Signals the whole process group at once (SIGKILL: as an out-of-memory kill does). */
	kill(signal: NodeJS.Signals): void;
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
		kill: (signal) => killTree(child, signal),
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
