// Checks that an installed community package loads on its own. n8n puts its own node_modules on
// NODE_PATH, so inside n8n a community package can require anything n8n happens to ship
// (libphonenumber-js, for one) even if its package.json forgot to declare it; it then breaks when
// n8n drops or changes that module.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { N8nInstall } from './n8n-install.ts';
import { E2eError, log, run } from './proc.ts';

/** A script that requires every file and reports each one that does not load, and why. */
function loadScript(files: string[]): string {
	return `
			const problems = [];
			for (const file of ${JSON.stringify(files)}) {
				try {
					require(require('node:path').join(process.cwd(), file));
				} catch (error) {
					const missing = error.code === 'MODULE_NOT_FOUND' && /Cannot find module '([^']+)'/.exec(error.message);
					const what = missing && (missing[1].startsWith('.') || missing[1].startsWith('/')
						? ' requires "' + missing[1] + '", which is not in the tarball (see "files" in package.json)'
						: ' requires "' + missing[1] + '", which is not in "dependencies" in package.json');
					problems.push(file + (what || ' does not load: ' + error.message.split('\\n')[0]));
				}
			}
			if (problems.length) { console.error(problems.join('\\n')); process.exit(1); }`;
}

/** Links each peer dependency from n8n's install into peersDir. */
function linkPeers(peersDir: string, peerNames: string[], n8n: N8nInstall): void {
	for (const name of peerNames) {
		const source = [
			path.join(n8n.n8nDir, 'node_modules', name),
			path.join(n8n.dir, 'node_modules', name),
		].find((dir) => fs.existsSync(path.join(dir, 'package.json')));
		if (!source) throw new E2eError(`peer dependency ${name} is not part of n8n's install`);
		fs.mkdirSync(path.dirname(path.join(peersDir, name)), { recursive: true });
		fs.symlinkSync(source, path.join(peersDir, name), 'dir');
	}
}

/**
 * Loads every node and credential file once with a NODE_PATH that holds only the package's peer
 * dependencies (n8n-workflow), taken from n8n's copy: any other module must come from the
 * package's own install.
 */
export async function checkLoadsInIsolation(
	packageDir: string,
	files: string[],
	peerNames: string[],
	n8n: N8nInstall,
): Promise<void> {
	const peersDir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-peers-'));
	try {
		linkPeers(peersDir, peerNames, n8n);
		const result = await run(n8n.node, ['-e', loadScript(files)], {
			cwd: packageDir,
			env: {
				PATH: `${n8n.nodeBinDir}${path.delimiter}${process.env.PATH}`,
				NODE_PATH: peersDir,
				HOME: process.env.HOME || os.homedir(),
			},
			timeoutMs: 60000,
			check: false,
			label: 'isolated load check',
		});
		if (result.code !== 0) {
			throw new E2eError(
				`the installed package does not load on its own (inside n8n a module n8n happens to ship would hide this, until n8n drops it):\n${result.stderr.trim()}`,
			);
		}
		log(
			`every node and credential file loads with only ${peerNames.join(', ') || 'no modules'} from n8n`,
		);
	} finally {
		fs.rmSync(peersDir, { recursive: true, force: true });
	}
}
