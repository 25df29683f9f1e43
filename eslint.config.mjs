// One lint for every TypeScript and JavaScript file in the repository (`npm run lint` runs
// `eslint .`), in two layers:
//
// - Everywhere: ESLint's and typescript-eslint's recommended rules, with Node.js globals. The
//   tests, the sandbox, the harness, the real-n8n rig, the benchmarks and the scripts are read
//   and changed as often as the nodes, so they are held to the same rules.
// - On what ships (package.json, nodes/, credentials/): n8n's own gate on top, the
//   configuration of `@n8n/scan-community-package` (the check n8n runs before it verifies a
//   community package) taken from the scanner itself, with no exception of ours. Only there:
//   the rest of the tree never ships and runs in plain Node.js, where timers and `process` are
//   the point (the scanner's `no-restricted-globals` would forbid them).
//
// The scanner itself ignores this file and inline directives; `npm run lint` also runs it as n8n
// does (scripts/scan.mjs), so the gate cannot be loosened here.
import comments from '@eslint-community/eslint-plugin-eslint-comments';
import js from '@eslint/js';
import { buildScanConfig } from '@n8n/scan-community-package/scanner/scanner.mjs';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
	globalIgnores(['dist/', 'build/', 'node_modules/', '.tools/', '.e2e/', '.dev/', 'coverage/']),
	{
		files: ['**/*.{ts,mts,cts,js,mjs,cjs}'],
		extends: [js.configs.recommended, tseslint.configs.recommended],
		plugins: { '@eslint-community/eslint-comments': comments },
		languageOptions: { globals: { ...globals.node } },
		linterOptions: { reportUnusedDisableDirectives: 'error' },
		rules: {
			// A rule turned off for a line says why, after `--`.
			'@eslint-community/eslint-comments/require-description': 'error',
			// `_`-prefixed names are unused on purpose (a callback's leading parameters, a
			// destructured field left out of a rest object).
			'@typescript-eslint/no-unused-vars': [
				'error',
				{ argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
			],
		},
	},
	{
		// CommonJS files (build scripts, configs) load their modules with require; test/e2e/ and
		// bench/ are ES modules (their package.json says so).
		files: ['**/*.js', '**/*.cjs'],
		ignores: ['test/e2e/**', 'bench/**'],
		languageOptions: { sourceType: 'commonjs' },
		rules: { '@typescript-eslint/no-require-imports': 'off' },
	},
	{
		files: ['package.json', 'nodes/**/*.ts', 'credentials/**/*.ts'],
		extends: [await buildScanConfig()],
	},
);
