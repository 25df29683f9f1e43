/**
 * The inbound-SMS cursor, case by case: what each request asks for, what a poll emits and
 * what it stores. The random schedules are in historyCursor.property.test.ts.
 */
import {
	baseline,
	type CursorSettings,
	type CursorState,
	parseState,
} from '../../nodes/CommsAccount/trigger/cursorState';
import {
	beginPoll,
	pageOrder,
	readPage,
	stopPoll,
} from '../../nodes/CommsAccount/trigger/pageReading';
import { endPoll, runPoll } from '../../nodes/CommsAccount/trigger/historyCursor';
import type { SmsRecord } from '../../nodes/CommsAccount/api/smsPaging';
import { SmsHistory } from '../support/smsHistory';

const T0 = Date.parse('2026-03-01T09:00:00.000Z');
const at = (seconds: number) => T0 + seconds * 1000;
const iso = (ms: number) => new Date(ms).toISOString();

const settings = (over: Partial<CursorSettings> = {}): CursorSettings => ({
	lookBackMs: 60_000,
	pageSize: 3,
	maxSeen: 100,
	...over,
});
const ids = (records: SmsRecord[]) => records.map((r) => r.id);

async function poll(
	api: SmsHistory,
	state: CursorState,
	nowMs: number,
	over: Partial<CursorSettings> = {},
) {
	return await runPoll(state, api.fetch, { settings: settings(over), now: () => nowMs });
}

describe('first poll', () => {
	it('asks from the baseline: nothing sent before it, even inside the look-back window', async () => {
		const api = new SmsHistory();
		api.add(at(-30), at(-1));
		const [fresh] = api.add(at(0));
		const polled = await poll(api, baseline(at(0)), at(5));
		expect(api.requests).toEqual([{ since: iso(at(0)), limit: 3 }]);
		expect(ids(polled.emit)).toEqual([fresh]);
		expect(polled.state).toEqual({ v: 1, cursor: at(0), floor: at(0), seen: [[fresh, at(0)]] });
	});
});

describe('later polls', () => {
	it('look back from the cursor; the messages at the cursor come back and are told apart by id', async () => {
		const api = new SmsHistory();
		const [a] = api.add(at(10));
		let { state } = await poll(api, baseline(at(0)), at(10));
		const [b] = api.add(at(10)); // same sentAt as the cursor, stored later
		const polled = await poll(api, state, at(20));
		expect(api.requests[1].since).toBe(iso(at(0))); // cursor 10 s - 60 s, but not before the baseline
		expect(ids(polled.emit)).toEqual([b]);
		state = polled.state;
		expect(state.seen.map(([id]) => id)).toEqual([a, b]);
		expect((await poll(api, state, at(30))).emit).toEqual([]);
	});

	it('find a message stored late with a sentAt inside the window, and not one older than it', async () => {
		const api = new SmsHistory();
		api.add(at(100));
		let { state } = await poll(api, baseline(at(0)), at(100));
		const [inside] = api.add(at(45)); // 55 s before the cursor: inside the 60 s window
		api.add(at(30)); // 70 s before: outside
		const polled = await poll(api, state, at(110));
		expect(ids(polled.emit)).toEqual([inside]);
		state = polled.state;
		expect(state.cursor).toBe(at(100));
	});

	it('an idle poll is one request', async () => {
		const api = new SmsHistory();
		api.add(at(1), at(2));
		const { state } = await poll(api, baseline(at(0)), at(5));
		api.requests = [];
		expect((await poll(api, state, at(65))).emit).toEqual([]);
		expect(api.requests).toHaveLength(1);
	});
});

describe('draining more than a page', () => {
	it('oldest first: pages forward from the newest sentAt of each page, in the same poll', async () => {
		const api = new SmsHistory('oldestFirst');
		const sent = api.add(at(1), at(2), at(3), at(4), at(5), at(6), at(7));
		const polled = await poll(api, baseline(at(0)), at(10));
		expect(ids(polled.emit)).toEqual(sent);
		expect(api.requests.map((r) => r.since)).toEqual([
			iso(at(0)),
			iso(at(3)),
			iso(at(5)),
			iso(at(7)),
		]);
		expect(polled.shortfall).toBeUndefined();
	});

	it('oldest first, several sharing a sentAt across a page boundary: each once, in arrival order', async () => {
		const api = new SmsHistory('oldestFirst');
		const sent = api.add(at(1), at(2), at(2), at(3), at(4));
		expect(ids((await poll(api, baseline(at(0)), at(10))).emit)).toEqual(sent);
		expect(api.requests.map((r) => r.since)).toEqual([iso(at(0)), iso(at(2)), iso(at(3))]);
	});

	it('newest first: emitted oldest first, equal sentAt in arrival order', async () => {
		const api = new SmsHistory('newestFirst');
		const sent = api.add(at(1), at(2), at(2));
		const polled = await poll(api, baseline(at(0)), at(10), { pageSize: 5 });
		expect(ids(polled.emit)).toEqual(sent);
		expect(polled.state.order).toBe('newestFirst');
	});

	it('newest first, a full page: the newest page, and a warning when new messages were out of reach', async () => {
		const api = new SmsHistory('newestFirst');
		const sent = api.add(at(1), at(2), at(3), at(4), at(5));
		const polled = await poll(api, baseline(at(0)), at(10));
		expect(ids(polled.emit)).toEqual(sent.slice(2));
		expect(polled).toMatchObject({ shortfall: 'newestFirstFull', newMayBeHidden: true, pages: 1 });
		expect(api.requests).toHaveLength(1);
	});

	it('newest first, a full page reaching below the cursor: every new message was on it, so no warning', async () => {
		const api = new SmsHistory('newestFirst');
		api.add(at(1), at(2), at(3));
		let { state } = await poll(api, baseline(at(0)), at(10), { pageSize: 5 });
		const [fresh] = api.add(at(11));
		const polled = await poll(api, state, at(12));
		state = polled.state;
		expect(ids(polled.emit)).toEqual([fresh]);
		expect(polled).toMatchObject({ shortfall: 'newestFirstFull', newMayBeHidden: false });
	});

	it('a whole page at one sentAt is stepped past (since is inclusive to the millisecond): the rest at it are out of reach, what follows is read, and it says so', async () => {
		for (const order of ['oldestFirst', 'newestFirst'] as const) {
			const api = new SmsHistory(order);
			api.add(at(1), at(1), at(1), at(1));
			const [after] = api.add(at(2));
			const polled = await poll(api, baseline(at(1)), at(10));
			if (order === 'oldestFirst') {
				// The page at 1 s, then from 1.001 s: the message after it.
				expect(polled.emit).toHaveLength(4);
				expect(ids(polled.emit).at(-1)).toBe(after);
				expect(api.requests.map((r) => r.since)).toEqual([iso(at(1)), iso(at(1) + 1)]);
				expect(polled).toMatchObject({
					shortfall: 'sameSentAt',
					newMayBeHidden: true,
					steppedPast: [at(1)],
				});
			} else {
				// Newest first, the page shows the order and holds the newest: nothing to page.
				expect(polled).toMatchObject({ shortfall: 'newestFirstFull', newMayBeHidden: true });
			}
		}
	});

	it('exactly a page at one sentAt, oldest first: stepped past, nothing lost, and the next polls do not stall on it', async () => {
		const api = new SmsHistory('oldestFirst');
		const group = api.add(at(1), at(1), at(1));
		let polled = await poll(api, baseline(at(0)), at(5));
		expect(ids(polled.emit)).toEqual(group);
		const emitted = [...ids(polled.emit)];
		for (let i = 1; i <= 5; i++) {
			const [next] = api.add(at(5 + i));
			api.requests = [];
			polled = await poll(api, polled.state, at(6 + i));
			emitted.push(...ids(polled.emit));
			expect(ids(polled.emit)).toEqual([next]);
			// Never the same requests for ever: each poll gets past the page at 1 s (and re-reads
			// the window before the cursor, a page more as it fills).
			expect(api.requests[1]?.since).toBe(iso(at(1) + 1));
			expect(api.requests.length).toBeLessThanOrEqual(2 + Math.ceil(i / 3));
		}
		expect(new Set(emitted).size).toBe(emitted.length);
	});

	it('a server that ignores since, or answers in no order, cannot make it loop', async () => {
		const ignoring = new SmsHistory('oldestFirst');
		ignoring.add(at(1), at(2), at(3), at(4));
		// Every request answered as if since were 0 s: the second page is all older than asked.
		const stuck = await runPoll(
			baseline(at(0)),
			async () => await ignoring.fetch({ since: iso(at(0)), limit: 3 }),
			{ settings: settings(), now: () => at(10) },
		);
		expect(stuck).toMatchObject({ shortfall: 'noProgress', pages: 2 });
		expect(stuck.emit).toHaveLength(3);

		const page = {
			messages: [
				{ id: 'x', sentAt: iso(at(2)) },
				{ id: 'y', sentAt: iso(at(1)) },
				{ id: 'z', sentAt: iso(at(3)) },
			],
		};
		expect(pageOrder(page.messages)).toBe('unordered');
		const requests: string[] = [];
		const unordered = await runPoll(
			baseline(at(0)),
			async (r) => (requests.push(r.since), Date.parse(r.since) <= at(3) ? page : { messages: [] }),
			{ settings: settings(), now: () => at(10) },
		);
		// Paged on from the newest time of the page, with a warning.
		expect(unordered).toMatchObject({ shortfall: 'unordered', newMayBeHidden: true, pages: 2 });
		expect(requests).toEqual([iso(at(0)), iso(at(3))]);
		expect(ids(unordered.emit)).toEqual(['y', 'x', 'z']);
	});
});

describe('all or nothing', () => {
	it('a page failing part way leaves nothing behind: the next poll reads it all again', async () => {
		const api = new SmsHistory('oldestFirst');
		const sent = api.add(at(1), at(2), at(3), at(4));
		const start = baseline(at(0));
		const stored = JSON.stringify(start);
		let calls = 0;
		await expect(
			runPoll(
				start,
				async (r) => {
					if (++calls === 2) throw new Error('HTTP 500');
					return await api.fetch(r);
				},
				{ settings: settings(), now: () => at(10) },
			),
		).rejects.toThrow('HTTP 500');
		expect(JSON.stringify(start)).toBe(stored);
		expect(
			ids((await poll(api, parseState(JSON.parse(stored)) as CursorState, at(10))).emit),
		).toEqual(sent);
	});

	it('a poll stopped by its budget emits what it read and moves the cursor only that far', async () => {
		const api = new SmsHistory('oldestFirst');
		const sent = api.add(at(1), at(2), at(3), at(4), at(5), at(6), at(7));
		let pages = 0;
		const first = await runPoll(baseline(at(0)), async (r) => (pages++, await api.fetch(r)), {
			settings: settings(),
			now: () => at(10),
			keepReading: () => pages < 2,
		});
		expect(first).toMatchObject({ stopped: 'timeBudget', pages: 2 });
		expect(first.shortfall).toBeUndefined();
		expect(ids(first.emit)).toEqual(sent.slice(0, 5));
		expect(first.state.cursor).toBe(at(5));
		// The next poll reads on from where the first stopped, not from the window.
		expect(first.state.resume).toBe(at(5));
		api.requests = [];
		const second = await poll(api, first.state, at(70));
		expect(api.requests[0].since).toBe(iso(at(5)));
		expect(ids(second.emit)).toEqual(sent.slice(5));
		// Caught up: one more pass from the window the first poll began in, for late arrivals.
		expect(second.state).toMatchObject({ resume: at(0) });
		expect(second.state.sweep).toBeUndefined();
		const [late] = api.add(at(3.5));
		api.requests = [];
		const third = await poll(api, second.state, at(71));
		expect(api.requests[0].since).toBe(iso(at(0)));
		expect(ids(third.emit)).toEqual([late]);
		expect(third.state.resume).toBeUndefined();
	});

	it('a poll reads at most maxPages pages; the next polls read on, each message once', async () => {
		const api = new SmsHistory('oldestFirst');
		const sent = api.add(...Array.from({ length: 20 }, (_, i) => at(1 + i)));
		let state = baseline(at(0));
		const emitted: unknown[] = [];
		const stops: unknown[] = [];
		for (let i = 0; i < 6; i++) {
			api.requests = [];
			const polled = await poll(api, state, at(30 + i), { maxPages: 2 });
			expect(api.requests.length).toBeLessThanOrEqual(2);
			emitted.push(...ids(polled.emit));
			stops.push(polled.stopped);
			state = polled.state;
		}
		expect(emitted).toEqual(sent);
		expect(stops.slice(0, 4)).toEqual(['pageBudget', 'pageBudget', 'pageBudget', 'pageBudget']);
	});

	it('a budget that stops every poll after one page cannot stall it: a dense look-back window is read on from where it stopped', async () => {
		const api = new SmsHistory('oldestFirst');
		const sent = api.add(at(1), at(2), at(3), at(4), at(5), at(6), at(7), at(8));
		let state = baseline(at(0));
		const emitted: unknown[] = [];
		for (let i = 0; i < 6; i++) {
			// A budget of one page a poll; the window (60 s) holds every message read before.
			const polled = await runPoll(state, api.fetch, {
				settings: settings(),
				now: () => at(10 + i),
				keepReading: () => false,
			});
			emitted.push(...ids(polled.emit));
			state = polled.state;
		}
		expect(emitted).toEqual(sent);
	});

	it('stopPoll on a finished poll changes nothing', () => {
		const p = beginPoll(baseline(at(0)), settings());
		readPage(p, { messages: [] });
		stopPoll(p);
		expect(endPoll(p, at(1))).toMatchObject({ newMayBeHidden: false });
		expect(endPoll(p, at(1)).stopped).toBeUndefined();
		expect(endPoll(p, at(1)).shortfall).toBeUndefined();
	});

	it('without durable cursors, a crash after the emit and before the save repeats that poll, and only that poll', async () => {
		const api = new SmsHistory();
		api.add(at(1));
		const saved = (await poll(api, baseline(at(0)), at(2))).state;
		const [b, c] = api.add(at(3), at(4));
		const lostSave = await poll(api, saved, at(5)); // emitted, then n8n stops before storing its state
		expect(ids(lostSave.emit)).toEqual([b, c]);
		const again = await poll(api, saved, at(65)); // restart from the state stored before
		expect(ids(again.emit)).toEqual([b, c]);
	});
});

describe('the clock and the bounds', () => {
	it('the cursor never moves past the clock, so one message dated in the future hides nothing after it', async () => {
		const api = new SmsHistory();
		const [future] = api.add(at(3600));
		let polled = await poll(api, baseline(at(0)), at(10));
		expect(ids(polled.emit)).toEqual([future]);
		expect(polled.state.cursor).toBe(at(10));
		const [next] = api.add(at(20));
		polled = await poll(api, polled.state, at(30));
		expect(ids(polled.emit)).toEqual([next]);
		expect(polled.state.seen.map(([id]) => id)).toEqual([next, future]);
	});

	it('remembers ids only while a poll can return them (bounded in age)', async () => {
		const api = new SmsHistory();
		api.add(at(1), at(2));
		let { state } = await poll(api, baseline(at(0)), at(2));
		api.add(at(100));
		state = (await poll(api, state, at(100))).state;
		expect(state.seen.map(([, t]) => t)).toEqual([at(100)]);
	});

	it('remembers at most maxSeen ids; the floor rises past the dropped ones, whole sentAt groups at a time', async () => {
		const api = new SmsHistory();
		api.add(at(1), at(2), at(2), at(3), at(4));
		const polled = await poll(api, baseline(at(0)), at(5), { maxSeen: 3, pageSize: 10 });
		expect(polled.state.seen.map(([, t]) => t)).toEqual([at(3), at(4)]);
		expect(polled.state.floor).toBe(at(2) + 1);
		api.requests = [];
		expect((await poll(api, polled.state, at(6), { maxSeen: 3, pageSize: 10 })).emit).toEqual([]);
		expect(api.requests[0].since).toBe(iso(at(2) + 1));
	});

	it('messages without a readable sentAt are emitted once, last, and do not move the cursor', async () => {
		const p = beginPoll(baseline(at(0)), settings({ pageSize: 10 }));
		readPage(p, { messages: [{ id: 'odd' }, { id: 'a', sentAt: iso(at(2)) }] });
		const polled = endPoll(p, at(5));
		expect(ids(polled.emit)).toEqual(['a', 'odd']);
		expect(polled.undated).toBe(1);
		expect(polled.state.cursor).toBe(at(2));
		expect(polled.state.seen).toEqual([['a', at(2)]]);
		// Remembered by id, as last read at 5 s.
		expect(polled.state.undated).toEqual([['odd', at(5)]]);
	});

	it('a message without a readable sentAt that the server keeps returning is emitted once, however long', async () => {
		const odd = { id: 'odd', sentAt: 'yesterday-ish' };
		let state = baseline(at(0));
		const emitted: unknown[] = [];
		// 30 polls a minute apart, the Late Arrival Window 5 minutes: 6 windows.
		for (let i = 0; i < 30; i++) {
			const polled = await runPoll(state, async () => ({ messages: [odd] }), {
				settings: settings({ lookBackMs: 5 * 60_000 }),
				now: () => at(60 * (i + 1)),
			});
			emitted.push(...ids(polled.emit));
			state = parseState(JSON.parse(JSON.stringify(polled.state))) as CursorState;
		}
		expect(emitted).toEqual(['odd']);
	});

	it('at most maxUndated ids of messages without a usable sentAt are kept, the least recently read going first', async () => {
		const p = beginPoll(baseline(at(0)), settings({ pageSize: 10, maxUndated: 2 }));
		readPage(p, { messages: [{ id: 'u1' }, { id: 'u2' }, { id: 'u3' }] });
		const first = endPoll(p, at(5));
		expect(first.state.undated?.map(([id]) => id)).toHaveLength(2);
		const q = beginPoll(first.state, settings({ pageSize: 10, maxUndated: 2 }));
		readPage(q, { messages: [{ id: 'u2' }, { id: 'u4' }] });
		const second = endPoll(q, at(6));
		expect(second.emit.map((r) => r.id)).toEqual(['u4']);
		expect(second.state.undated?.map(([id]) => id).sort()).toEqual(['u2', 'u4']);
	});

	it('a group a warning covered before is stepped past quietly, and does not hide the reason a later page gives', () => {
		const sms = (id: string, seconds: number) => ({ id, sentAt: iso(at(seconds)) });
		const start: CursorState = {
			...baseline(at(0)),
			cursor: at(1),
			seen: [
				['a', at(1)],
				['b', at(1)],
				['c', at(1)],
			],
			overflow: [at(1)],
		};
		const p = beginPoll(start, settings());
		readPage(p, { messages: [sms('a', 1), sms('b', 1), sms('c', 1)] });
		expect(p).toMatchObject({ shortfall: 'sameSentAt', newMayBeHidden: false, steppedPast: [] });
		// Then a full page in no order: its reason is the one reported.
		readPage(p, { messages: [sms('d', 3), sms('e', 2), sms('f', 4)] });
		const ended = endPoll(p, at(10));
		expect(ended).toMatchObject({ shortfall: 'unordered', newMayBeHidden: true });
		expect(ended).not.toHaveProperty('steppedPast');
		expect(ended.state.overflow).toEqual([at(1)]);
	});

	it('a group said after a page in no order is not remembered as covered: the warning did not name it', () => {
		const sms = (id: string, seconds: number) => ({ id, sentAt: iso(at(seconds)) });
		const p = beginPoll(baseline(at(0)), settings());
		readPage(p, { messages: [sms('a', 3), sms('b', 2), sms('c', 4)] });
		readPage(p, { messages: [sms('c', 4), sms('d', 4), sms('e', 4)] });
		const ended = endPoll(p, at(10));
		expect(ended).toMatchObject({ shortfall: 'unordered', newMayBeHidden: true });
		expect(ended).not.toHaveProperty('steppedPast');
		expect(ended.state).not.toHaveProperty('overflow');
	});

	it('parseState takes only a state of ours', () => {
		const state: CursorState = {
			v: 1,
			cursor: 5,
			floor: 1,
			seen: [['a', 3]],
			order: 'newestFirst',
		};
		expect(parseState(JSON.parse(JSON.stringify(state)))).toEqual(state);
		for (const junk of [
			undefined,
			null,
			'x',
			{},
			{ ...state, v: 2 },
			{ ...state, cursor: '5' },
			{ ...state, seen: [['a']] },
			{ ...state, seen: {} },
		]) {
			expect(parseState(junk)).toBeUndefined();
		}
		expect(parseState({ ...state, order: 'sideways' })).toEqual({
			v: 1,
			cursor: 5,
			floor: 1,
			seen: [['a', 3]],
		});
	});

	it('parseState reads the groups said before, as a list or as the one time an older version kept', () => {
		const state = { v: 1, cursor: 5, floor: 1, seen: [] };
		expect(parseState({ ...state, overflow: [2, 4] })?.overflow).toEqual([2, 4]);
		expect(parseState({ ...state, overflow: 4 })?.overflow).toEqual([4]);
		expect(parseState({ ...state, overflow: [2, 'x', null] })?.overflow).toEqual([2]);
		expect(parseState({ ...state, overflow: 'x' })).not.toHaveProperty('overflow');
	});
});

describe('a server that changes its order between polls (issue 21, item 6)', () => {
	it('messages sharing a sentAt are put in the order the server uses now, not the one it used before', async () => {
		const api = new SmsHistory('newestFirst');
		const s = settings({ pageSize: 10 });
		const probe = async () => api.order;
		let state = (
			await runPoll(baseline(at(0)), api.fetch, {
				settings: s,
				now: () => at(0),
				probeOrder: probe,
			})
		).state;
		api.add(at(1), at(2));
		const first = await runPoll(state, api.fetch, {
			settings: s,
			now: () => at(3),
			probeOrder: probe,
		});
		expect(first.state.order).toBe('newestFirst');
		state = first.state;
		// The server now answers oldest first; the next poll's page shows no order of its own.
		api.order = 'oldestFirst';
		// (the earlier messages out of this poll's reach, so they cannot show it either)
		for (const m of api.messages) m.sentAt = at(-3600);
		const [a, b] = api.add(at(10), at(10));
		const second = await runPoll(state, api.fetch, {
			settings: s,
			now: () => at(11),
			probeOrder: probe,
		});
		expect(second.emit.map((r) => r.id)).toEqual([a, b]);
	});
});
