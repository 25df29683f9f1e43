// The compiled modules the benchmarks run in this process: CommonJS in build/ (`npm run build`),
// each typed by the source it is compiled from and found by that same source path, so a moved
// source file fails here, by name, rather than loading a stale copy. n8n's environment must be
// set before anything of n8n loads, so every module is loaded on first use, the harness after the
// environment. `npm run bench:quick` (in `npm run check`) loads every one of them.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as EnvironmentModule from '../harness/environment.ts';
import type * as HarnessModule from '../harness/index.ts';
import type * as SignatureModule from '../nodes/CommsUnified/trigger/signature.ts';
import type * as SmsPagingModule from '../nodes/CommsAccount/api/smsPaging.ts';
import type * as SandboxModule from '../sandbox/index.ts';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(import.meta.dirname, '..');
const BUILD = path.join(ROOT, 'build');

/**
 * The module of build/ compiled from `source` (a path from the repository's root, as the type
 * import above names it). Both must exist: the source, so that a file moved in the sources is
 * named here, and its compiled copy, so that a build older than the sources is named too.
 */
function fromBuild<Module>(source: string): Module {
	const compiled = path.join(BUILD, source.replace(/\.ts$/, '.js'));
	for (const [file, what] of [
		[path.join(ROOT, source), 'source'],
		[compiled, 'compiled module (run `npm run build`)'],
	])
		if (!fs.existsSync(file))
			throw new Error(`bench/build.ts: no ${what} ${path.relative(ROOT, file)}`);
	return require(compiled) as Module;
}

export const sandboxModule = () => fromBuild<typeof SandboxModule>('sandbox/index.ts');

export const smsPagingModule = () =>
	fromBuild<typeof SmsPagingModule>('nodes/CommsAccount/api/smsPaging.ts');

export const signatureModule = () =>
	fromBuild<typeof SignatureModule>('nodes/CommsUnified/trigger/signature.ts');

/** Every module above, loaded once: a moved source or a stale build fails here. */
export function loadAll(): void {
	sandboxModule();
	smsPagingModule();
	signatureModule();
	harnessModule();
}

let harness: typeof HarnessModule | undefined;

/** The harness (n8n-core running workflows), after n8n's environment; once per process. */
export function harnessModule(): typeof HarnessModule {
	if (!harness) {
		fromBuild<typeof EnvironmentModule>('harness/environment.ts').prepareN8nEnvironment('bench');
		harness = fromBuild<typeof HarnessModule>('harness/index.ts');
	}
	return harness;
}
