/**
 * The outcome tracker of "Call Ended" and "SMS Delivered" (nodes/CommsAccountTrigger/outcomes.ts),
 * case by case and against a model: each record once when final, a call still in progress
 * after a day emitted with its last status and a flag, more than 200 calls between polls,
 * a wider window, and a careless server (ignoring since, nulls, repeats).
 */
import fc from 'fast-check';

import {
	DEFAULT_OUTCOME_SETTINGS,
	outcomeBaseline,
	outcomeSince,
	type OutcomeState,
	parseOutcomeState,
	trackOutcomes,
} from '../../nodes/CommsAccountTrigger/outcomes';

const T0 = Date.parse('2026-03-01T09:00:00.000Z');
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

interface Call {
	id: string;
	createdAt: number;
	status: string;
}

/** GET /v1/calls: most recent first, created at or after since, at most `limit`. */
function page(calls: Call[], sinceMs: number, limit = 200) {
	return calls
		.filter((c) => c.createdAt >= sinceMs)
		.sort((a, b) => b.createdAt - a.createdAt)
		.slice(0, limit)
		.map((c) => ({ id: c.id, createdAt: iso(c.createdAt), status: c.status }));
}

function poll(state: OutcomeState, calls: Call[], now: number, limit = 200) {
	const since = outcomeSince(state, DEFAULT_OUTCOME_SETTINGS);
	const result = trackOutcomes(state, page(calls, since, limit), now);
	// Stored as JSON, as n8n stores static data.
	const stored = parseOutcomeState(JSON.parse(JSON.stringify(result.state)), 'callEnded');
	expect(stored).toEqual(result.state);
	return { state: stored as OutcomeState, ids: result.emit.map((r) => r.id), emit: result.emit };
}

describe('Call Ended tracking', () => {
	it('emits a call once, when it becomes final, and nothing from before the baseline', () => {
		const calls: Call[] = [{ id: 'old', createdAt: T0 - MINUTE, status: 'completed' }];
		let state = outcomeBaseline('callEnded', T0);
		calls.push({ id: 'a', createdAt: T0 + 1000, status: 'ringing-agent' });
		let r = poll(state, calls, T0 + MINUTE);
		expect(r.ids).toEqual([]);
		state = r.state;
		expect(state.pending.map(([id]) => id)).toEqual(['a']);
		calls[1].status = 'completed';
		r = poll(state, calls, T0 + 2 * MINUTE);
		expect(r.ids).toEqual(['a']);
		r = poll(r.state, calls, T0 + 3 * MINUTE);
		expect(r.ids).toEqual([]);
	});

	it('a status the API does not name is final: emitted, never waited on', () => {
		const calls: Call[] = [{ id: 'x', createdAt: T0 + 1000, status: 'something-new' }];
		expect(poll(outcomeBaseline('callEnded', T0), calls, T0 + MINUTE).ids).toEqual(['x']);
	});

	it('a call still in progress a day later is emitted once with its last status and a flag', () => {
		const calls: Call[] = [{ id: 'stuck', createdAt: T0 + 1000, status: 'in-progress' }];
		let r = poll(outcomeBaseline('callEnded', T0), calls, T0 + MINUTE);
		expect(r.ids).toEqual([]);
		r = poll(r.state, calls, T0 + 24 * 60 * MINUTE + 2000);
		expect(r.emit).toEqual([
			expect.objectContaining({ id: 'stuck', status: 'in-progress', stillInProgress: true }),
		]);
		expect(poll(r.state, calls, T0 + 25 * 60 * MINUTE).ids).toEqual([]);
	});

	it('more than 200 calls between polls: the newest 200 are emitted, each once; the older ones cannot be read (a documented limit)', () => {
		const calls: Call[] = Array.from({ length: 250 }, (_, i) => ({
			id: `c${i}`,
			createdAt: T0 + 1000 + i * 100,
			status: 'completed',
		}));
		const r1 = poll(outcomeBaseline('callEnded', T0), calls, T0 + MINUTE);
		expect(r1.ids).toHaveLength(200);
		expect(r1.ids[0]).toBe('c50');
		// The API gives the most recent 200 and has no cursor: the older 50 stay out of reach.
		const r2 = poll(r1.state, calls, T0 + 2 * MINUTE);
		expect(r2.ids).toEqual([]);
	});

	it('a wider window later re-emits nothing already emitted', () => {
		const calls: Call[] = [{ id: 'a', createdAt: T0 + 1000, status: 'completed' }];
		const r1 = poll(outcomeBaseline('callEnded', T0), calls, T0 + 30 * MINUTE);
		expect(r1.ids).toEqual(['a']);
		calls.push({ id: 'b', createdAt: T0 + 29 * MINUTE, status: 'busy' });
		const wide = { ...DEFAULT_OUTCOME_SETTINGS, lookBackMs: 120 * MINUTE };
		const since = outcomeSince(r1.state, wide);
		const r2 = trackOutcomes(r1.state, page(calls, since), T0 + 31 * MINUTE, wide);
		expect(r2.emit.map((r) => r.id)).toEqual(['b']);
	});

	it('against a model: a careless server (ignores since, nulls, repeats) never makes a call emit twice, and every call that ends is emitted once', () => {
		fc.assert(
			fc.property(
				fc.array(
					fc.record({
						newCalls: fc.integer({ min: 0, max: 4 }),
						finish: fc.array(fc.nat(), { maxLength: 4 }),
						tickSeconds: fc.integer({ min: 1, max: 90 }),
						ignoreSince: fc.boolean(),
						junk: fc.boolean(),
					}),
					{ maxLength: 20 },
				),
				(steps) => {
					const calls: Call[] = [{ id: 'before', createdAt: T0 - 1000, status: 'completed' }];
					let now = T0;
					let state = outcomeBaseline('callEnded', T0);
					const emitted: string[] = [];
					let n = 0;
					const run = (ignoreSince: boolean, junk: boolean) => {
						const since = outcomeSince(state, DEFAULT_OUTCOME_SETTINGS);
						const records: unknown[] = ignoreSince ? page(calls, -Infinity) : page(calls, since);
						if (junk) records.push(null, 3, ...records.slice(0, 2));
						const result = trackOutcomes(state, records, now);
						state = result.state;
						emitted.push(...result.emit.map((r) => String(r.id)));
					};
					for (const step of steps) {
						for (let i = 0; i < step.newCalls; i++)
							calls.push({ id: `c${n++}`, createdAt: now, status: 'ringing-agent' });
						for (const pick of step.finish) {
							const open = calls.filter((c) => c.status === 'ringing-agent');
							if (open.length) open[pick % open.length].status = 'completed';
						}
						now += step.tickSeconds * 1000;
						run(step.ignoreSince, step.junk);
					}
					for (const c of calls) if (c.status === 'ringing-agent') c.status = 'completed';
					now += 1000;
					run(false, false);
					expect(new Set(emitted).size).toBe(emitted.length);
					expect([...emitted].sort()).toEqual(
						calls
							.filter((c) => c.id !== 'before')
							.map((c) => c.id)
							.sort(),
					);
				},
			),
			{ numRuns: 500 },
		);
	});
});

describe('SMS Delivered tracking', () => {
	it('emits a sent SMS once when delivered; a failed one never; other kinds of state are refused', () => {
		let state = outcomeBaseline('smsDelivered', T0);
		const records = [
			{ id: 's1', sentAt: iso(T0 + 1000), status: 'sent' },
			{ id: 's2', sentAt: iso(T0 + 2000), status: 'sent' },
		];
		let r = trackOutcomes(state, records, T0 + MINUTE);
		expect(r.emit).toEqual([]);
		state = r.state;
		records[0].status = 'delivered';
		records[1].status = 'failed';
		r = trackOutcomes(state, records, T0 + 2 * MINUTE);
		expect(r.emit.map((m) => m.id)).toEqual(['s1']);
		r = trackOutcomes(r.state, records, T0 + 3 * MINUTE);
		expect(r.emit).toEqual([]);
		expect(parseOutcomeState(JSON.parse(JSON.stringify(r.state)), 'callEnded')).toBeUndefined();
	});
});
