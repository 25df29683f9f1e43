/**
 * The API's clock as the nodes learn it (nodes/shared/transport/serverClock.ts): only from the
 * times on the API's records, never from a Date header; both directions, with their uncertainty;
 * and the windows sized from it. Against a model of an API whose clock is off n8n's by any amount,
 * stamping records in whole seconds or to the millisecond, a moment after a request arrives.
 */
import fc from 'fast-check';

import { matchSentSms } from '../../nodes/CommsAccount/api/recoveryMatching';
import { accountCreatedIds, accountRecordTimes } from '../../nodes/CommsAccount/api/accountApi';
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
		clocks.readRecords(SCOPE, [{ ids: ['sms:SM1', 'sms:rec1'], atMs: T0 - 1_200 + 100 }]);
		const bounds = clocks.bounds(SCOPE, T0 + 5_000);
		expect(bounds.lowMs).toBe(-1_200 + 100 - 300);
		expect(bounds.highMs).toBe(-1_200 + 100);
		// Which record is a send's own is told by it; where to read from is not narrowed by it.
		expect(madeAfterApiTime(T0 + 10_000, bounds)).toBe(T0 + 10_000 - 1_100 - SAME_MOMENT_MS);
		expect(earliestApiTime(T0 + 10_000, bounds)).toBe(
			T0 + 10_000 - UNMEASURED_SKEW_MS - SAME_MOMENT_MS,
		);
		expect(apiNowEstimate(T0 + 10_000, bounds)).toBe(T0 + 10_000 - 1_100);
	});

	it('records the node did not make show nothing of the clock: the newest one may have been stamped before the clock stepped back, or by another server', () => {
		const clocks = new ApiClocks();
		// Measured 8 s behind by a record the node made.
		clocks.madeRecord(SCOPE, ['sms:mine'], T0, T0 + 200);
		clocks.readRecords(SCOPE, [{ ids: ['sms:mine'], atMs: T0 - 8_000 + 100 }]);
		const measured = clocks.bounds(SCOPE, T0 + 300);
		expect(measured).toEqual({ lowMs: -8_000 + 100 - 200, highMs: -8_000 + 100 });
		// Then a read whose records were stamped while the clock was 3 s ahead, or by a server 3 s
		// ahead: the bounds stay, and where to read from stays as wide as any clock may be off.
		clocks.readRecords(SCOPE, [{ ids: ['sms:a'], atMs: T0 + 3_000 }]);
		expect(clocks.bounds(SCOPE, T0 + 1_000)).toEqual(measured);
		expect(earliestApiTime(T0 + 1_000, measured)).toBe(
			T0 + 1_000 - UNMEASURED_SKEW_MS - SAME_MOMENT_MS,
		);
	});

	it('measured further behind than any clock is taken to be off: where to read from reaches that far back', () => {
		const clocks = new ApiClocks();
		clocks.madeRecord(SCOPE, ['sms:mine'], T0, T0 + 200);
		clocks.readRecords(SCOPE, [{ ids: ['sms:mine'], atMs: T0 - 90_000 }]);
		const bounds = clocks.bounds(SCOPE, T0 + 300);
		expect(earliestApiTime(T0 + 1_000, bounds)).toBe(
			T0 + 1_000 + (bounds.lowMs as number) - SAME_MOMENT_MS,
		);
		expect(bounds.lowMs).toBeLessThan(-90_000);
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

	it('what a record shows is dated by when it was made: one made before the clock stepped back, read back after one made since, does not undo it', () => {
		const clocks = new ApiClocks();
		// Made while the API's clock was 3 s ahead, and another once it had stepped back to 8 s behind.
		clocks.madeRecord(SCOPE, ['sms:before'], T0, T0 + 200);
		clocks.madeRecord(SCOPE, ['sms:after'], T0 + 10_000, T0 + 10_200);
		// One read returns both, the later first.
		clocks.readRecords(SCOPE, [
			{ ids: ['sms:after'], atMs: T0 + 10_100 - 8_000 },
			{ ids: ['sms:before'], atMs: T0 + 100 + 3_000 },
		]);
		expect(clocks.bounds(SCOPE, T0 + 11_000)).toEqual({ lowMs: -8_100, highMs: -7_900 });
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
 * A process that made requests and read records back, against an API that stamps a record
 * `stampAt` of the way through the request (`stamp` gives the time it writes for an instant of
 * n8n's clock, at each step of the history: its clock may change between steps). Returns n8n's
 * clock when it is done.
 */
function learnFrom(
	clocks: ApiClocks,
	stamp: (wallMs: number, step: number) => number,
	history: Array<{ kind: 'made' | 'read'; durationMs: number; stampAt: number; gapMs: number }>,
	startMs: number,
): number {
	let now = startMs;
	history.forEach((step, index) => {
		const sent = now;
		const received = now + step.durationMs;
		const at = stamp(sent + step.stampAt * step.durationMs, index);
		if (step.kind === 'made') {
			const id = `sms:m${index}`;
			clocks.madeRecord(SCOPE, [id], sent, received);
			// Read back a little later.
			now = received + step.gapMs;
			clocks.readRecords(SCOPE, [{ ids: [id], atMs: at }]);
		} else {
			// A read of a record someone else made (it shows nothing of the clock).
			clocks.readRecords(SCOPE, [{ ids: [`sms:r${index}`], atMs: at }]);
			now = received + step.gapMs;
		}
	});
	return now;
}

/** A clock `offsetMs` off n8n's, writing times to the millisecond or in whole seconds. */
const clockOf = (offsetMs: number, wholeSeconds: boolean) => (wallMs: number) => {
	const api = wallMs + offsetMs;
	return wholeSeconds ? Math.floor(api / 1000) * 1000 : api;
};

/** The same, for an API with one clock `offsetMs` off n8n's. */
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
	return learnFrom(clocks, clockOf(offsetMs, wholeSeconds), history, startMs);
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
					clocks.readRecords(SCOPE, [{ ids: ['sms:mine'], atMs: stamp(T0 + madeMs / 2) }]);
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

/**
 * An API whose clock is not one clock: it steps (an NTP correction, a restart), back or forward,
 * between any two requests, or its servers behind one address have clocks of their own and answer
 * in turn. Each request of the history, the send and an identical SMS made before it are stamped
 * by one of `offsets` (drawn per request: a clock that stepped, or whichever server answered).
 * What the look-up decides, from what the history showed of the clock, against a page that holds
 * the send's own record or not, and an identical earlier one or not.
 */
describe('the look-up, against an API whose clock steps or whose servers disagree', () => {
	const sms = { phoneDocId: 'pd_main', to: '+447700900123', message: 'See you at 3' };
	const recordOf = (id: string, atMs: number) => ({
		id: `rec_${id}`,
		messageId: id,
		direction: 'sent',
		toNumber: sms.to,
		body: sms.message,
		source: 'account-api',
		sentAt: new Date(atMs).toISOString(),
	});
	const offset = fc.integer({ min: -UNMEASURED_SKEW_MS, max: UNMEASURED_SKEW_MS });
	/** Steps of a few seconds either way, as NTP and restarts make them, and now and then any. */
	const offsets = fc.oneof(
		fc
			.tuple(offset, fc.integer({ min: -10_000, max: 10_000 }))
			.map(([first, by]) => [
				first,
				Math.max(-UNMEASURED_SKEW_MS, Math.min(UNMEASURED_SKEW_MS, first + by)),
			]),
		fc.array(offset, { minLength: 1, maxLength: 3 }),
	);

	it("is never absent while the send's own record is there, never takes an identical SMS made before it by more than the clocks disagree, and takes its own once a record the node made since showed the clock", () => {
		fc.assert(
			fc.property(
				offsets,
				fc.boolean(),
				fc.array(fc.tuple(step, fc.nat()), { maxLength: 6 }),
				fc.record({
					clock: fc.nat(),
					durationMs: fc.integer({ min: 1, max: 30_000 }),
					stampAt: fc.double({ min: 0, max: 1, noNaN: true }),
					there: fc.boolean(),
				}),
				fc.option(fc.record({ clock: fc.nat(), beforeMs: fc.integer({ min: 0, max: 200_000 }) }), {
					nil: undefined,
				}),
				(offsets, wholeSeconds, history, own, earlier) => {
					const clocks = new ApiClocks();
					const stampers = offsets.map((o) => clockOf(o, wholeSeconds));
					const by = (clock: number) => stampers[clock % stampers.length];
					const sent = learnFrom(
						clocks,
						(wallMs, index) => by(history[index][1])(wallMs),
						history.map(([h]) => h),
						T0,
					);
					const ownAt = by(own.clock)(sent + own.stampAt * own.durationMs);
					const earlierAt = earlier && by(earlier.clock)(sent - earlier.beforeMs);
					const page = {
						messages: [
							...(own.there ? [recordOf('SMown', ownAt)] : []),
							...(earlierAt === undefined ? [] : [recordOf('SMearlier', earlierAt)]),
						],
					};
					// As recovery.ts builds it: read from where any clock puts the record, told by
					// what was measured once the answer came.
					const bounds = clocks.bounds(SCOPE, sent + own.durationMs);
					const window = {
						sinceMs: earliestApiTime(sent, bounds),
						madeAfterMs: madeAfterApiTime(sent, bounds),
						isClaimed: () => false,
					};
					const result = matchSentSms(page, sms, window, 200);
					const takenId = result.kind === 'found' ? result.result.messageId : undefined;

					// Proof of absence only where nothing matching is anywhere the record could be.
					if (own.there) {
						expect(ownAt).toBeGreaterThanOrEqual(window.sinceMs);
						expect(result.kind).not.toBe('absent');
					}
					if (page.messages.length === 0) expect(result.kind).toBe('absent');

					// An identical SMS made before the send by more than the clocks disagree (between
					// them, and with n8n's where nothing measured how far ahead they are) and the same
					// moment is never taken for it.
					const highest = Math.max(...offsets);
					const lowest = bounds.highMs === undefined ? 0 : Math.min(...offsets);
					if (earlier && earlier.beforeMs > highest - lowest + SAME_MOMENT_MS)
						expect(takenId).not.toBe('SMearlier');

					// Once a record the node made on the clock the send's record carries has been read
					// back, after every other measurement, the send's own is taken (when that request was
					// quick: within the same moment, less the stamps' resolution twice).
					const made = history.filter(([h]) => h.kind === 'made');
					const last = made.at(-1);
					if (
						own.there &&
						last &&
						last[1] % offsets.length === own.clock % offsets.length &&
						last[0].durationMs + (wholeSeconds ? 2_000 : 0) <= SAME_MOMENT_MS &&
						(earlier === undefined || earlier.beforeMs > highest - lowest + SAME_MOMENT_MS)
					)
						expect(takenId).toBe('SMown');
				},
			),
			{ numRuns: 3_000 },
		);
	});
});
