// The package in the older n8n versions it supports (`npm run test:versions`; `npm run build`
// first): the suite of run.ts, less what only the latest n8n needs, in n8n 1.123 on Node.js 22
// (the maintained 1.x line) and in n8n 2.0.3 on Node.js 24 (the oldest 2.x), one after the other,
// each installed once into its own cache folder (rig/n8n-versions.ts says how each differs).
// `node test/e2e/versions.ts 2.0.3` runs one of them. Prints `test:versions: N passed, N failed`
// last. E2E_ONLY and the rest as for run.ts (README.md in this folder).

import { LAST_1X, OLDEST_2X, profileOf } from './rig/n8n-versions.ts';
import { commsSuite, declareRun } from './run.ts';

const profiles =
	process.argv.length > 2 ? process.argv.slice(2).map(profileOf) : [LAST_1X, OLDEST_2X];
declareRun(
	profiles.map((profile) => commsSuite(profile)),
	'test:versions',
);
