/**
 * Running what ships under the oldest Node.js package.json's engines allows
 * (scripts/oldest-node.js installs it): test/package/published.test.ts uses these on the
 * unpacked tarball.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.join(__dirname, '..', '..');

// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS script, untyped
export const { oldestNodeVersion, ensureOldestNode } = require('../../scripts/oldest-node.js') as {
	oldestNodeVersion(): string;
	ensureOldestNode(): string;
};

/**
 * The newest ECMAScript edition each Node.js major runs completely (its V8), as TypeScript
 * names it in `target` and `lib`. A major missing here must be added before engines names it.
 */
export const ES_EDITION_OF_NODE: Record<number, number> = { 20: 2023, 22: 2024, 24: 2024 };

export interface Ran {
	status: number | null;
	output: string;
}

/**
 * Runs `command` (that Node.js unless told) with `args` in `cwd`, with that Node.js first on PATH,
 * so that `npm` runs on it too.
 */
export function runWith(
	node: string,
	args: string[],
	cwd: string,
	timeoutMs = 240_000,
	command = node,
): Ran {
	const result = spawnSync(command, args, {
		cwd,
		encoding: 'utf8',
		timeout: timeoutMs,
		env: { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}` },
	});
	return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

/**
 * A script that requires every .js file under dist/ of the package in its working directory, and
 * constructs every node and credential class package.json's `n8n` field names, as n8n's loader
 * does; it prints each node's and credential's name, or what failed.
 */
export const LOAD_EVERYTHING = `
const fs = require('node:fs');
const path = require('node:path');
const files = [];
(function walk(dir) {
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const file = path.join(dir, entry.name);
		if (entry.isDirectory()) walk(file);
		else if (file.endsWith('.js')) files.push(file);
	}
})('dist');
const problems = [];
for (const file of files) {
	try { require(path.resolve(file)); } catch (error) { problems.push(file + ': ' + error.message); }
}
const { n8n } = require(path.resolve('package.json'));
const names = [];
for (const entry of [...n8n.nodes, ...n8n.credentials]) {
	try {
		for (const Class of Object.values(require(path.resolve(entry)))) {
			if (typeof Class !== 'function') continue;
			const made = new Class();
			names.push((made.description ?? made).name);
		}
	} catch (error) { problems.push(entry + ': ' + error.message); }
}
if (problems.length) { console.error(problems.join('\\n')); process.exit(1); }
console.log(JSON.stringify({ node: process.version, files: files.length, names }));
`;

/** The unit tests of what ships: the files in test/unit that import from nodes/ or credentials/. */
export function shippedCodeUnitTests(): string[] {
	const dir = path.join(root, 'test', 'unit');
	return fs
		.readdirSync(dir)
		.filter((file) => file.endsWith('.test.ts'))
		.filter((file) =>
			/from '\.\.\/\.\.\/(nodes|credentials)\//.test(fs.readFileSync(path.join(dir, file), 'utf8')),
		)
		.map((file) => path.join('test', 'unit', file))
		.sort();
}
