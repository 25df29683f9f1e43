#!/usr/bin/env node
// Bundles libphonenumber-js (with its `min` metadata), once, into dist/ in place of the
// re-export tsc emitted for nodes/shared/vendor/libphonenumber.ts: the package then has no
// runtime dependency, and every node reaches the one copy through nodes/shared/phone.
// esbuild's target is the Node.js that package.json's `engines` names. Run after tsc.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.join(__dirname, '..');
const ENTRY = 'nodes/shared/vendor/libphonenumber.ts';

/** `>=24` (or `^24.1`, `24.x`) -> `node24`: the oldest Node.js the package says it runs on. */
function targetFromEngines() {
	const { engines } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
	const major = /(\d+)/.exec(engines?.node ?? '')?.[1];
	if (!major) throw new Error('package.json has no engines.node to take the build target from');
	return `node${major}`;
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
