// An n8n of the lifecycle scenario's own (index.ts), one per poll path: a fresh user folder and
// database with the community package copied from the shared run's install, and `n8n start` on
// it, stopped and started again by the scenario.

import fs from 'node:fs';
import path from 'node:path';
import type { LiveContext } from '../../rig/live-scenarios.ts';
import { startLogged, waitReady } from '../../rig/logged-process.ts';
import { DURABLE_POLL_ENV, n8nEnvironment } from '../../rig/n8n-environment.ts';
import type { N8nInstall } from '../../rig/n8n-install.ts';
import { N8N_START_TIMEOUT_MS } from '../../rig/n8n-server.ts';
import { log } from '../../rig/proc.ts';

/** n8n 2.41's two poll paths: the default one, and the durable scheduler with durable cursors. */
export type PathName = 'default' | 'durable';
const PATHS: Record<PathName, NodeJS.ProcessEnv> = { default: {}, durable: DURABLE_POLL_ENV };

/** The environment of this path's own n8n, its user folder holding the package as installed. */
export async function ownEnvironment(
	n8n: N8nInstall,
	pathName: PathName,
	{ env: sharedEnv, tempRoot }: LiveContext,
): Promise<NodeJS.ProcessEnv> {
	const userFolder = path.join(tempRoot, `lifecycle-${pathName}`);
	fs.mkdirSync(path.join(userFolder, '.n8n'), { recursive: true });
	// The community package as the shared run installed it.
	fs.cpSync(
		path.join(sharedEnv.N8N_USER_FOLDER!, '.n8n', 'nodes'),
		path.join(userFolder, '.n8n', 'nodes'),
		{ recursive: true, verbatimSymlinks: true },
	);
	return { ...(await n8nEnvironment(n8n, userFolder)), ...PATHS[pathName] };
}

export async function startOwnN8n(n8n: N8nInstall, env: NodeJS.ProcessEnv, label: string) {
	const proc = startLogged(label, n8n.node, [n8n.n8nBin, 'start'], {
		env,
		cwd: env.N8N_USER_FOLDER,
		echo: process.env.E2E_VERBOSE === '1',
	});
	const url = `http://127.0.0.1:${env.N8N_PORT}`;
	const seconds = await waitReady(proc, `${url}/healthz/readiness`, N8N_START_TIMEOUT_MS);
	log(`  ${label}: serving after ${seconds.toFixed(1)}s`);
	return { proc, url };
}
