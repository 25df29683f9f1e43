/**
 * The tracker of records in progress of "Call Ended" and "SMS Delivered" (nodes/CommsAccount/trigger/inProgressPoll.ts),
 * case by case: each record once when final, a record in progress tracked by id and looked up
 * once it has left the window (so it holds nothing else back), a call still in progress after a
 * day emitted with its last status and a flag, an SMS without a receipt let go after a day, more
 * than 200 calls between polls, records without a usable time, bounded stores, and state saved
 * in the format before tracking by id. All three events against a random model of the API are
 * in accountTrigger.model.test.ts.
 */
import fc from 'fast-check';

import { DEFAULT_SETTINGS } from '../../nodes/CommsAccount/trigger/cursorState';
import { type PageRequest } from '../../nodes/CommsAccount/trigger/pageReading';
import {
	DEFAULT_IN_PROGRESS_SETTINGS,
	type FinalStatusEvent,
	type InProgressSettings,
	type InProgressState,
} from '../../nodes/CommsAccount/trigger/inProgressRecords';
import {
	inProgressBaseline,
	parseInProgressState,
} from '../../nodes/CommsAccount/trigger/inProgressState';
import { pollInProgress } from '../../nodes/CommsAccount/trigger/inProgressPoll';
import type { SmsPage, SmsRecord } from '../../nodes/CommsAccount/api/smsPaging';

const T0 = Date.parse('2026-03-01T09:00:00.000Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();

interface Rec {
	id: string;
	at: number;
	status: string;
}

/** GET /v1/calls or /v1/sms?direction=sent as the sandbox answers: since inclusive, `limit` in its order. */
class Api {
	records: Rec[] = [];
	requests: string[] = [];
	constructor(
		readonly kind: FinalStatusEvent,
		readonly order: 'newestFirst' | 'oldestFirst' = 'newestFirst',
	) {}

	view(r: Rec): SmsRecord {
		return this.kind === 'callEnded'
			? { id: r.id, createdAt: iso(r.at), status: r.status, phoneDocId: 'pdoc_1' }
			: { id: r.id, messageId: `SM${r.id}`, sentAt: iso(r.at), status: r.status };
	}

	fetchPage = async ({ since, limit }: PageRequest): Promise<SmsPage> => {
		this.requests.push(`list ${since}`);
		const d = this.order === 'oldestFirst' ? 1 : -1;
		return {
			messages: this.records
				.filter((r) => r.at >= Date.parse(since))
				.sort((a, b) => d * (a.at - b.at))
				.slice(0, limit)
				.map((r) => this.view(r)),
		};
	};

	lookup = async ([ref]: string[]): Promise<SmsRecord | undefined> => {
		this.requests.push(`lookup ${ref}`);
		const id = this.kind === 'callEnded' ? ref : ref.replace(/^SM/, '');
		const found = this.records.find((r) => r.id === id);
		return found && this.view(found);
	};
}

async function poll(
	api: Api,
	state: InProgressState,
	now: number,
	settings: InProgressSettings = DEFAULT_IN_PROGRESS_SETTINGS,
) {
	api.requests = [];
	const result = await pollInProgress(state, api, { settings, now: () => now });
	// Stored as JSON, as n8n stores static data.
	const stored = parseInProgressState(JSON.parse(JSON.stringify(result.state)), api.kind);
	expect(stored).toEqual(result.state);
	return {
		...result,
		state: stored as InProgressState,
		ids: result.emit.map((r) => r.id),
	};
}

describe('Call Ended tracking', () => {
	it('emits a call once, when it becomes final, and nothing from before the baseline', async () => {
		const api = new Api('callEnded');
		api.records.push({ id: 'old', at: T0 - MINUTE, status: 'completed' });
		let state = inProgressBaseline('callEnded', T0);
		api.records.push({ id: 'a', at: T0 + 1000, status: 'ringing-agent' });
		let r = await poll(api, state, T0 + MINUTE);
		expect(r.ids).toEqual([]);
		state = r.state;
		expect(state.pending.map(([id]) => id)).toEqual(['a']);
		api.records[1].status = 'completed';
		r = await poll(api, state, T0 + 2 * MINUTE);
		expect(r.ids).toEqual(['a']);
		r = await poll(api, r.state, T0 + 3 * MINUTE);
		expect(r.ids).toEqual([]);
	});

	it('a status nobody listed is in progress, reported with a call that has it; the call is emitted at its real end', async () => {
		const api = new Api('callEnded');
		api.records.push({ id: 'x', at: T0 + 1000, status: 'agent-answered' });
		api.records.push({ id: 'y', at: T0 + 2000, status: 'Agent_Answered' });
		let r = await poll(api, inProgressBaseline('callEnded', T0), T0 + MINUTE);
		expect(r.ids).toEqual([]);
		expect(r.unlisted).toHaveLength(1);
		expect(r.unlisted[0][0]).toBe('agent-answered');
		api.records[0].status = 'dialing';
		r = await poll(api, r.state, T0 + 2 * MINUTE);
		expect(r.ids).toEqual([]);
		expect(r.unlisted.sort()).toEqual([
			['agent-answered', 'y'],
			['dialing', 'x'],
		]);
		api.records[0].status = 'completed';
		api.records[1].status = 'No_Answer';
		r = await poll(api, r.state, T0 + 3 * MINUTE);
		expect(r.ids).toEqual(['x', 'y']);
		expect(r.unlisted).toEqual([]);
	});

	it('a call that fails is a call that ended; an SMS that fails ends the wait, reported, and is never emitted', async () => {
		const calls = new Api('callEnded');
		calls.records.push({ id: 'f', at: T0 + 1000, status: 'canceled' });
		expect((await poll(calls, inProgressBaseline('callEnded', T0), T0 + MINUTE)).ids).toEqual([
			'f',
		]);
		const sms = new Api('smsDelivered');
		sms.records.push({ id: 'p', at: T0 + 1000, status: 'pending' });
		sms.records.push({ id: 'u', at: T0 + 2000, status: 'submitted' });
		let r = await poll(sms, inProgressBaseline('smsDelivered', T0), T0 + MINUTE);
		expect(r.ids).toEqual([]);
		expect(r.unlisted.sort()).toEqual([
			['pending', 'p'],
			['submitted', 'u'],
		]);
		sms.records[0].status = 'delivered';
		sms.records[1].status = 'undelivered';
		r = await poll(sms, r.state, T0 + 2 * MINUTE);
		expect(r.ids).toEqual(['p']);
		expect(r.undelivered).toEqual([['u', 'undelivered']]);
		expect(r.state.pending).toEqual([]);
	});

	it('a call that has left the window is looked up by id, on its number, and emitted when it ends', async () => {
		const api = new Api('callEnded');
		api.records.push({ id: 'long', at: T0 + 1000, status: 'in-progress' });
		let r = await poll(api, inProgressBaseline('callEnded', T0), T0 + MINUTE);
		// A call 20 minutes later moves the position: the window (5 minutes) no longer holds the first.
		api.records.push({ id: 'short', at: T0 + 20 * MINUTE, status: 'busy' });
		r = await poll(api, r.state, T0 + 20 * MINUTE + 1000);
		expect(r.ids).toEqual(['short']);
		// Last seen 20 minutes after it started: looked at again half that later.
		r = await poll(api, r.state, T0 + 21 * MINUTE);
		expect(api.requests).toEqual([`list ${iso(T0 + 15 * MINUTE)}`]);
		r = await poll(api, r.state, T0 + 31 * MINUTE);
		expect(api.requests).toEqual([`list ${iso(T0 + 15 * MINUTE)}`, 'lookup long']);
		api.records[0].status = 'completed';
		r = await poll(api, r.state, T0 + 60 * MINUTE);
		expect(r.ids).toEqual(['long']);
		expect(r.state.pending).toEqual([]);
	});

	it('a call still in progress a day later is emitted once with its last status and a flag', async () => {
		const api = new Api('callEnded');
		api.records.push({ id: 'stuck', at: T0 + 1000, status: 'in-progress' });
		let r = await poll(api, inProgressBaseline('callEnded', T0), T0 + MINUTE);
		expect(r.ids).toEqual([]);
		const emitted: unknown[] = [];
		// Polled every 10 minutes for a day: looked up now and then, never more than once a poll.
		for (let t = T0 + 10 * MINUTE; t <= T0 + 24 * HOUR + 10 * MINUTE; t += 10 * MINUTE) {
			r = await poll(api, r.state, t);
			expect(r.lookups).toBeLessThanOrEqual(1);
			emitted.push(...r.emit);
		}
		expect(emitted).toEqual([
			expect.objectContaining({ id: 'stuck', status: 'in-progress', stillInProgress: true }),
		]);
		expect((await poll(api, r.state, T0 + 25 * HOUR)).ids).toEqual([]);
	});

	it('more than 200 calls between polls: the newest 200 are emitted, each once; the older ones cannot be read (a documented limit)', async () => {
		const api = new Api('callEnded');
		for (let i = 0; i < 250; i++)
			api.records.push({ id: `c${i}`, at: T0 + 1000 + i * 100, status: 'completed' });
		const r1 = await poll(api, inProgressBaseline('callEnded', T0), T0 + MINUTE);
		expect(r1.ids).toHaveLength(200);
		expect(r1.ids[0]).toBe('c50');
		expect(r1).toMatchObject({ shortfall: 'newestFirstFull', newMayBeHidden: true });
		// The API gives the most recent 200 and has no cursor: the older 50 stay out of reach.
		const r2 = await poll(api, r1.state, T0 + 2 * MINUTE);
		expect(r2.ids).toEqual([]);
	});

	it('a wider window later re-emits nothing already emitted', async () => {
		const api = new Api('callEnded');
		api.records.push({ id: 'a', at: T0 + 1000, status: 'completed' });
		const r1 = await poll(api, inProgressBaseline('callEnded', T0), T0 + 30 * MINUTE);
		expect(r1.ids).toEqual(['a']);
		api.records.push({ id: 'b', at: T0 + 29 * MINUTE, status: 'busy' });
		const wide = {
			...DEFAULT_IN_PROGRESS_SETTINGS,
			reader: { ...DEFAULT_SETTINGS, lookBackMs: 120 * MINUTE },
		};
		expect((await poll(api, r1.state, T0 + 31 * MINUTE, wide)).ids).toEqual(['b']);
	});

	it('a call without a number to look it up by is looked for with one page from its time', async () => {
		const api = new Api('callEnded');
		api.view = (r) => ({ id: r.id, createdAt: iso(r.at), status: r.status });
		api.records.push({ id: 'nonumber', at: T0 + 1000, status: 'in-progress' });
		let r = await poll(api, inProgressBaseline('callEnded', T0), T0 + MINUTE);
		api.records.push({ id: 'later', at: T0 + 20 * MINUTE, status: 'in-progress' });
		r = await poll(api, r.state, T0 + 20 * MINUTE + 1000);
		r = await poll(api, r.state, T0 + 31 * MINUTE);
		expect(r.revisits).toBe(1);
		expect(api.requests.at(-1)).toBe(`list ${iso(T0 + 1000)}`);
		api.records[0].status = 'completed';
		// Looked for again half its age later (31 minutes old at 31 minutes: at 46.5).
		r = await poll(api, r.state, T0 + 40 * MINUTE);
		expect(r.revisits).toBe(0);
		r = await poll(api, r.state, T0 + 47 * MINUTE);
		expect(r.ids).toEqual(['nonumber']);
	});

	it("a call whose record names no number is looked up on the trigger's Phone Number, when it has one", async () => {
		const api = new Api('callEnded');
		api.view = (r) => ({ id: r.id, createdAt: iso(r.at), status: r.status });
		const filtered = { ...DEFAULT_IN_PROGRESS_SETTINGS, phoneDocId: 'pdoc_1' };
		api.records.push({ id: 'x', at: T0 + 1000, status: 'in-progress' });
		let r = await poll(api, inProgressBaseline('callEnded', T0), T0 + MINUTE, filtered);
		api.records.push({ id: 'mover', at: T0 + 20 * MINUTE, status: 'busy' });
		r = await poll(api, r.state, T0 + 20 * MINUTE + 1000, filtered);
		r = await poll(api, r.state, T0 + 31 * MINUTE, filtered);
		expect(api.requests).toEqual([`list ${iso(T0 + 15 * MINUTE)}`, 'lookup x']);
		expect(r.revisits).toBe(0);
	});
});

describe('SMS Delivered tracking', () => {
	it('emits a sent SMS once when delivered; a failed one never; other kinds of state are refused', async () => {
		const api = new Api('smsDelivered');
		api.records.push(
			{ id: 's1', at: T0 + 1000, status: 'sent' },
			{ id: 's2', at: T0 + 2000, status: 'sent' },
		);
		let r = await poll(api, inProgressBaseline('smsDelivered', T0), T0 + MINUTE);
		expect(r.ids).toEqual([]);
		api.records[0].status = 'delivered';
		api.records[1].status = 'failed';
		r = await poll(api, r.state, T0 + 2 * MINUTE);
		expect(r.ids).toEqual(['s1']);
		r = await poll(api, r.state, T0 + 3 * MINUTE);
		expect(r.ids).toEqual([]);
		expect(parseInProgressState(JSON.parse(JSON.stringify(r.state)), 'callEnded')).toBeUndefined();
	});

	it('one SMS that never gets a receipt holds back no other delivery, oldest first past 2,000 SMS', async () => {
		const api = new Api('smsDelivered', 'oldestFirst');
		api.records.push({ id: 'noreceipt', at: T0 + 1000, status: 'sent' });
		let r = await poll(api, inProgressBaseline('smsDelivered', T0), T0 + MINUTE);
		const emitted: unknown[] = [];
		let n = 0;
		// 12 SMS a minute for 5 hours, each delivered 10 s after it is sent.
		for (let minute = 2; minute <= 300; minute++) {
			const now = T0 + minute * MINUTE;
			for (const r2 of api.records)
				if (r2.id !== 'noreceipt' && r2.at <= now - 10_000) r2.status = 'delivered';
			r = await poll(api, r.state, now);
			emitted.push(...r.ids);
			// Bounded cost: the window's pages, at most one look-up.
			expect(r.pages + r.lookups).toBeLessThanOrEqual(3);
			for (let i = 0; i < 12; i++)
				api.records.push({ id: `m${n++}`, at: now + i * 5000, status: 'sent' });
		}
		// Every SMS delivered by the last poll was emitted, each once, within a minute of delivery.
		const delivered = api.records.filter((x) => x.status === 'delivered').map((x) => x.id);
		expect(new Set(emitted).size).toBe(emitted.length);
		expect([...emitted].sort()).toEqual([...delivered].sort());
		expect(delivered.length).toBeGreaterThan(3000);
		expect(r.state.pending.map(([id]) => id)).toContain('noreceipt');
	});

	it('an SMS without a receipt is watched for a day, looked up by messageId, then let go', async () => {
		const api = new Api('smsDelivered');
		api.records.push({ id: 'late', at: T0 + 1000, status: 'sent' });
		api.records.push({ id: 'never', at: T0 + 2000, status: 'sent' });
		let r = await poll(api, inProgressBaseline('smsDelivered', T0), T0 + MINUTE);
		const emitted: unknown[] = [];
		let lookups = 0;
		let expired = 0;
		for (let t = T0 + 5 * MINUTE; t <= T0 + 26 * HOUR; t += 5 * MINUTE) {
			if (t >= T0 + 3 * HOUR) api.records[0].status = 'delivered';
			r = await poll(api, r.state, t);
			emitted.push(...r.ids);
			lookups += r.lookups;
			expired += r.expired;
		}
		expect(emitted).toEqual(['late']);
		expect(expired).toBe(1);
		expect(r.state.pending).toEqual([]);
		// Looked up at most every hour (after half its age), about 30 times in a day for two SMS.
		expect(lookups).toBeLessThan(60);
	});

	it('look-ups are capped per poll, the earliest due first; a record the API no longer has is let go', async () => {
		const api = new Api('smsDelivered');
		for (let i = 0; i < 25; i++)
			api.records.push({ id: `p${i}`, at: T0 + 1000 + i, status: 'sent' });
		let r = await poll(api, inProgressBaseline('smsDelivered', T0), T0 + MINUTE);
		// An SMS 20 minutes later moves the position past them.
		api.records.push({ id: 'mover', at: T0 + 20 * MINUTE, status: 'delivered' });
		r = await poll(api, r.state, T0 + 20 * MINUTE + 1000);
		api.records = api.records.filter((x) => x.id !== 'p0');
		const looked: string[] = [];
		let gone = 0;
		for (const [minute, lookups, deferred] of [
			[31, 10, 15],
			[32, 10, 5],
			[33, 5, 0],
		]) {
			r = await poll(api, r.state, T0 + minute * MINUTE);
			expect(r).toMatchObject({ lookups, deferred });
			looked.push(...api.requests.filter((q) => q.startsWith('lookup')));
			gone += r.gone;
		}
		// Each once, the earliest due first; p0 is gone and no longer watched.
		expect(looked.sort()).toEqual(Array.from({ length: 25 }, (_, i) => `lookup SMp${i}`).sort());
		expect(gone).toBe(1);
		expect(r.state.pending.map(([id]) => id)).not.toContain('p0');
	});

	it('keeps at most maxPending records in progress: the oldest are let go (calls: emitted, flagged)', async () => {
		for (const kind of ['smsDelivered', 'callEnded'] as const) {
			const api = new Api(kind);
			for (let i = 0; i < 8; i++)
				api.records.push({
					id: `p${i}`,
					at: T0 + 1000 + i,
					status: kind === 'callEnded' ? 'ringing' : 'sent',
				});
			const r = await poll(api, inProgressBaseline(kind, T0), T0 + MINUTE, {
				...DEFAULT_IN_PROGRESS_SETTINGS,
				maxPending: 5,
			});
			expect(r.state.pending.map(([id]) => id)).toEqual(['p3', 'p4', 'p5', 'p6', 'p7']);
			expect(r.overflowed).toBe(3);
			if (kind === 'callEnded')
				expect(r.emit).toEqual(
					['p0', 'p1', 'p2'].map((id) => expect.objectContaining({ id, stillInProgress: true })),
				);
			else expect(r.emit).toEqual([]);
		}
	});

	it('a record without a usable sentAt is emitted once by id, never again, however long the server returns it', async () => {
		const odd = { id: 'odd', messageId: 'SModd', sentAt: 'garbled', status: 'delivered' };
		const io = {
			fetchPage: async (): Promise<SmsPage> => ({ messages: [odd] }),
			lookup: async () => odd,
		};
		let state = inProgressBaseline('smsDelivered', T0);
		const emitted: unknown[] = [];
		for (let i = 1; i <= 30; i++) {
			const r = await pollInProgress(state, io, { now: () => T0 + i * MINUTE });
			emitted.push(...r.emit.map((x) => x.id));
			state = parseInProgressState(
				JSON.parse(JSON.stringify(r.state)),
				'smsDelivered',
			) as InProgressState;
		}
		expect(emitted).toEqual(['odd']);
	});
});

describe('state saved before tracking by id', () => {
	it('is read and carried over: the next poll reads on from the oldest pending record, which is then tracked by id', async () => {
		const api = new Api('smsDelivered', 'oldestFirst');
		api.records.push(
			{ id: 'done', at: T0 + 1000, status: 'delivered' },
			{ id: 'waiting', at: T0 + 2000, status: 'sent' },
			{ id: 'new', at: T0 + 40 * MINUTE, status: 'delivered' },
		);
		// As the previous version stored it: `since` held at the oldest pending record.
		const v1 = {
			v: 1,
			kind: 'smsDelivered',
			floor: T0,
			cursor: T0 + 2000,
			pending: [['waiting', T0 + 2000, 'sent']],
			done: [['done', T0 + 1000]],
			fp: 'fingerprint',
		};
		const state = parseInProgressState(JSON.parse(JSON.stringify(v1)), 'smsDelivered');
		expect(state).toMatchObject({ v: 2, fp: 'fingerprint', window: { resume: T0 + 2000 } });
		api.records[1].status = 'delivered';
		const r = await poll(api, state as InProgressState, T0 + 41 * MINUTE);
		expect(r.ids).toEqual(['waiting', 'new']);
		expect(api.requests[0]).toBe(`list ${iso(T0 + 2000)}`);
		expect((await poll(api, r.state, T0 + 42 * MINUTE)).ids).toEqual([]);
	});

	it('refuses what is not a state of this kind', () => {
		for (const junk of [
			undefined,
			null,
			3,
			{},
			{ v: 2, kind: 'callEnded', window: {}, pending: [] },
			{
				v: 2,
				kind: 'callEnded',
				window: { v: 1, cursor: 1, floor: 1, seen: [] },
				pending: [['a']],
			},
			{ v: 1, kind: 'callEnded', floor: 1, cursor: 1, pending: [['a', 'x', 's']], done: [] },
		])
			expect(parseInProgressState(junk, 'callEnded')).toBeUndefined();
	});
});

describe('against a small model', () => {
	it('a careless server (ignores since, nulls, repeats) never makes a call emit twice, and every call that ends is emitted once', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(
					fc.record({
						newCalls: fc.integer({ min: 0, max: 4 }),
						finish: fc.array(fc.nat(), { maxLength: 4 }),
						tickSeconds: fc.integer({ min: 1, max: 900 }),
						ignoreSince: fc.boolean(),
						junk: fc.boolean(),
					}),
					{ maxLength: 20 },
				),
				async (steps) => {
					const api = new Api('callEnded');
					api.records.push({ id: 'before', at: T0 - 1000, status: 'completed' });
					let now = T0;
					let state = inProgressBaseline('callEnded', T0);
					const emitted: string[] = [];
					let n = 0;
					const run = async (ignoreSince: boolean, junk: boolean) => {
						const io = {
							fetchPage: async (request: PageRequest) => {
								const page = await api.fetchPage(
									ignoreSince ? { ...request, since: iso(0) } : request,
								);
								if (junk)
									page.messages.push(null as never, 3 as never, ...page.messages.slice(0, 2));
								return page;
							},
							lookup: api.lookup,
						};
						const result = await pollInProgress(state, io, { now: () => now });
						state = result.state;
						emitted.push(...result.emit.map((r) => String(r.id)));
					};
					for (const step of steps) {
						for (let i = 0; i < step.newCalls; i++)
							api.records.push({ id: `c${n++}`, at: now, status: 'ringing-agent' });
						for (const pick of step.finish) {
							const open = api.records.filter((c) => c.status === 'ringing-agent');
							if (open.length) open[pick % open.length].status = 'completed';
						}
						now += step.tickSeconds * 1000;
						await run(step.ignoreSince, step.junk);
					}
					for (const c of api.records) if (c.status === 'ringing-agent') c.status = 'completed';
					for (let i = 0; i < 3; i++) {
						now += HOUR;
						await run(false, false);
					}
					expect(new Set(emitted).size).toBe(emitted.length);
					expect([...emitted].sort()).toEqual(
						api.records
							.filter((c) => c.id !== 'before')
							.map((c) => c.id)
							.sort(),
					);
				},
			),
			{ numRuns: 300 },
		);
	});
});
