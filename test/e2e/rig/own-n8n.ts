// An n8n of a scenario's own, beside the run's shared one: a fresh user folder and database with
// the community package copied from the shared install, for scenarios that stop and start n8n
// (a restart must not take the shared server from the scenarios after them). Generic.

import fs from 'node:fs';
import path from 'node:path';
import type { LiveContext } from './live-scenarios.ts';
import { startLogged, waitReady, type LoggedProcess } from './logged-process.ts';
import { n8nEnvironment } from './n8n-environment.ts';
import type { N8nInstall } from './n8n-install.ts';
import { N8N_START_TIMEOUT_MS } from './n8n-server.ts';
import { log } from './proc.ts';

/** The environment of an n8n of its own in `folder` under the run's temp root, plus `extra`. */
export async function ownN8nEnvironment(
	n8n: N8nInstall,
	folder: string,
	{ env: sharedEnv, tempRoot }: Pick<LiveContext, 'env' | 'tempRoot'>,
	extra: NodeJS.ProcessEnv = {},
): Promise<NodeJS.ProcessEnv> {
	const userFolder = path.join(tempRoot, folder);
	fs.mkdirSync(path.join(userFolder, '.n8n'), { recursive: true });
	fs.cpSync(
		path.join(sharedEnv.N8N_USER_FOLDER!, '.n8n', 'nodes'),
		path.join(userFolder, '.n8n', 'nodes'),
		{ recursive: true, verbatimSymlinks: true },
	);
	return { ...(await n8nEnvironment(n8n, userFolder)), ...extra };
}

/** `n8n start` on that environment; resolves once it serves requests. */
export async function startOwnN8nServer(
	n8n: N8nInstall,
	env: NodeJS.ProcessEnv,
	label: string,
): Promise<{ proc: LoggedProcess; url: string }> {
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
