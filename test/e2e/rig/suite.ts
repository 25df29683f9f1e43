// The generic real-n8n end-to-end run (`runSuite`): pack a community package, install it into a
// fresh n8n user folder the way n8n itself installs community packages, start a fake API server,
// import every scenario's credentials and workflows with n8n's CLI, run the `n8n execute`
// scenarios, then the live ones against `n8n start`.
//
// Nothing here knows about the Comms API: test/e2e/run.ts supplies that as data (a suite), and
// any other community package can be run through the same path. Each step lives in a module of
// its own.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installCommunityPackage } from './community-package.ts';
import { prepareScenarios, runScenarios, type Scenario } from './execute-scenarios.ts';
import { removeTemp } from './files.ts';
import {
	importableWorkflows,
	prepareLiveScenarios,
	runLiveScenarios,
	type LiveScenario,
} from './live-scenarios.ts';
import { n8nEnvironment } from './n8n-environment.ts';
import { importIntoN8n } from './n8n-import.ts';
import { ensureN8n } from './n8n-install.ts';
import type { N8nProfile } from './n8n-versions.ts';
import type { Tally } from './outcomes.ts';
import { packPackage } from './pack-package.ts';
import { killAllChildren, log } from './proc.ts';
import type { ApiServer } from './types.ts';

/**
 * A package and the scenarios run against it:
 *   n8n            the n8n version's profile (n8n-versions.ts; the latest unless given)
 *   packageDir     directory to `npm pack` (built already)
 *   preflight()    throws an E2eError if something the suite needs is missing
 *   startServer()  the fake API, in this process; resolves to an object with stop()
 * Any failure before the scenarios run (install, pack, start-up) rejects runSuite.
 */
export interface Suite {
	n8n?: N8nProfile;
	packageDir: string;
	preflight?(): void | Promise<void>;
	startServer(): Promise<ApiServer>;
	scenarios: Scenario[];
	liveScenarios?: LiveScenario[];
}

export interface SuiteOptions {
	/** Bounds everything after the n8n install (which has its own limits). */
	timeoutMs?: number;
	onTimeout?: () => void;
}

/** The suite running now, so that a signal handler can clean up after it. */
const current: { abort: (() => void) | null } = { abort: null };

/** Kills everything the running suite started and removes its temp folder (for signal handlers). */
export function abortCurrent(): void {
	if (current.abort) current.abort();
	else killAllChildren();
}

/** Stops the run (current.abort) once timeoutMs has passed; returns what cancels it. */
function startWatchdog({ timeoutMs = 0, onTimeout }: SuiteOptions): () => void {
	if (timeoutMs <= 0) return () => {};
	const watchdog = setTimeout(() => {
		log(`the run took longer than ${Math.round(timeoutMs / 1000)}s: stopping`);
		current.abort?.();
		if (onTimeout) onTimeout();
	}, timeoutMs);
	return () => clearTimeout(watchdog);
}

/** Stops the fake API, saying so (not throwing) when it fails. */
async function stopServer(server: ApiServer | null): Promise<void> {
	if (!server) return;
	try {
		await server.stop();
	} catch (error) {
		log(`stopping the fake API failed: ${error.message}`);
	}
}

/** Runs a suite end to end and resolves with { passed, failed }. */
export async function runSuite(suite: Suite, options: SuiteOptions = {}): Promise<Tally> {
	if (suite.preflight) await suite.preflight();
	const n8n = await ensureN8n(suite.n8n);
	const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-'));
	let server = null as ApiServer | null;
	// Emergency clean-up for a time-out or a signal, when the finally below cannot run: kill n8n
	// and npm, ask the fake API to stop, remove the temp folder.
	current.abort = () => {
		killAllChildren();
		void stopServer(server);
		removeTemp(tempRoot);
	};
	const stopWatchdog = startWatchdog(options);
	try {
		const userFolder = path.join(tempRoot, 'user');
		fs.mkdirSync(userFolder);
		const env = await n8nEnvironment(n8n, userFolder);
		const packed = await packPackage(suite.packageDir, tempRoot);
		await installCommunityPackage(packed, userFolder, n8n);

		server = await suite.startServer();
		log(`API server (sandbox) listening at ${server.url || '(no url)'}`);

		const prepared = prepareScenarios(suite.scenarios, server);
		const live = prepareLiveScenarios(suite.liveScenarios || [], server);
		await importIntoN8n(n8n, env, tempRoot, {
			credentials: [...prepared, ...live].flatMap((p) => p.credentials),
			workflows: [...prepared.map((p) => p.workflow), ...importableWorkflows(live, n8n.profile)],
		});

		const tally: Tally = { passed: 0, failed: 0 };
		await runScenarios(prepared, n8n, env, server, tally);
		await runLiveScenarios(live, n8n, env, { server, tempRoot, packageName: packed.name }, tally);
		return tally;
	} finally {
		stopWatchdog();
		current.abort = null;
		killAllChildren();
		await stopServer(server);
		removeTemp(tempRoot);
	}
}
