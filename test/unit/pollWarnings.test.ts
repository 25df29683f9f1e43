/**
 * The warning a poll logs when a page of records sharing one time was stepped past: it names
 * every such time the poll's reading covered.
 */
import type { IPollFunctions } from 'n8n-workflow';

import { reportPoll } from '../../nodes/CommsAccount/trigger/pollWarnings';

const nouns = { records: 'SMS', time: 'sent time' };

function warned(steppedPast: number[]): string[] {
	const lines: string[] = [];
	const logger = { warn: (line: string) => lines.push(line), info: () => undefined };
	reportPoll(
		{ logger } as unknown as IPollFunctions,
		{
			pages: 2,
			shortfall: 'sameSentAt',
			newMayBeHidden: true,
			steppedPast,
			undated: 0,
		},
		nouns,
	);
	return lines;
}

describe('the warning for records sharing one time', () => {
	it('names the one time, or each of several', () => {
		const one = Date.parse('2026-03-01T09:00:01.000Z');
		const two = Date.parse('2026-03-01T09:00:02.000Z');
		expect(warned([one])).toEqual([
			expect.stringContaining('share one sent time (2026-03-01T09:00:01.000Z): '),
		]);
		expect(warned([one, two])).toEqual([
			expect.stringContaining(
				'share one sent time at each of 2026-03-01T09:00:01.000Z, 2026-03-01T09:00:02.000Z: the API cannot page past them, so one page at each was read',
			),
		]);
	});
});
