/**
 * The inbound-SMS cursor against a model of GET /v1/sms, over random arrival schedules:
 * bursts larger than a page (over 1,000 at the real page size), many messages sharing one
 * sentAt, late arrivals inside the look-back window, both orders the sandbox offers, random
 * page sizes, a page failing at a random point, restarts from the saved state, and polls cut
 * short by their time budget.
 *
 * The model is the API as the sandbox implements it (test/support/smsHistory.ts).
 *
 * Every poll goes through `runPoll`, the loop the node itself runs, with the state saved as
 * JSON between polls (as n8n stores static data) and left as it was when a page fails.
 *
 * Properties:
 * - never twice, never history, never anything that did not arrive; each poll oldest first;
 * - complete (every message that arrived is emitted) whenever no page ran into a documented
 *   limit: oldest first with fewer than a page sharing one sentAt, always; newest first, when
 *   no request matched a page or more;
 * - no silent loss: a message that is never emitted was out of reach of a full page, and the
 *   poll said so; if it was newer than the cursor, the poll warned that new messages may have
 *   been skipped.
 */
import fc from 'fast-check';

import {
	baseline,
	type CursorSettings,
	parseState,
	type SmsOrder,
} from '../../nodes/CommsAccount/trigger/cursorState';
import { type PollResult, runPoll } from '../../nodes/CommsAccount/trigger/historyCursor';
import { replay } from '../support/replay';
import { SmsHistory, type StoredSms } from '../support/smsHistory';

const T0 = Date.parse('2026-03-01T09:00:00.000Z');
const SECOND = 1000;

type Step =
	| { kind: 'arrive'; count: number; lateBy: number; spread: number }
	| { kind: 'tick'; seconds: number }
	| { kind: 'poll'; budgetPages?: number; failAt?: number }
	| { kind: 'restart' }
	/** The Late Arrival Window changed between polls (an option change). */
	| { kind: 'window'; seconds: number }
	/** The caller's clock off the server's by up to the same moment (the trigger's now is n8n's clock where nothing measured the API's). */
	| { kind: 'skew'; ms: number };

interface Scenario {
	order: SmsOrder;
	pageSize: number;
	lookBackSeconds: number;
	includeLastSeconds: number;
	history: number;
	steps: Step[];
	maxSeen: number;
}

interface PollRecord {
	startCursor: number;
	arrivedBefore: number;
	polled: PollResult;
}

interface RunResult {
	api: SmsHistory;
	emitted: string[];
	polls: PollRecord[];
	baselineMs: number;
	/** How often the server's order was asked for. */
	probes: number;
}

/** Runs a scenario; the trigger's state lives only as the JSON n8n would store. */
async function run(scenario: Scenario): Promise<RunResult> {
	const api = new SmsHistory(scenario.order);
	const settings: CursorSettings = {
		lookBackMs: scenario.lookBackSeconds * SECOND,
		pageSize: scenario.pageSize,
		maxSeen: scenario.maxSeen,
	};
	let now = T0;
	// History: sent before the trigger was activated, more than includeLast ago.
	api.add(
		...Array.from(
			{ length: scenario.history },
			(_, i) => now - (scenario.includeLastSeconds + 1) * SECOND - i * 7,
		),
	);
	let stored: string | undefined;
	let probes = 0;
	let lookBackMs = settings.lookBackMs;
	// Late arrivals within the narrowest window the scenario ever uses: a narrower window
	// between an arrival and the poll that reads it is a documented loss.
	const narrowestMs = Math.min(
		lookBackMs,
		...scenario.steps.flatMap((step) => (step.kind === 'window' ? [step.seconds * SECOND] : [])),
	);
	let skewMs = 0;
	const emitted: string[] = [];
	const polls: PollRecord[] = [];
	const baselineMs = now - scenario.includeLastSeconds * SECOND;

	const poll = async (budgetPages?: number, failAt?: number) => {
		const state =
			stored === undefined
				? baseline(now - scenario.includeLastSeconds * SECOND)
				: parseState(JSON.parse(stored));
		if (!state) throw new Error('the stored state did not parse');
		if (failAt !== undefined) api.failAfter(failAt);
		const before = stored;
		let pagesRead = 0;
		try {
			const polled = await runPoll(
				state,
				async (request) => {
					const page = await api.fetch(request);
					pagesRead++;
					return page;
				},
				{
					settings: { ...settings, lookBackMs },
					now: () => now + skewMs,
					keepReading: () => budgetPages === undefined || pagesRead < budgetPages,
					probeOrder: async () => {
						probes++;
						return scenario.order;
					},
				},
			);
			stored = JSON.stringify(polled.state);
			for (const record of polled.emit) emitted.push(String(record.id));
			polls.push({ startCursor: state.cursor, arrivedBefore: api.messages.length, polled });
			return polled;
		} catch (error) {
			// A failed page: nothing of this poll counts, the stored state is untouched.
			expect(stored).toBe(before);
			expect(String(error)).toMatch(/injected failure/);
			return undefined;
		} finally {
			api.failAfter(undefined);
		}
	};

	await poll(); // activation: the baseline
	for (const step of scenario.steps) {
		if (step.kind === 'tick') now += step.seconds * SECOND;
		else if (step.kind === 'restart')
			stored = stored === undefined ? undefined : JSON.stringify(JSON.parse(stored));
		else if (step.kind === 'poll') await poll(step.budgetPages, step.failAt);
		else if (step.kind === 'window') lookBackMs = step.seconds * SECOND;
		else if (step.kind === 'skew') skewMs = step.ms;
		else {
			// Late by up to the look-back window, spread over at most that much (0: one sentAt).
			const lateBy = Math.min(step.lateBy * SECOND, narrowestMs);
			const spread = Math.min(step.spread * SECOND, lateBy);
			const start = now - lateBy;
			api.add(
				...Array.from(
					{ length: step.count },
					(_, i) => start + (step.count > 1 ? Math.floor((i * spread) / (step.count - 1)) : 0),
				),
			);
		}
	}
	// Then the trigger keeps polling, undisturbed, until a poll finds nothing.
	// A poll that read on from where the last one stopped (`resume`) has not read the window yet.
	for (let i = 0; i < 200; i++) {
		now += 30 * SECOND;
		const resumed = stored !== undefined && JSON.parse(stored).resume !== undefined;
		const polled = await poll();
		if (polled && polled.emit.length === 0 && !polled.stopped && !resumed) break;
	}
	return { api, emitted, polls, baselineMs, probes };
}

function sentAtOf(api: SmsHistory): Map<string, StoredSms> {
	return new Map(api.messages.map((m) => [m.id, m]));
}

/** The properties every run has. Returns the messages never emitted. */
function checkAlways({ api, emitted, polls, baselineMs, probes }: RunResult): StoredSms[] {
	const byId = sentAtOf(api);
	// Sent before the trigger's start (its baseline) is history, whenever it was stored.
	const history = (m: StoredSms | undefined) => !m || m.sentAt < baselineMs;
	// Never twice, never anything that did not arrive, never history.
	expect(new Set(emitted).size).toBe(emitted.length);
	for (const id of emitted) {
		expect(byId.has(id)).toBe(true);
		expect(history(byId.get(id))).toBe(false);
	}
	// Each poll: oldest first, and messages sharing a sentAt in the order they were stored.
	for (const { polled } of polls) {
		const emittedNow = polled.emit.map((r) => byId.get(String(r.id)) as StoredSms);
		for (let i = 1; i < emittedNow.length; i++) {
			expect(emittedNow[i].sentAt).toBeGreaterThanOrEqual(emittedNow[i - 1].sentAt);
			if (emittedNow[i].sentAt === emittedNow[i - 1].sentAt)
				expect(emittedNow[i].seq).toBeGreaterThan(emittedNow[i - 1].seq);
		}
	}
	// The order is asked for at most once a poll (the server may change it between polls).
	expect(probes).toBeLessThanOrEqual(polls.length);
	const done = new Set(emitted);
	const lost = api.messages.filter((m) => !history(m) && !done.has(m.id));
	// No silent loss: a lost message was out of reach of a full page, and a poll said so;
	// if it was newer than the cursor when it came, a poll warned of skipped new messages.
	for (const m of lost) {
		const after = polls.filter((p) => p.arrivedBefore > m.seq);
		// More than a page at one sentAt is said once, when a poll first finds the group overflow.
		const groupOverflowSaid = polls.some(
			(p) => p.polled.steppedPast?.includes(m.sentAt) && p.polled.newMayBeHidden,
		);
		expect(groupOverflowSaid || after.some((p) => p.polled.shortfall !== undefined)).toBe(true);
		if (after.length > 0 && m.sentAt >= after[0].startCursor && !groupOverflowSaid)
			expect(after.some((p) => p.polled.newMayBeHidden)).toBe(true);
	}
	return lost;
}

const arrive = (maxCount: number) =>
	fc.record({
		kind: fc.constant('arrive' as const),
		count: fc.integer({ min: 1, max: maxCount }),
		lateBy: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 12 })),
		spread: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 12 })),
	});
const tick = fc.record({
	kind: fc.constant('tick' as const),
	seconds: fc.integer({ min: 0, max: 90 }),
});
const poll = fc.record(
	{
		kind: fc.constant('poll' as const),
		budgetPages: fc.integer({ min: 1, max: 4 }),
		failAt: fc.integer({ min: 0, max: 5 }),
	},
	{ requiredKeys: ['kind'] },
);
const restart = fc.constant({ kind: 'restart' as const });
const windowChange = fc.record({
	kind: fc.constant('window' as const),
	seconds: fc.integer({ min: 0, max: 10 }),
});
const skew = fc.record({
	kind: fc.constant('skew' as const),
	ms: fc.integer({ min: -2000, max: 2000 }),
});

function scenarios({
	order,
	pageSizes,
	maxBurst,
	maxSeen = 1_000_000,
	steps = 25,
}: {
	order?: SmsOrder;
	pageSizes: fc.Arbitrary<number>;
	maxBurst: number;
	maxSeen?: number;
	steps?: number;
}) {
	return fc.record({
		order: order ? fc.constant(order) : fc.constantFrom<SmsOrder>('oldestFirst', 'newestFirst'),
		pageSize: pageSizes,
		lookBackSeconds: fc.integer({ min: 0, max: 10 }),
		includeLastSeconds: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 120 })),
		history: fc.integer({ min: 0, max: 30 }),
		steps: fc.array(
			fc.oneof(
				{ weight: 4, arbitrary: arrive(maxBurst) },
				{ weight: 3, arbitrary: tick },
				{ weight: 4, arbitrary: poll },
				{ weight: 1, arbitrary: restart },
				{ weight: 1, arbitrary: windowChange },
				{ weight: 1, arbitrary: skew },
			),
			{ maxLength: steps },
		),
		maxSeen: fc.constant(maxSeen),
	});
}

/** The largest number of messages sharing one sentAt. */
function largestSameSentAt(api: SmsHistory): number {
	const counts = new Map<number, number>();
	for (const m of api.messages) counts.set(m.sentAt, (counts.get(m.sentAt) ?? 0) + 1);
	return Math.max(0, ...counts.values());
}

describe('the SMS cursor against a model of the API', () => {
	it('never emits a message twice, nor history, and never loses one silently (both orders, small random pages)', async () => {
		await fc.assert(
			fc.asyncProperty(
				scenarios({ pageSizes: fc.integer({ min: 2, max: 12 }), maxBurst: 40 }),
				async (scenario) => {
					checkAlways(await run(scenario));
				},
			),
			replay(1500),
		);
	});

	it('results oldest first: every message arrives exactly once when fewer than a page share one sentAt', async () => {
		await fc.assert(
			fc.asyncProperty(
				scenarios({
					order: 'oldestFirst',
					pageSizes: fc.integer({ min: 2, max: 12 }),
					maxBurst: 40,
				}),
				async (scenario) => {
					const result = await run(scenario);
					const lost = checkAlways(result);
					if (largestSameSentAt(result.api) < scenario.pageSize) {
						expect(lost).toEqual([]);
						expect(result.polls.filter((p) => p.polled.shortfall)).toEqual([]);
					}
				},
			),
			replay(1500),
		);
	});

	it('results newest first: every message arrives exactly once when no request matches a page or more', async () => {
		await fc.assert(
			fc.asyncProperty(
				scenarios({
					order: 'newestFirst',
					pageSizes: fc.integer({ min: 2, max: 60 }),
					maxBurst: 12,
				}),
				async (scenario) => {
					const result = await run(scenario);
					const lost = checkAlways(result);
					if (result.api.overfull === 0) expect(lost).toEqual([]);
				},
			),
			replay(1500),
		);
	});

	it('at the real page size: bursts over 1,000, oldest first, drained in one poll (ceil(N/200) + 1 requests with distinct sentAt)', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.integer({ min: 1001, max: 3000 }),
				fc.integer({ min: 0, max: 150 }),
				fc.boolean(),
				async (count, sameSentAt, spreadOut) => {
					const api = new SmsHistory('oldestFirst');
					const settings: CursorSettings = {
						lookBackMs: 5 * 60 * SECOND,
						pageSize: 200,
						maxSeen: 5000,
					};
					let state = baseline(T0);
					const first = await runPoll(state, (r) => api.fetch(r), { settings, now: () => T0 });
					state = first.state;
					// `count` messages over a minute; a group of `sameSentAt` share the first sentAt.
					const now = T0 + 120 * SECOND;
					api.add(
						...Array.from({ length: count }, (_, i) =>
							i < sameSentAt
								? T0 + SECOND
								: T0 + SECOND + (spreadOut ? i * 40 : Math.floor(i / 150)),
						),
					);
					const before = api.requests.length;
					const polled = await runPoll(
						parseState(JSON.parse(JSON.stringify(state))) as typeof state,
						(r) => api.fetch(r),
						{ settings, now: () => now },
					);
					expect(polled.emit.map((r) => r.id)).toEqual(api.messages.map((m) => m.id));
					expect(polled.shortfall).toBeUndefined();
					// Each page after the first re-reads the messages at its inclusive `since`; with distinct
					// sentAt that is one, and the cost stays within ceil(N/200) + 1.
					if (spreadOut)
						expect(api.requests.length - before).toBeLessThanOrEqual(Math.ceil(count / 200) + 1);
				},
			),
			replay(25),
		);
	});

	it('at the real page size, newest first: a burst over a page yields the newest 200, each once, and says new messages were out of reach', async () => {
		const api = new SmsHistory('newestFirst');
		const settings: CursorSettings = { lookBackMs: 5 * 60 * SECOND, pageSize: 200, maxSeen: 5000 };
		const state = (await runPoll(baseline(T0), (r) => api.fetch(r), { settings, now: () => T0 }))
			.state;
		const now = T0 + 60 * SECOND;
		api.add(...Array.from({ length: 1000 }, (_, i) => T0 + i * 10));
		const before = api.requests.length;
		const polled = await runPoll(state, (r) => api.fetch(r), { settings, now: () => now });
		expect(polled.emit.map((r) => r.id)).toEqual(api.messages.slice(800).map((m) => m.id));
		expect(polled).toMatchObject({ shortfall: 'newestFirstFull', newMayBeHidden: true });
		expect(api.requests.length - before).toBe(1);
	});

	it('with few ids remembered, still never twice (the floor rises past dropped ids)', async () => {
		await fc.assert(
			fc.asyncProperty(
				scenarios({ pageSizes: fc.integer({ min: 2, max: 12 }), maxBurst: 30, maxSeen: 8 }),
				async (scenario) => {
					const result = await run(scenario);
					expect(new Set(result.emitted).size).toBe(result.emitted.length);
					for (const { polled } of result.polls)
						expect(polled.state.seen.length).toBeLessThanOrEqual(8);
				},
			),
			replay(800),
		);
	});
});
