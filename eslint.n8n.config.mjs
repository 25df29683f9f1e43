// n8n's own lint for community nodes, as n8n's starter runs it: the `./eslint` export of
// `@n8n/node-cli` (eslint-plugin-n8n-nodes-base's node and credential rules,
// @n8n/eslint-plugin-community-nodes, import-x, ESLint's and typescript-eslint's recommended
// rules), unchanged. `npm run lint` runs it on what ships only (package.json, nodes/,
// credentials/), in a run of its own beside eslint.config.mjs: its plugins are other versions of
// the ones the scanner's configuration brings, and ESLint keeps one of each per run.
import { config } from '@n8n/node-cli/eslint';

export default config;
