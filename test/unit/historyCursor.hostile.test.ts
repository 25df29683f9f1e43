/**
 * The inbound-SMS cursor against careless and hostile servers (issue 23, items 1-3; issue 21,
 * item 3): future-dated messages, records older than the `since` asked for, entries that are
 * not records, the same records again on the next page, and a Late Arrival Window widened
 * between polls. Each case first as the defect was reproduced, then a property test that
 * feeds generated hostile pages to `runPoll` and checks the emitted ids against a simple
 * model: each genuine message once, nothing from before the start, nothing twice, and the
 * stored state never past the clock.
 */
import fc from 'fast-check';

import {
	baseline,
	CLOCK_PRECISION_MS,
	type CursorSettings,
	type CursorState,
	FUTURE_TOLERANCE_MS,
	parseState,
} from '../../nodes/CommsAccount/trigger/cursorState';
import { type PageRequest } from '../../nodes/CommsAccount/trigger/pageReading';
import { runPoll } from '../../nodes/CommsAccount/trigger/historyCursor';
import type { SmsPage } from '../../nodes/CommsAccount/api/smsPaging';

const T0 = Date.parse('2026-03-01T09:00:00.000Z');
const SECOND = 1000;
const iso = (ms: number) => new Date(ms).toISOString();

const settings = (over: Partial<CursorSettings> = {}): CursorSettings => ({
	lookBackMs: 60 * SECOND,
	pageSize: 200,
	maxSeen: 5000,
	...over,
});

/** Polls once at `now` from the stored JSON; returns the new JSON and the ids emitted. */
async function pollAt(
	stored: string,
	now: number,
	fetch: (request: PageRequest) => Promise<SmsPage>,
	over: Partial<CursorSettings> = {},
) {
	const state = parseState(JSON.parse(stored)) as CursorState;
	const polled = await runPoll(state, fetch, { settings: settings(over), now: () => now });
	return {
		stored: JSON.stringify(polled.state),
		ids: polled.emit.map((r) => r.id),
		polled,
	};
}

describe('future-dated messages (issue 23, item 1)', () => {
	it('more than maxSeen ids dated in the future never move the floor or the cursor past now, and later messages are still emitted', async () => {
		const future = Array.from({ length: 5001 }, (_, i) => ({
			id: `future_${i}`,
			sentAt: '9999-12-30T23:59:55.000Z',
		}));
		let now = T0;
		const messages: Array<{ id: string; sentAt: string }> = [];
		const requests: string[] = [];
		const fetch = async ({ since, limit }: PageRequest): Promise<SmsPage> => {
			requests.push(since);
			const matching = messages
				.filter((m) => Date.parse(m.sentAt) >= Date.parse(since))
				.sort((a, b) => Date.parse(a.sentAt) - Date.parse(b.sentAt));
			// A server that sends the future batch whatever the limit (a careless gateway).
			return { messages: [...matching.slice(0, limit), ...future] };
		};
		let stored = JSON.stringify(baseline(T0));
		let result = await pollAt(stored, now, fetch);
		expect(result.ids).toHaveLength(5001);
		stored = result.stored;
		const state = JSON.parse(stored) as CursorState;
		expect(state.cursor).toBeLessThanOrEqual(now);
		expect(state.floor).toBeLessThanOrEqual(now + CLOCK_PRECISION_MS + 1);
		for (const [, at] of state.seen) expect(at).toBeLessThanOrEqual(now + FUTURE_TOLERANCE_MS);

		for (const step of [1, 2, 3]) {
			now += 60 * SECOND;
			messages.push({ id: `later_${step}`, sentAt: iso(now - SECOND) });
			const first = requests.length;
			result = await pollAt(stored, now, fetch);
			stored = result.stored;
			expect(result.ids).toContain(`later_${step}`);
			// Each poll starts from a since before now.
			expect(Date.parse(requests[first])).toBeLessThanOrEqual(now);
		}
	});

	it('a message dated a little ahead of the clock is emitted once, however often the server returns it', async () => {
		let now = T0;
		const ahead = { id: 'ahead', sentAt: iso(T0 + 10 * 60 * SECOND) };
		const fetch = async ({ since }: PageRequest): Promise<SmsPage> => ({
			messages: Date.parse(ahead.sentAt) >= Date.parse(since) ? [ahead] : [],
		});
		let stored = JSON.stringify(baseline(T0));
		const emitted: unknown[] = [];
		for (let i = 0; i < 20; i++) {
			const result = await pollAt(stored, now, fetch);
			stored = result.stored;
			emitted.push(...result.ids);
			now += 60 * SECOND;
		}
		expect(emitted).toEqual(['ahead']);
	});
});

describe('records older than since (issue 23, item 2)', () => {
	it('a server that ignores since: old records are never emitted, on any poll', async () => {
		const old = [
			{ id: 'old1', sentAt: iso(T0 - 3600 * SECOND) },
			{ id: 'old2', sentAt: iso(T0 - 1800 * SECOND) },
		];
		const fresh: Array<{ id: string; sentAt: string }> = [];
		const fetch = async (): Promise<SmsPage> => ({ messages: [...old, ...fresh] });
		let stored = JSON.stringify(baseline(T0));
		let now = T0;
		const emitted: unknown[][] = [];
		for (let i = 1; i <= 4; i++) {
			now += 60 * SECOND;
			fresh.push({ id: `new${i}`, sentAt: iso(now - SECOND) });
			const result = await pollAt(stored, now, fetch);
			stored = result.stored;
			emitted.push(result.ids);
		}
		expect(emitted).toEqual([['new1'], ['new2'], ['new3'], ['new4']]);
	});
});

describe('entries that are not records (issue 23, item 3)', () => {
	it('null, numbers, strings and arrays are skipped and counted; the records beside them are emitted', async () => {
		const fetch = async (): Promise<SmsPage> => ({
			messages: [
				null,
				{ id: 'a', sentAt: iso(T0 + SECOND) },
				7,
				'x',
				[],
				{ id: 'b', sentAt: iso(T0 + 2 * SECOND) },
			] as unknown as SmsPage['messages'],
		});
		const result = await pollAt(JSON.stringify(baseline(T0)), T0 + 10 * SECOND, fetch);
		expect(result.ids).toEqual(['a', 'b']);
		expect(result.polled.skipped).toBe(4);
		const again = await pollAt(result.stored, T0 + 20 * SECOND, fetch);
		expect(again.ids).toEqual([]);
	});

	it('a page that is not an object at all, or has no messages array, is an empty page', async () => {
		for (const page of [null, {}, { messages: null }, { messages: 'x' }]) {
			const result = await pollAt(
				JSON.stringify(baseline(T0)),
				T0,
				async () => page as unknown as SmsPage,
			);
			expect(result.ids).toEqual([]);
		}
	});
});

describe('widening the Late Arrival Window (issue 21, item 3)', () => {
	it('re-emits nothing that was emitted before, and still finds a late message inside the old window', async () => {
		const messages = [
			{ id: 'm1', sentAt: iso(T0 + 10 * SECOND) },
			{ id: 'm2', sentAt: iso(T0 + 200 * SECOND) },
		];
		const fetch = async ({ since }: PageRequest): Promise<SmsPage> => ({
			messages: messages
				.filter((m) => Date.parse(m.sentAt) >= Date.parse(since))
				.sort((a, b) => Date.parse(a.sentAt) - Date.parse(b.sentAt)),
		});
		let stored = JSON.stringify(baseline(T0));
		let result = await pollAt(stored, T0 + 300 * SECOND, fetch, { lookBackMs: 60 * SECOND });
		expect(result.ids).toEqual(['m1', 'm2']);
		stored = result.stored;
		messages.push({ id: 'late', sentAt: iso(T0 + 180 * SECOND) });
		// The window widened from 1 minute to 60: m1 is 190 s before the cursor.
		result = await pollAt(stored, T0 + 360 * SECOND, fetch, { lookBackMs: 3600 * SECOND });
		expect(result.ids).toEqual(['late']);
	});
});

/**
 * The property: a hostile server over generated histories. Genuine messages arrive with a
 * sentAt at their arrival (or a little before it, inside the window); the server may ignore
 * `since` (sending older records too), repeat a page's records on the next page, mix in
 * entries that are not records, and send future-dated records. The model: every genuine
 * message sent after the start is emitted exactly once; no record from before the start;
 * no id twice; the stored cursor never past now, the floor never past now + 1 ms.
 */
type Hostility = {
	ignoreSince: boolean;
	junk: number;
	repeat: boolean;
	futureEvery: number;
};

interface Step {
	arrive: number;
	lateBy: number;
	tick: number;
	restart: boolean;
}

async function hostileRun(hostility: Hostility, steps: Step[], pageSize: number, history: number) {
	const lookBackMs = 30 * SECOND;
	let now = T0;
	const genuine: Array<{ id: string; sentAt: number; history: boolean }> = [];
	for (let i = 0; i < history; i++)
		genuine.push({ id: `h${i}`, sentAt: T0 - (i + 1) * 5 * SECOND, history: true });
	const future: Array<{ id: string; sentAt: string }> = [];
	let lastPage: Array<Record<string, unknown>> = [];
	const fetch = async ({ since, limit }: PageRequest): Promise<SmsPage> => {
		const sinceMs = Date.parse(since);
		const matching = genuine
			.filter((m) => hostility.ignoreSince || m.sentAt >= sinceMs)
			.sort((a, b) => a.sentAt - b.sentAt || a.id.localeCompare(b.id))
			.slice(0, limit)
			.map((m) => ({ id: m.id, sentAt: iso(m.sentAt) }));
		const page: unknown[] = [...matching];
		if (hostility.repeat) page.push(...lastPage);
		for (let j = 0; j < hostility.junk; j++)
			page.splice(j % (page.length + 1), 0, [null, 0, 'x', []][j % 4]);
		page.push(...future);
		lastPage = matching;
		return { messages: page as SmsPage['messages'] };
	};
	let stored = JSON.stringify(baseline(T0));
	const emitted: string[] = [];
	const poll = async () => {
		const state = parseState(JSON.parse(stored)) as CursorState;
		const polled = await runPoll(state, fetch, {
			settings: { lookBackMs, pageSize, maxSeen: 5000 },
			now: () => now,
		});
		expect(polled.state.cursor).toBeLessThanOrEqual(now);
		expect(polled.state.floor).toBeLessThanOrEqual(now + CLOCK_PRECISION_MS + 1);
		stored = JSON.stringify(polled.state);
		emitted.push(...polled.emit.map((r) => String(r.id)));
	};
	await poll();
	let n = 0;
	for (const step of steps) {
		for (let i = 0; i < step.arrive; i++) {
			const id = `g${n++}`;
			const sentAt = now - Math.min(step.lateBy, 25) * SECOND;
			// Sent before the start (a late arrival at the very beginning): history.
			genuine.push({ id, sentAt, history: sentAt < T0 });
			if (hostility.futureEvery > 0 && n % hostility.futureEvery === 0)
				future.push({ id: `f${n}`, sentAt: iso(now + 3600 * SECOND * (1 + (n % 5000))) });
		}
		now += step.tick * SECOND;
		if (step.restart) stored = JSON.stringify(JSON.parse(stored));
		await poll();
	}
	for (let i = 0; i < 3; i++) {
		now += 20 * SECOND;
		await poll();
	}
	return { emitted, genuine, future };
}

describe('the cursor under generated hostile pages, against a model', () => {
	it('each genuine message once, nothing from before the start, nothing twice, the state never past now', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.record({
					ignoreSince: fc.boolean(),
					junk: fc.integer({ min: 0, max: 4 }),
					repeat: fc.boolean(),
					futureEvery: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5 })),
				}),
				fc.array(
					fc.record({
						arrive: fc.integer({ min: 0, max: 6 }),
						lateBy: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 40 })),
						tick: fc.integer({ min: 0, max: 40 }),
						restart: fc.boolean(),
					}),
					{ maxLength: 12 },
				),
				fc.integer({ min: 0, max: 10 }),
				async (hostility, steps, history) => {
					// Pages large enough for everything the server sends: the shortfalls of a full
					// page are the ordinary property test's subject, not this one's.
					const { emitted, genuine, future } = await hostileRun(hostility, steps, 1000, history);
					expect(new Set(emitted).size).toBe(emitted.length);
					const expected = genuine.filter((m) => !m.history).map((m) => m.id);
					const emittedGenuine = emitted.filter((id) => !id.startsWith('f'));
					expect([...emittedGenuine].sort()).toEqual([...expected].sort());
					for (const id of emitted.filter((id) => id.startsWith('f')))
						expect(future.some((f) => f.id === id)).toBe(true);
				},
			),
			{ numRuns: 400 },
		);
	});
});
