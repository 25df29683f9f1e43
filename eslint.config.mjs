// Lint with the rule sets n8n itself applies to community nodes:
// - @n8n/eslint-plugin-community-nodes (recommended), the checks behind n8n's verification;
// - eslint-plugin-n8n-nodes-base: `community` for package.json, `credentials`, `nodes`.
// Every rule we turn off is turned off here, once, with the reason beside it.
import tsParser from '@typescript-eslint/parser';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';

const base = n8nNodesBase.configs;

export default [
	{
		ignores: ['dist/**', 'node_modules/**', '.tools/**', 'coverage/**', '**/*.js', '**/*.mjs'],
	},
	{
		files: ['**/*.ts'],
		languageOptions: { parser: tsParser, parserOptions: { ecmaVersion: 'latest', sourceType: 'module' } },
	},
	{
		files: ['package.json'],
		// The package.json rules of both plugins walk an ESTree ObjectExpression, which the
		// TypeScript parser produces for .json files (as n8n's own starter configured it).
		languageOptions: { parser: tsParser, parserOptions: { extraFileExtensions: ['.json'] } },
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: { ...base.community.rules },
	},
	{
		files: ['credentials/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...base.credentials.rules,
			// Reason: the rule's own docs say it applies only to nodes in n8n's main repository, whose
			// documentationUrl is a slug; a community credential needs a full URL
			// (@n8n/community-nodes/credential-documentation-url checks that).
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...base.nodes.rules,
			// Reason: these older rules want the literal ['main'], written before n8n-workflow had
			// NodeConnectionTypes; @n8n/community-nodes/node-connection-type-literal, which n8n's
			// current verification applies, demands the enum. The two cannot both pass.
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
		},
	},
	{
		files: ['package.json', 'credentials/**/*.ts', 'nodes/**/*.ts'],
		...n8nCommunityNodesPlugin.configs.recommended,
		ignores: [],
	},
	{
		files: ['nodes/shared/credentialRules.ts', 'nodes/shared/phone.ts'],
		rules: {
			// Reason: pure modules, with no n8n node to attach an error to. They throw typed errors
			// (CredentialRuleError, PhoneNumberError) that the node glue turns into
			// NodeOperationError with the item index.
			'@n8n/community-nodes/require-node-api-error': 'off',
		},
	},
	{
		files: ['nodes/shared/phone.ts'],
		rules: {
			// Reason: as for no-runtime-dependencies below: libphonenumber-js is our one runtime
			// dependency, and this rule exists for n8n Cloud, which allows none.
			'@n8n/community-nodes/no-restricted-imports': 'off',
		},
	},
	{
		files: ['nodes/shared/clock.ts'],
		rules: {
			// Reason: the one place timers are created (pacing and retry waits). They must be
			// cancellable, and n8n-workflow's `sleep` cannot be cancelled; tests replace this clock.
			'@n8n/community-nodes/no-restricted-globals': 'off',
		},
	},
	{
		files: ['package.json'],
		rules: {
			// Reason: libphonenumber-js is the reference phone-number parser (PRODUCT.md keeps it as
			// our one runtime dependency). This rule exists for n8n Cloud verification, which allows
			// no runtime dependency at all; the package targets self-hosted n8n.
			'@n8n/community-nodes/no-runtime-dependencies': 'off',
		},
	},
];
