#!/usr/bin/env node
// Bundles libphonenumber-js (with its `min` metadata), once, into dist/ in place of the
// re-export tsc emitted for nodes/shared/parameters/vendor/libphonenumber.ts: the package then has no
// runtime dependency, and every node reaches the one copy through nodes/shared/parameters/phoneNumbers.
// esbuild's target is the oldest Node.js that package.json's `engines` allows
// (scripts/oldest-node.js). Run after tsc.
'use strict';
const path = require('node:path');
const esbuild = require('esbuild');
const { oldestNodeVersion } = require('./oldest-node.js');

const root = path.join(__dirname, '..');
const ENTRY = 'nodes/shared/parameters/vendor/libphonenumber.ts';

/** `>=22.0.0` -> `node22.0.0`: esbuild's name for the oldest Node.js the package runs on. */
function targetFromEngines() {
	return `node${oldestNodeVersion()}`;
}

async function main() {
	const target = targetFromEngines();
	const outfile = path.join(root, 'dist', ENTRY.replace(/\.ts$/, '.js'));
	await esbuild.build({
		entryPoints: [path.join(root, ENTRY)],
		outfile,
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target,
		legalComments: 'inline',
		logLevel: 'warning',
	});
}

module.exports = { targetFromEngines };

if (require.main === module) {
	main().catch((error) => {
		console.error(error);
		process.exitCode = 1;
	});
}
