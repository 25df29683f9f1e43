import { prepareN8nEnvironment } from '../harness/environment';

prepareN8nEnvironment('test');

// n8n checks each parameter against its resource locator's regex in a vm with a 250 ms
// wall-clock timeout (n8n-workflow's safe-regex). On two cores shared by two test suites, a
// fault-matrix run of 16 parallel workflows once failed a plain phone-number check on that
// timeout. The regexes are the nodes' own, never a user's, so the tests check them with the
// same RegExp and no timeout; a real n8n (npm run test:e2e) keeps its own engine.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- after the environment above
const { setSafeRegexEngine } = require('n8n-workflow') as typeof import('n8n-workflow');
const regex = (pattern: string, flags?: string) => new RegExp(pattern, flags ?? '');
setSafeRegexEngine({
	exec: (pattern, input, flags) => regex(pattern, flags).exec(input),
	test: (pattern, input, flags) => regex(pattern, flags).test(input),
	replace: (pattern, input, flags, replacement) =>
		input.replace(regex(pattern, flags), replacement),
	matchAll: (pattern, input, flags) =>
		Array.from(input.matchAll(regex(pattern, flags?.includes('g') ? flags : `${flags ?? ''}g`))),
	split: (pattern, input, flags) => input.split(regex(pattern, flags)),
});
