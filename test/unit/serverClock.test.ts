/**
 * The API's clock as the nodes learn it (nodes/shared/transport/serverClock.ts): only from the
 * times on the API's records, never from a Date header; both directions, with their uncertainty;
 * and the windows sized from it. Against a model of an API whose clock is off n8n's by any amount,
 * stamping records in whole seconds or to the millisecond, a moment after a request arrives.
 */
import fc from 'fast-check';

import { accountCreatedIds, accountRecordTimes } from '../../nodes/shared/transport/accountApi';
import {
	ApiClocks,
	apiNowEstimate,
	earliestApiTime,
	EVIDENCE_MAX_AGE_MS,
	madeAfterApiTime,
	SAME_MOMENT_MS,
	UNMEASURED_SKEW_MS,
} from '../../nodes/shared/transport/serverClock';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const SCOPE = 'account:test';

describe('what the API shows of its clock', () => {
	it("nothing measured: every window is as wide as any clock may be off, and now is taken as n8n's", () => {
		const clocks = new ApiClocks();
		const bounds = clocks.bounds(SCOPE, T0);
		expect(bounds).toEqual({ lowMs: undefined, highMs: undefined });
		expect(earliestApiTime(T0, bounds)).toBe(T0 - UNMEASURED_SKEW_MS - SAME_MOMENT_MS);
		expect(madeAfterApiTime(T0, bounds)).toBe(T0 - SAME_MOMENT_MS);
		expect(apiNowEstimate(T0, bounds)).toBe(T0);
	});

	it('a record the node made, read back, bounds the clock both ways; a small offset is never none', () => {
		const clocks = new ApiClocks();
		// Sent at T0, answered at T0 + 300 ms; the API (1.2 s behind) stamped it 100 ms after it arrived.
		clocks.madeRecord(SCOPE, ['sms:SM1'], T0, T0 + 300);
		clocks.readRecords(
			SCOPE,
			[{ ids: ['sms:SM1', 'sms:rec1'], atMs: T0 - 1_200 + 100 }],
			T0 + 5_000,
		);
		const bounds = clocks.bounds(SCOPE, T0 + 5_000);
		expect(bounds.lowMs).toBe(-1_200 + 100 - 300);
		expect(bounds.highMs).toBe(-1_200 + 100);
		expect(earliestApiTime(T0 + 10_000, bounds)).toBe(T0 + 10_000 - 1_400 - SAME_MOMENT_MS);
		expect(apiNowEstimate(T0 + 10_000, bounds)).toBe(T0 + 10_000 - 1_100);
	});

	it("the newest record of a read bounds it from below only, and never says the API's clock is ahead", () => {
		const clocks = new ApiClocks();
		clocks.readRecords(SCOPE, [{ ids: ['sms:a'], atMs: T0 - 3_000 }], T0);
		expect(clocks.bounds(SCOPE, T0)).toEqual({ lowMs: -3_000, highMs: undefined });
		// A record dated ahead of n8n's clock (a misdated one, or a clock ahead): at most "not behind".
		clocks.readRecords(SCOPE, [{ ids: ['sms:b'], atMs: T0 + 45_000 }], T0 + 1_000);
		expect(clocks.bounds(SCOPE, T0 + 1_000)).toEqual({ lowMs: 0, highMs: undefined });
	});

	it('newer evidence wins over older evidence it contradicts (the clock was set again), and evidence ages out', () => {
		const clocks = new ApiClocks();
		clocks.observe(SCOPE, 3_599_900, 3_600_000, T0);
		clocks.observe(SCOPE, -Infinity, 3_600_050, T0 + 100);
		expect(clocks.bounds(SCOPE, T0 + 200)).toEqual({ lowMs: 3_599_900, highMs: 3_600_000 });
		clocks.observe(SCOPE, -50, 50, T0 + 1_200);
		expect(clocks.bounds(SCOPE, T0 + 1_200)).toEqual({ lowMs: -50, highMs: 50 });
		expect(clocks.bounds(SCOPE, T0 + 1_200 + EVIDENCE_MAX_AGE_MS + 1)).toEqual({
			lowMs: undefined,
			highMs: undefined,
		});
		// Per key and address.
		expect(clocks.bounds('account:other', T0 + 1_200).lowMs).toBeUndefined();
	});

	it('reads the times the Account API wrote on its records, and the record a write made', () => {
		expect(
			accountRecordTimes({
				messages: [
					{ id: 'sms_1', messageId: 'SM1', sentAt: new Date(T0).toISOString() },
					{ id: 'sms_2', createdAt: new Date(T0 + 1).toISOString() },
					{ id: 'sms_3', sentAt: 'garbled' },
					null,
				],
				calls: [{ id: 'call_1', callSid: 'CA1', createdAt: new Date(T0 + 2).toISOString() }],
			}),
		).toEqual([
			{ ids: ['sms:SM1', 'sms:sms_1'], atMs: T0 },
			{ ids: ['sms:sms_2'], atMs: T0 + 1 },
			{ ids: ['sms:sms_3'], atMs: NaN },
			{ ids: ['call:CA1', 'call:call_1'], atMs: T0 + 2 },
		]);
		expect(accountCreatedIds({ success: true, messageId: 'SM1', status: 'sent' })).toEqual([
			'sms:SM1',
		]);
		expect(accountCreatedIds({ success: true, callId: 'call_1', callSid: 'CA1' })).toEqual([
			'call:call_1',
			'call:CA1',
		]);
	});
});

/**
 * A process that made requests and read records back, against an API whose clock is `offsetMs`
 * off n8n's and stamps a record `stampDelayMs` after the request arrives (in whole seconds when
 * `wholeSeconds`). Returns the knowledge it ends with.
 */
function learn(
	clocks: ApiClocks,
	{
		offsetMs,
		wholeSeconds,
		history,
	}: {
		offsetMs: number;
		wholeSeconds: boolean;
		history: Array<{ kind: 'made' | 'read'; durationMs: number; stampAt: number; gapMs: number }>;
	},
	startMs: number,
): number {
	const stamp = (wallMs: number) => {
		const api = wallMs + offsetMs;
		return wholeSeconds ? Math.floor(api / 1000) * 1000 : api;
	};
	let now = startMs;
	let serial = 0;
	for (const step of history) {
		const sent = now;
		const received = now + step.durationMs;
		const at = stamp(sent + step.stampAt * step.durationMs);
		if (step.kind === 'made') {
			const id = `sms:m${serial++}`;
			clocks.madeRecord(SCOPE, [id], sent, received);
			// Read back a little later.
			now = received + step.gapMs;
			clocks.readRecords(SCOPE, [{ ids: [id], atMs: at }], now);
		} else {
			// A read whose newest record was stamped before the answer left the API.
			clocks.readRecords(SCOPE, [{ ids: [`sms:r${serial++}`], atMs: at }], received);
			now = received + step.gapMs;
		}
	}
	return now;
}

const step = fc.record({
	kind: fc.constantFrom<'made' | 'read'>('made', 'read'),
	durationMs: fc.integer({ min: 1, max: 5_000 }),
	stampAt: fc.double({ min: 0, max: 1, noNaN: true }),
	gapMs: fc.integer({ min: 0, max: 120_000 }),
});

describe('the windows, against an API whose clock is off by any amount', () => {
	it("a look-up's since never misses the request's own record, and a Skip If Sent window never misses an SMS of the window", () => {
		fc.assert(
			fc.property(
				fc.integer({ min: -UNMEASURED_SKEW_MS, max: UNMEASURED_SKEW_MS }),
				fc.boolean(),
				fc.array(step, { maxLength: 6 }),
				fc.integer({ min: 1, max: 30_000 }),
				fc.double({ min: 0, max: 1, noNaN: true }),
				(offsetMs, wholeSeconds, history, durationMs, stampAt) => {
					const clocks = new ApiClocks();
					const sent = learn(clocks, { offsetMs, wholeSeconds, history }, T0);
					const bounds = clocks.bounds(SCOPE, sent);
					const api = sent + stampAt * durationMs + offsetMs;
					const recordAt = wholeSeconds ? Math.floor(api / 1000) * 1000 : api;
					expect(earliestApiTime(sent, bounds)).toBeLessThanOrEqual(recordAt);
					// Now, as the trigger keeps it, is within the unmeasured skew of the API's (or closer).
					expect(
						Math.abs(apiNowEstimate(sent + durationMs, bounds) - (sent + durationMs + offsetMs)),
					).toBeLessThanOrEqual(Math.abs(offsetMs));
				},
			),
			{ numRuns: 2_000 },
		);
	});

	it("measured by a record the node made, any offset: the own record is never missed, and an identical one made before the request (by more than the same moment, and the stamps' resolution) is never taken for it", () => {
		fc.assert(
			fc.property(
				fc.integer({ min: -86_400_000, max: 86_400_000 }),
				fc.boolean(),
				fc.array(step, { maxLength: 4 }),
				fc.integer({ min: 1, max: 3_000 }),
				fc.integer({ min: 1, max: 30_000 }),
				fc.double({ min: 0, max: 1, noNaN: true }),
				fc.integer({ min: 1, max: 600_000 }),
				(offsetMs, wholeSeconds, history, madeMs, durationMs, stampAt, extraMs) => {
					// More than the same moment before, on record times written to the millisecond or
					// in whole seconds (which can be up to a second early).
					const earlierByMs = SAME_MOMENT_MS + (wholeSeconds ? 1_000 : 0) + extraMs;
					const clocks = new ApiClocks();
					const stamp = (wallMs: number) => {
						const api = wallMs + offsetMs;
						return wholeSeconds ? Math.floor(api / 1000) * 1000 : api;
					};
					// One record the node made, read back.
					clocks.madeRecord(SCOPE, ['sms:mine'], T0, T0 + madeMs);
					clocks.readRecords(
						SCOPE,
						[{ ids: ['sms:mine'], atMs: stamp(T0 + madeMs / 2) }],
						T0 + madeMs,
					);
					const sent = learn(clocks, { offsetMs, wholeSeconds, history }, T0 + madeMs);
					const bounds = clocks.bounds(SCOPE, sent);
					const own = stamp(sent + stampAt * durationMs);
					const earlier = stamp(sent - earlierByMs);
					expect(earliestApiTime(sent, bounds)).toBeLessThanOrEqual(own);
					expect(earlier).toBeLessThan(madeAfterApiTime(sent, bounds));
					// And it is told for this request's own (not left undecided) when the requests that
					// measured the clock were quick: within the same moment, less twice the stamps'
					// resolution (the own record's time, and the measurement's, each up to it early).
					const slowest = Math.max(
						madeMs,
						...history.filter((h) => h.kind === 'made').map((h) => h.durationMs),
					);
					if (slowest + (wholeSeconds ? 2_000 : 0) <= SAME_MOMENT_MS)
						expect(madeAfterApiTime(sent, bounds)).toBeLessThanOrEqual(own);
				},
			),
			{ numRuns: 2_000 },
		);
	});
});
