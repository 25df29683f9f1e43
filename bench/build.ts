// The compiled modules the benchmarks run in this process: CommonJS in build/ (`npm run build`),
// each typed by the source it is compiled from. n8n's environment must be set before anything
// of n8n loads, so every module is loaded on first use, the harness after the environment.

import { createRequire } from 'node:module';
import path from 'node:path';
import type * as EnvironmentModule from '../harness/environment.ts';
import type * as HarnessModule from '../harness/index.ts';
import type * as SignatureModule from '../nodes/CommsUnifiedTrigger/signature.ts';
import type * as SmsPagingModule from '../nodes/shared/account/smsPaging.ts';
import type * as SandboxModule from '../sandbox/index.ts';

const require = createRequire(import.meta.url);
const BUILD = path.resolve(import.meta.dirname, '..', 'build');

/** A module of build/, with the type of the source it is compiled from. */
function fromBuild<Module>(...modulePath: string[]): Module {
	return require(path.join(BUILD, ...modulePath)) as Module;
}

export const sandboxModule = () => fromBuild<typeof SandboxModule>('sandbox');

export const smsPagingModule = () =>
	fromBuild<typeof SmsPagingModule>('nodes', 'shared', 'smsPaging');

export const signatureModule = () =>
	fromBuild<typeof SignatureModule>('nodes', 'CommsUnifiedTrigger', 'signature');

let harness: typeof HarnessModule | undefined;

/** The harness (n8n-core running workflows), after n8n's environment; once per process. */
export function harnessModule(): typeof HarnessModule {
	if (!harness) {
		fromBuild<typeof EnvironmentModule>('harness', 'environment').prepareN8nEnvironment('bench');
		harness = fromBuild<typeof HarnessModule>('harness');
	}
	return harness;
}
