// The package's load time as n8n's loader has it: every credential and node file required and
// its classes constructed, in a fresh Node.js 24 process with n8n-workflow already loaded.

import { createRequire } from 'node:module';
import path from 'node:path';
import { run } from '../../test/e2e/rig/proc.ts';
import { median, round } from './bursts.ts';
import type { InstalledPackage } from './server.ts';

const require = createRequire(import.meta.url);

/** The part of the installed package.json that names the files n8n loads. */
export interface PackageJson {
	n8n: { credentials: string[]; nodes: string[] };
}

/** Time to load the package's files as n8n's loader does, in a fresh Node.js 24 process (median of 5). */
export async function packageLoad({ n8n, packageDir, packageJson }: InstalledPackage) {
	const files = [...packageJson.n8n.credentials, ...packageJson.n8n.nodes];
	const script = `
const { performance } = require('node:perf_hooks');
const path = require('node:path');
const t0 = performance.now();
for (const file of ${JSON.stringify(files)}) {
	const exported = require(path.join(${JSON.stringify(packageDir)}, file));
	for (const Class of Object.values(exported)) if (typeof Class === 'function') new Class();
}
process.stdout.write(String(performance.now() - t0));`;
	const workflowModule = path.dirname(
		require.resolve('n8n-workflow/package.json', { paths: [n8n.n8nDir] }),
	);
	const samples: number[] = [];
	// n8n-workflow first, as n8n has it loaded before it loads any community package.
	const preload = `require(${JSON.stringify(workflowModule)});`;
	for (let i = 0; i < 5; i++) {
		const result = await run(n8n.node, ['-e', preload + script], {
			env: { ...process.env, NODE_PATH: path.join(n8n.dir, 'node_modules') },
			timeoutMs: 60000,
			label: 'package load',
		});
		samples.push(Number(result.stdout.trim()));
	}
	return { files: files.length, medianMs: round(median(samples), 1) };
}
