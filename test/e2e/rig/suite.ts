// The generic real-n8n end-to-end run (`declareSuite`), on Node.js's own test runner: pack a
// community package, install it into a fresh n8n user folder the way n8n itself installs
// community packages, start a fake API server, import every scenario's credentials and workflows
// with n8n's CLI, then each scenario is a test: the `n8n execute` ones, then the live ones against
// `n8n start`.
//
// Nothing here knows about the Comms API: test/e2e/run.ts supplies that as data (a suite), and
// any other community package can be run through the same path. Each step lives in a module of
// its own.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installCommunityPackage } from './community-package.ts';
import { describe, before, after, test } from 'node:test';
import {
	type PreparedScenario,
	prepareScenarios,
	runExecuteScenario,
	type Scenario,
} from './execute-scenarios.ts';
import { removeTemp } from './files.ts';
import {
	importableWorkflows,
	type LiveRun,
	type LiveScenario,
	type PreparedLiveScenario,
	prepareLiveScenarios,
	startLiveScenarios,
} from './live-scenarios.ts';
import { n8nEnvironment } from './n8n-environment.ts';
import { importIntoN8n } from './n8n-import.ts';
import { ensureN8n, type N8nInstall } from './n8n-install.ts';
import type { N8nProfile } from './n8n-versions.ts';
import { packPackage } from './pack-package.ts';
import { E2eError, killAllChildren, log } from './proc.ts';
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

/** A suite set up: its n8n, environment and scenarios, ready to run one at a time. */
interface SetUp {
	n8n: N8nInstall;
	env: NodeJS.ProcessEnv;
	server: ApiServer;
	prepared: PreparedScenario[];
	live: PreparedLiveScenario[];
	liveRun: LiveRun;
}

/** Installs, packs, starts the fake API and imports every scenario's credentials and workflows. */
async function setUp(suite: Suite, tempRoot: string, serverRef: { server: ApiServer | null }) {
	const n8n = await ensureN8n(suite.n8n);
	const userFolder = path.join(tempRoot, 'user');
	fs.mkdirSync(userFolder);
	const env = await n8nEnvironment(n8n, userFolder);
	const packed = await packPackage(suite.packageDir, tempRoot);
	await installCommunityPackage(packed, userFolder, n8n);

	const server = await suite.startServer();
	serverRef.server = server;
	log(`API server (sandbox) listening at ${server.url || '(no url)'}`);

	const prepared = prepareScenarios(suite.scenarios, server);
	const live = prepareLiveScenarios(suite.liveScenarios || [], server);
	await importIntoN8n(n8n, env, tempRoot, {
		credentials: [...prepared, ...live].flatMap((p) => p.credentials),
		workflows: [...prepared.map((p) => p.workflow), ...importableWorkflows(live, n8n.profile)],
	});
	const liveRun = await startLiveScenarios(live, n8n, env, {
		server,
		tempRoot,
		packageName: packed.name,
	});
	return { n8n, env, server, prepared, live, liveRun } satisfies SetUp;
}

/** The scenarios that passed and failed so far in this process (skipped ones in neither). */
export const tally = { passed: 0, failed: 0 };

/** Runs a scenario's check, counting it; a failure's details (n8n's output, say) go to stderr. */
async function counted(check: () => Promise<void>): Promise<void> {
	try {
		await check();
		tally.passed += 1;
	} catch (error) {
		tally.failed += 1;
		if (error.details) process.stderr.write(`${error.details}\n`);
		throw error;
	}
}

/** The scenarios a run keeps: E2E_ONLY=<regular expression> skips the others by name. */
function skipped(name: string): string | false {
	const only = process.env.E2E_ONLY;
	return only && !new RegExp(only, 'i').test(name) ? `E2E_ONLY=${only}` : false;
}

/**
 * Declares a suite as a node:test suite: the set-up (install, pack, import) before its scenarios,
 * each scenario one test, in order, and everything it started stopped after them. A set-up that
 * fails fails every scenario with its reason. The run's reporter (summary-reporter.ts) prints the
 * tally; `tally` here counts the same, for a run that must end before the reporter can.
 */
export function declareSuite(suite: Suite, name: string, options: SuiteOptions = {}): void {
	describe(name, () => {
		let tempRoot = '';
		const serverRef = { server: null as ApiServer | null };
		let ready: SetUp | undefined;
		/** Why the set-up failed, if it did: every scenario fails with it. */
		let setUpFailed: Error | undefined;
		let stopWatchdog = () => {};
		before(async () => {
			try {
				if (suite.preflight) await suite.preflight();
				tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-'));
				// Emergency clean-up for a time-out or a signal, when `after` cannot run.
				current.abort = () => {
					killAllChildren();
					void stopServer(serverRef.server);
					removeTemp(tempRoot);
				};
				stopWatchdog = startWatchdog(options);
				ready = await setUp(suite, tempRoot, serverRef);
			} catch (error) {
				setUpFailed = error;
				log(`the set-up of "${name}" failed: ${error.message}`);
				if (error.details) process.stderr.write(`${error.details}\n`);
			}
		});
		/** The set-up, or the error every scenario fails with when there is none. */
		const setUpDone = (): SetUp => {
			if (!ready)
				throw new E2eError(`the set-up failed: ${setUpFailed?.message ?? 'it did not run'}`);
			return ready;
		};
		after(async () => {
			stopWatchdog();
			current.abort = null;
			killAllChildren();
			await stopServer(serverRef.server);
			if (tempRoot) removeTemp(tempRoot);
		});
		suite.scenarios.forEach((scenario, i) =>
			test(scenario.name, { skip: skipped(scenario.name) }, () =>
				counted(async () => {
					const { prepared, n8n, env, server } = setUpDone();
					await runExecuteScenario(prepared[i], n8n, env, server);
				}),
			),
		);
		(suite.liveScenarios || []).forEach((scenario, i) =>
			test(scenario.name, { skip: skipped(scenario.name) }, () =>
				counted(async () => {
					const { liveRun, live } = setUpDone();
					await liveRun.run(live[i]);
				}),
			),
		);
	});
}
