// The real n8n 2.41 the benchmarks run in (the one the end-to-end run installs, from its
// cache): the packed tarball installed as n8n installs a community package, the scenarios'
// credentials and workflows imported, one `n8n start` (regular mode, SQLite) with every workflow
// published. Every API is a sandbox in this process, one per scenario.
//
// BENCH_N8N_LOG_LEVEL (default warn) sets n8n's log level, E2E_VERBOSE=1 echoes its output,
// BENCH_EXTRA_ENV (a JSON object) adds settings to n8n's environment for an experiment, such as
// '{"N8N_EXPRESSION_ENGINE_POOL_SIZE":"2"}'.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { executionReader, type ExecutionReader } from '../../test/e2e/rig/executions.ts';
import { ensureN8n, type N8nInstall } from '../../test/e2e/rig/n8n-install.ts';
import { installCommunityPackage } from '../../test/e2e/rig/community-package.ts';
import { n8nEnvironment } from '../../test/e2e/rig/n8n-environment.ts';
import { importIntoN8n } from '../../test/e2e/rig/n8n-import.ts';
import { ownerSession, startN8n } from '../../test/e2e/rig/n8n-server.ts';
import { packPackage } from '../../test/e2e/rig/pack-package.ts';
import { killAllChildren, log } from '../../test/e2e/rig/proc.ts';
import type { PackageJson } from './package-load.ts';
import { prepare, startSandboxes, type BenchWorkflow, type Sandboxes } from './scenarios.ts';

const REPO = path.resolve(import.meta.dirname, '..', '..');

/** n8n up with the scenarios published: what every measurement in it gets. */
export interface BenchN8n {
	url: string;
	reader: ExecutionReader;
	workflows: Record<string, BenchWorkflow>;
	sandboxes: Sandboxes;
	/** n8n's user folder: it names the `n8n start` process. */
	userFolder: string;
	startSeconds: number;
	/** The packed tarball's size. */
	packedBytes: number;
}

/** The package as n8n installed it, before n8n starts. */
export interface InstalledPackage {
	n8n: N8nInstall;
	packageDir: string;
	packageJson: PackageJson;
}

/** The package packed and installed into a fresh user folder, as n8n installs a community package. */
async function installPackage(n8n: N8nInstall, tempRoot: string, userFolder: string) {
	const packed = await packPackage(REPO, tempRoot);
	const packageDir = await installCommunityPackage(packed, userFolder, n8n);
	const packageJson: PackageJson = JSON.parse(
		fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'),
	);
	return { packageDir, packageJson, packedBytes: fs.statSync(packed.tarball).size };
}

/** The credentials and workflows given to `n8n import:credentials` and `import:workflow`. */
async function importScenarios(
	n8n: N8nInstall,
	env: NodeJS.ProcessEnv,
	tempRoot: string,
	{ credentials, workflows }: ReturnType<typeof prepare>,
): Promise<void> {
	// The webhook path is the bench's note to itself, not n8n's.
	const imported = Object.values(workflows).map(
		({ webhookPath: _webhookPath, ...workflow }) => workflow,
	);
	await importIntoN8n(n8n, env, tempRoot, { credentials, workflows: imported });
}

/** Publishes (activates) every workflow through the owner's REST session. */
async function publishAll(url: string, workflows: Record<string, BenchWorkflow>): Promise<void> {
	const session = await ownerSession(url);
	for (const workflow of Object.values(workflows)) {
		const stored = await session.get(`/rest/workflows/${workflow.id}`);
		await session.post(`/rest/workflows/${workflow.id}/activate`, {
			versionId: stored.versionId,
		});
	}
	log(`n8n: ${Object.keys(workflows).length} workflows published`);
}

/**
 * Runs `measure` in n8n with the package installed and the scenarios published; stops n8n and
 * the sandboxes and removes the temp folder after. `beforeStart` measures what must be measured
 * with the package installed and nothing running; `measure` gets what it resolved to.
 */
export async function inBenchN8n<Before, T>(
	beforeStart: (installed: InstalledPackage) => Promise<Before>,
	measure: (bench: BenchN8n, before: Before) => Promise<T>,
): Promise<T> {
	const n8n = await ensureN8n();
	const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-bench-'));
	let sandboxes: Sandboxes | undefined;
	try {
		const userFolder = path.join(tempRoot, 'user');
		fs.mkdirSync(userFolder);
		const env = await n8nEnvironment(n8n, userFolder);
		env.N8N_LOG_LEVEL = process.env.BENCH_N8N_LOG_LEVEL || 'warn';
		Object.assign(env, JSON.parse(process.env.BENCH_EXTRA_ENV || '{}'));
		const { packageDir, packageJson, packedBytes } = await installPackage(
			n8n,
			tempRoot,
			userFolder,
		);
		const before = await beforeStart({ n8n, packageDir, packageJson });
		sandboxes = await startSandboxes();
		const scenarios = prepare(sandboxes);
		await importScenarios(n8n, env, tempRoot, scenarios);
		const started = Date.now();
		const server = await startN8n(n8n, env);
		const startSeconds = (Date.now() - started) / 1000;
		await publishAll(server.url, scenarios.workflows);
		const bench: BenchN8n = {
			url: server.url,
			reader: executionReader(n8n, () => server.url),
			workflows: scenarios.workflows,
			sandboxes,
			userFolder,
			startSeconds,
			packedBytes,
		};
		return await measure(bench, before);
	} finally {
		killAllChildren();
		for (const sandbox of Object.values(sandboxes ?? {})) await sandbox.stop().catch(() => {});
		fs.rmSync(tempRoot, { recursive: true, force: true });
	}
}
