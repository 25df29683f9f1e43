// Each scenario's outcome: a PASS line, or a FAIL line with the failure's details (or the stack
// of an unexpected error), counted in a tally the run's summary line reports.

import { E2eError, log } from './proc.ts';

export interface Tally {
	passed: number;
	failed: number;
}

/** FAIL line for a scenario, then its details (or the stack of an unexpected error). */
function reportFailure(name: string, error: Error & { details?: string }): void {
	log(`FAIL ${name}: ${error.message}`);
	if (error.details) process.stderr.write(`${error.details}\n`);
	else if (!(error instanceof E2eError)) process.stderr.write(`${error.stack}\n`);
}

/** Runs one scenario's check and counts it: passed when it resolves, failed when it throws. */
export async function checkScenario(
	tally: Tally,
	name: string,
	check: () => Promise<void>,
): Promise<void> {
	try {
		await check();
		tally.passed += 1;
		log(`PASS ${name}`);
	} catch (error) {
		tally.failed += 1;
		reportFailure(name, error);
	}
}
