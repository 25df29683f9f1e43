/**
 * Our nodes and credentials, found the way n8n finds them: from the `n8n` field of
 * package.json. By default each `dist/...js` entry is loaded from beside this file, so the
 * same code runs from TypeScript sources (tests) and from tsc's build/ tree (benchmarks).
 * `usePublishedPackage()` loads the built files under dist/ instead, exactly what the
 * package ships (the demo).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ICredentialType, INodeType } from 'n8n-workflow';

interface Manifest {
	n8n: { nodes: string[]; credentials: string[] };
}

/** The project's package.json: beside the sources' parent, or one level further up from dist/. */
function readManifest(): Manifest {
	for (let dir = path.join(__dirname, '..'); dir !== path.dirname(dir); dir = path.dirname(dir)) {
		const file = path.join(dir, 'package.json');
		if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
	}
	throw new Error('package.json not found');
}

const manifest = readManifest();

let packageRoot: string | undefined;

/** From now on, load the entries as package.json names them, from the package at `root`. */
export function usePublishedPackage(root: string): void {
	packageRoot = root;
}

function load<T>(entry: string): T {
	const relative = entry.replace(/^dist\//, '').replace(/\.js$/, '');
	const file = packageRoot ? path.join(packageRoot, entry) : path.join(__dirname, '..', relative);
	// Loaded by path at run time, like n8n's own loader does.
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- a path known at run time
	const exported = require(file) as Record<string, new () => T>;
	const className = path.basename(relative).split('.')[0];
	const Class = exported[className];
	if (typeof Class !== 'function')
		throw new Error(`${entry} does not export a class named ${className}`);
	return new Class();
}

export function packageNodes(): INodeType[] {
	return manifest.n8n.nodes.map((entry) => load<INodeType>(entry));
}

export function packageCredentials(): ICredentialType[] {
	return manifest.n8n.credentials.map((entry) => load<ICredentialType>(entry));
}
