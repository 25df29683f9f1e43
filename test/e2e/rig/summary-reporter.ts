// A node:test reporter that prints only the run's summary line, `<label>: N passed, N failed`,
// which CI reads: the scenarios (tests, not suites) that passed, and those that failed or were
// cancelled by a failed set-up; skipped ones (E2E_ONLY, --test-name-pattern) count in neither.
// The label is E2E_SUMMARY (set by the entry point: `e2e`, `test:versions`), `e2e` by default.
// Used beside n8n's spec reporter: see the test:e2e script in package.json.

import type { TestEvent } from 'node:test/reporters';

export default async function* summary(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
	let passed = 0;
	let failed = 0;
	for await (const event of source) {
		if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
		if (event.data.details.type === 'suite' || event.data.skip) continue;
		if (event.type === 'test:pass') passed += 1;
		else failed += 1;
	}
	yield `${process.env.E2E_SUMMARY ?? 'e2e'}: ${passed} passed, ${failed} failed\n`;
}
