// Lint is n8n's own gate: the configuration of `@n8n/scan-community-package` (the check n8n
// runs before it verifies a community package), taken from the scanner itself, with no
// exception of ours. `npm run lint` runs the scanner's analyzePackage on the source
// (scripts/scan.mjs); this file gives editors and `npx eslint` the same rules.
//
// The scanner lints package.json, nodes/ and credentials/ (its SOURCE_FILE_PATTERNS). The rest
// of the tree (sandbox, harness, tests, scripts) never ships and runs in plain Node.js, where
// timers and `process` are the point, so it is outside the scan, as it is outside the package.
import { buildScanConfig } from '@n8n/scan-community-package/scanner/scanner.mjs';

export default [
	{
		ignores: [
			'dist/**',
			'build/**',
			'node_modules/**',
			'.tools/**',
			'.e2e/**',
			'coverage/**',
			'test/**',
			'sandbox/**',
			'harness/**',
			'bench/**',
			'scripts/**',
			'*.js',
			'*.mjs',
			'examples/**',
			'docs/**',
			'*.json',
			'!package.json',
		],
	},
	...(await buildScanConfig()),
];
