// `npm run dev`: the contributor's loop. A real n8n (the one the e2e run uses) with this package
// installed as a community package, the sandbox beside it with credentials for it already in n8n,
// and a rebuild on every change: edit a node, and the editor shows the change after its reload.
//
// n8n's own `n8n-node dev` (@n8n/node-cli) does not fit this package: it runs `tsc --watch` on the
// default tsconfig (ours only type-checks; the shipped build is tsc on tsconfig.build.json, then the
// bundled phone library, then the icons), runs `npx n8n@latest` (network, and an n8n other than the
// pinned one the tests run), and links the package as a custom folder, whose nodes n8n names
// CUSTOM.<name> instead of n8n-nodes-comms-api.<name>, so the example workflows would not open.
//
// Here: the package's files are copied (not linked: a link would make the nodes load the
// repository's own n8n-workflow instead of n8n's) into <.dev>/n8n/.n8n/nodes/node_modules, n8n runs
// with N8N_DEV_RELOAD=true, whose file watcher reloads the package when the copy changes, and
// nodes/, credentials/ and icons/ are watched here: a change runs `npm run build:package` and
// copies dist/ again. `--check` does one round (start, change, reload seen) and exits.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadSandbox, REPO } from './comms.ts';
import { liveUnifiedCredential } from './cap-across-wait.ts';
import { accountCredential, type CommsSandbox } from './comms.ts';
import { startLogged } from './rig/logged-process.ts';
import { n8nEnvironment } from './rig/n8n-environment.ts';
import { ensureN8n } from './rig/n8n-install.ts';
import { OWNER, ownerSession, waitFor } from './rig/n8n-server.ts';
import { waitReady } from './rig/logged-process.ts';
import { N8N_START_TIMEOUT_MS } from './rig/n8n-server.ts';
import { log } from './rig/proc.ts';

const DEV_DIR = path.join(REPO, '.dev');
const PACKAGE = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
const WATCHED = ['nodes', 'credentials', 'icons'];
const CHECK = process.argv.includes('--check');

/** The package's shipped files, copied where n8n loads community packages, as n8n installs them. */
function copyPackage(userFolder: string): string {
	const target = path.join(userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE.name);
	fs.mkdirSync(target, { recursive: true });
	const {
		devDependencies: _dev,
		peerDependencies: _peer,
		peerDependenciesMeta: _meta,
		...shipped
	} = PACKAGE;
	fs.writeFileSync(path.join(target, 'package.json'), JSON.stringify(shipped, null, 2));
	fs.cpSync(path.join(REPO, 'dist'), path.join(target, 'dist'), { recursive: true });
	fs.writeFileSync(
		path.join(userFolder, '.n8n', 'nodes', 'package.json'),
		JSON.stringify({
			name: 'installed-nodes',
			private: true,
			dependencies: { [PACKAGE.name]: PACKAGE.version },
		}),
	);
	return target;
}

function build(): boolean {
	const began = Date.now();
	const result = spawnSync('npm', ['run', '--silent', 'build:package'], {
		cwd: REPO,
		stdio: 'inherit',
	});
	if (result.status === 0) log(`dev: rebuilt in ${((Date.now() - began) / 1000).toFixed(1)}s`);
	else log('dev: the build failed; fix it and save again');
	return result.status === 0;
}

/** The sandbox's credentials in n8n, so the nodes can be tried at once. */
async function addCredentials(url: string, sandbox: CommsSandbox): Promise<void> {
	const session = await ownerSession(url);
	const existing = await session.get('/rest/credentials');
	const names = new Set((existing ?? []).map((c: { name: string }) => c.name));
	for (const credential of [
		accountCredential(sandbox, 'Comms Account (sandbox)'),
		liveUnifiedCredential(sandbox, 'Comms Unified (sandbox, live key)'),
	])
		if (!names.has(credential.name)) await session.post('/rest/credentials', credential);
}

async function main(): Promise<void> {
	const n8n = await ensureN8n();
	const userFolder = path.join(DEV_DIR, 'n8n');
	fs.mkdirSync(userFolder, { recursive: true });
	const installed = copyPackage(userFolder);
	const sandbox = (await loadSandbox().startSandbox({ port: CHECK ? 0 : 4010 })) as CommsSandbox;
	const env: NodeJS.ProcessEnv = {
		...(await n8nEnvironment(n8n, userFolder)),
		N8N_DEV_RELOAD: 'true',
	};
	if (!CHECK) env.N8N_PORT = process.env.N8N_PORT ?? '5678';
	// The folder is kept between runs: its n8n keeps the key it encrypted the credentials with.
	const settings = path.join(userFolder, '.n8n', 'config');
	if (fs.existsSync(settings))
		env.N8N_ENCRYPTION_KEY = JSON.parse(fs.readFileSync(settings, 'utf8')).encryptionKey;
	const n8nProcess = startLogged('n8n (dev)', n8n.node, [n8n.n8nBin, 'start'], {
		env,
		cwd: userFolder,
		echo: !CHECK,
	});
	const url = `http://127.0.0.1:${env.N8N_PORT}`;
	const stop = async () => {
		await n8nProcess.stop().catch(() => undefined);
		await sandbox.stop();
	};
	process.on('SIGINT', () => void stop().then(() => process.exit(0)));
	await waitReady(n8nProcess, `${url}/healthz/readiness`, N8N_START_TIMEOUT_MS).catch(
		(error: Error) => {
			process.stderr.write(`${n8nProcess.text().slice(-3000)}\n`);
			throw error;
		},
	);
	await addCredentials(url, sandbox);
	log(
		`dev: n8n ${url} (sign in as ${OWNER.email} / ${OWNER.password}), the sandbox ${sandbox.url}`,
	);
	log(`dev: watching ${WATCHED.join(', ')}; a change rebuilds the package and n8n reloads it`);

	let timer: NodeJS.Timeout | undefined;
	const rebuild = () => {
		clearTimeout(timer);
		timer = setTimeout(() => {
			if (build())
				fs.cpSync(path.join(REPO, 'dist'), path.join(installed, 'dist'), { recursive: true });
		}, 300);
	};
	for (const folder of WATCHED) fs.watch(path.join(REPO, folder), { recursive: true }, rebuild);

	if (!CHECK) return;
	// One round: a change to a node's file, the rebuild, and n8n's reload of the package.
	const reloads = () =>
		n8nProcess.lines.filter(({ text }) => text.includes(`Hot reload triggered for ${PACKAGE.name}`))
			.length;
	const before = reloads();
	const touched = path.join(REPO, 'nodes', 'CommsAccount', 'CommsAccount.node.ts');
	fs.utimesSync(touched, new Date(), new Date());
	try {
		await waitFor('n8n to reload the rebuilt package', () => reloads() > before, {
			timeoutMs: 120_000,
		});
		const session = await ownerSession(url);
		const nodeInfos = (PACKAGE.n8n.nodes as string[]).map((file) => ({
			name: `${PACKAGE.name}.${path.basename(file, '.node.js').replace(/^./, (c) => c.toLowerCase())}`,
			version: 1,
		}));
		const served = (await session.post('/rest/node-types', { nodeInfos })) as Array<{
			name: string;
		}>;
		if (served.length !== nodeInfos.length)
			throw new Error(`n8n serves ${served.length} of the ${nodeInfos.length} node types`);
		log(
			`dev --check: rebuilt on a change, n8n reloaded the package and serves ${served.map((t) => t.name).join(', ')}`,
		);
	} finally {
		await stop();
	}
	process.exit(0);
}

main().catch((error: Error) => {
	process.stderr.write(`dev: ${error.stack ?? error.message}\n`);
	process.exit(1);
});
