// Installs a packed community package into an n8n user folder the way n8n itself does when a
// user installs it from Settings > Community nodes, then checks it loads on its own
// (isolated-load-check.ts).

import fs from 'node:fs';
import path from 'node:path';
import { readJson, writeJson } from './files.ts';
import { checkLoadsInIsolation } from './isolated-load-check.ts';
import { npmEnv, type N8nInstall } from './n8n-install.ts';
import { declaredN8nFiles } from './pack-package.ts';
import { E2eError, log, run } from './proc.ts';
import type { Packed } from './types.ts';

/** Time limit for the shallow npm install inside the package. */
const NPM_INSTALL_TIMEOUT_MS = 5 * 60 * 1000;

/**
 * Installs a packed community package into userFolder as n8n does when a user
 * installs it from Settings > Community nodes: unpack into
 * .n8n/nodes/node_modules/<name>, drop dev/peer/optional dependencies from its
 * package.json, then a shallow `npm install` inside it (so a runtime dependency
 * missing from "dependencies" shows up). n8n-workflow is not installed: n8n
 * puts its own node_modules on NODE_PATH, as it does for every community package.
 */
export async function installCommunityPackage(
	packed: Packed,
	userFolder: string,
	n8n: N8nInstall,
): Promise<string> {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const packageDir = path.join(nodesDir, 'node_modules', packed.name);
	fs.mkdirSync(packageDir, { recursive: true });
	log(`installing ${packed.name} into ${packageDir}`);
	await run('tar', ['-xzf', packed.tarball, '-C', packageDir, '--strip-components=1'], {
		timeoutMs: 60000,
	});
	const packageJsonPath = path.join(packageDir, 'package.json');
	const {
		devDependencies: _devDependencies,
		peerDependencies,
		optionalDependencies: _optionalDependencies,
		...packageJson
	} = readJson(packageJsonPath);
	writeJson(packageJsonPath, packageJson);
	await run(
		'npm',
		[
			'install',
			'--audit=false',
			'--fund=false',
			'--bin-links=false',
			'--install-strategy=shallow',
			'--ignore-scripts=true',
			'--package-lock=false',
		],
		{
			cwd: packageDir,
			env: npmEnv({ PATH: `${n8n.nodeBinDir}${path.delimiter}${process.env.PATH}` }),
			timeoutMs: NPM_INSTALL_TIMEOUT_MS,
			label: `npm install (inside ${packed.name})`,
		},
	);
	// n8n's ledger of installed packages, as n8n keeps it next to node_modules.
	writeJson(path.join(nodesDir, 'package.json'), {
		name: 'installed-nodes',
		private: true,
		dependencies: { [packed.name]: packed.version },
	});
	const missing = declaredN8nFiles(packageJson).filter(
		(file) => !fs.existsSync(path.join(packageDir, file)),
	);
	if (missing.length > 0) throw new E2eError(`installed package lacks ${missing.join(', ')}`);
	const deps = Object.keys(packageJson.dependencies || {});
	log(
		`installed ${packed.name}${deps.length ? ` with runtime dependencies: ${deps.join(', ')}` : ' (no runtime dependencies)'}`,
	);
	await checkLoadsInIsolation(
		packageDir,
		declaredN8nFiles(packageJson),
		Object.keys(peerDependencies || {}),
		n8n,
	);
	return packageDir;
}
