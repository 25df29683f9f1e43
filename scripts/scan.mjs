#!/usr/bin/env node
// n8n's own gate for community packages, run offline: `@n8n/scan-community-package`'s
// analyzePackage with its own configuration, on the source (its SOURCE_FILE_PATTERNS) and on
// the packed tarball (`**/*.js` and package.json), exactly the two legs n8n runs before it
// verifies a package. No exception of ours applies: the scanner ignores inline directives and
// our eslint config. Run after `npm run build`: `node scripts/scan.mjs [--source-only]`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import {
	analyzePackage,
	SOURCE_FILE_PATTERNS,
} from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sourceOnly = process.argv.includes('--source-only');

function report(label, result) {
	if (result.passed) {
		console.log(`scan: ${label}: passed${result.message ? ` (${result.message})` : ''}`);
		return true;
	}
	console.error(`scan: ${label}: FAILED: ${result.message}`);
	if (result.details) console.error(result.details);
	return false;
}

/** Packs the package as npm publishes it and unpacks the tarball into a temp folder. */
function packed() {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'comms-scan-'));
	const out = execFileSync(
		'npm',
		['pack', '--json', '--ignore-scripts', '--pack-destination', dir],
		{ cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
	);
	const [{ filename }] = JSON.parse(out);
	const unpacked = path.join(dir, 'package');
	execFileSync('tar', ['-xzf', path.join(dir, path.basename(filename)), '-C', dir]);
	return { dir, unpacked };
}

let ok = report('source', await analyzePackage(root, SOURCE_FILE_PATTERNS));
if (!sourceOnly) {
	const { dir, unpacked } = packed();
	try {
		ok =
			report('packed tarball', await analyzePackage(unpacked, ['**/*.js', 'package.json'])) && ok;
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}
process.exit(ok ? 0 : 1);
