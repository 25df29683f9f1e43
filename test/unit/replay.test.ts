/**
 * The replay window of the Comms Unified Trigger as pure logic: the timestamp check, what makes
 * two deliveries the same event, and the registry that remembers events taken, in this process
 * and in static data. The last block plays n8n's static-data rules (load before the node runs,
 * save the whole object after) with two registries standing for two n8n processes, to show
 * exactly what holds across processes and what does not.
 */
import { createHash } from 'crypto';

import fc from 'fast-check';

import {
	bucketEnd,
	checkTimestamp,
	eventIdOf,
	eventKey,
	KEY_LENGTH,
	MAX_AHEAD_SECONDS,
	MAX_REMEMBERED_EVENTS,
	ReplayRegistry,
	storedBuckets,
	type ClaimResult,
	type RememberedEvents,
} from '../../nodes/CommsUnified/trigger/replay';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe('checkTimestamp', () => {
	it('accepts a timestamp inside the window, either side of now, up to its edges', () => {
		expect(checkTimestamp(iso(NOW), NOW, 300)).toEqual({ ok: true, atMs: NOW });
		expect(checkTimestamp(iso(NOW - 300_000), NOW, 300)).toEqual({ ok: true, atMs: NOW - 300_000 });
		expect(checkTimestamp(iso(NOW + 300_000), NOW, 300)).toEqual({ ok: true, atMs: NOW + 300_000 });
	});

	it('refuses one a millisecond past either edge', () => {
		expect(checkTimestamp(iso(NOW - 300_001), NOW, 300)).toEqual({ ok: false, reason: 'tooOld' });
		expect(checkTimestamp(iso(NOW + 300_001), NOW, 300)).toEqual({
			ok: false,
			reason: 'tooFarAhead',
		});
	});

	it('with a long window, keeps old events but allows only a clock skew ahead of now', () => {
		const day = 86_400;
		expect(checkTimestamp(iso(NOW - day * 1000), NOW, day)).toEqual({
			ok: true,
			atMs: NOW - day * 1000,
		});
		expect(checkTimestamp(iso(NOW + MAX_AHEAD_SECONDS * 1000), NOW, day).ok).toBe(true);
		expect(checkTimestamp(iso(NOW + MAX_AHEAD_SECONDS * 1000 + 1), NOW, day)).toEqual({
			ok: false,
			reason: 'tooFarAhead',
		});
	});

	it('refuses a delivery dated 2001 under the default window', () => {
		expect(checkTimestamp('2001-09-09T01:46:40Z', NOW, 3600)).toEqual({
			ok: false,
			reason: 'tooOld',
		});
	});

	it('reads offsets other than Z', () => {
		expect(checkTimestamp('2026-03-01T13:00:00+01:00', NOW, 1)).toEqual({ ok: true, atMs: NOW });
		expect(checkTimestamp('2026-03-01T07:00:00-0500', NOW, 1)).toEqual({ ok: true, atMs: NOW });
		expect(checkTimestamp('2026-03-01T12:00Z', NOW, 1)).toEqual({ ok: true, atMs: NOW });
	});

	it.each([undefined, null, ''])('says %p is missing', (value) => {
		expect(checkTimestamp(value, NOW, 300)).toEqual({ ok: false, reason: 'missing' });
	});

	it.each([
		['no offset (ambiguous)', '2026-03-01T12:00:00'],
		['a date only', '2026-03-01'],
		['epoch seconds', NOW / 1000],
		['an impossible date', '2026-02-30T25:61:00Z'],
		['words', 'yesterday'],
		['an object', { at: iso(NOW) }],
	])('refuses %s as malformed', (_label, value) => {
		expect(checkTimestamp(value, NOW, 300)).toEqual({ ok: false, reason: 'malformed' });
	});
});

describe('eventKey', () => {
	const body = (payload: unknown) => JSON.stringify(payload);
	const completed = {
		event: 'call.completed',
		timestamp: iso(NOW),
		data: { call_id: 'ucall_1', duration: 60 },
	};

	it('is the same for the same event about the same call, whatever the bytes', () => {
		const again = {
			data: { duration: 60, call_id: 'ucall_1' },
			timestamp: iso(NOW),
			event: 'call.completed',
		};
		expect(eventKey(again, JSON.stringify(again, null, 2))).toBe(
			eventKey(completed, body(completed)),
		);
	});

	it('differs for another event, call or message', () => {
		const keys = new Set([
			eventKey(completed, body(completed)),
			eventKey({ ...completed, event: 'call.failed' }, ''),
			eventKey({ ...completed, data: { call_id: 'ucall_2' } }, ''),
			eventKey({ event: 'sms.delivered', data: { message_id: 'ucall_1' } }, ''),
			eventKey({ event: 'sms.delivered', data: { message_id: 'usms_1' } }, ''),
		]);
		expect(keys.size).toBe(5);
	});

	it('falls back to the exact bytes when the event names no call or message', () => {
		const payload = { event: 'call.completed', timestamp: iso(NOW), data: {} };
		expect(eventKey(payload, body(payload))).toBe(eventKey(payload, Buffer.from(body(payload))));
		expect(eventKey(payload, body(payload))).not.toBe(
			eventKey(payload, body({ ...payload, timestamp: iso(NOW + 1) })),
		);
	});

	it('is short and carries nothing of the payload', () => {
		const key = eventKey(completed, body(completed));
		expect(key).toMatch(new RegExp(`^[A-Za-z0-9_-]{${KEY_LENGTH}}$`));
	});
});

describe('ReplayRegistry', () => {
	const WINDOW = 60;
	const claim = (
		registry: ReplayRegistry,
		key: string,
		{
			scope = 's',
			nowMs = NOW,
			expiresAtMs = NOW + WINDOW * 1000,
			stored = {} as unknown,
			windowSeconds = WINDOW,
		} = {},
	) => registry.claim({ scope, key, expiresAtMs, nowMs, windowSeconds, stored });
	const key = (n: number | string) => eventKey({}, `event ${n}`);
	const kindOf = (result: ClaimResult) => result.kind;
	const remembered = (result: ClaimResult): RememberedEvents => {
		if (result.kind !== 'taken') throw new Error(`not taken: ${result.kind}`);
		return result.remembered;
	};
	const keysOf = (store: RememberedEvents) =>
		Object.values(store.b)
			.join('')
			.match(new RegExp(`.{${KEY_LENGTH}}`, 'g')) ?? [];

	it('takes an event once; a repeat inside the window is a duplicate', () => {
		const registry = new ReplayRegistry();
		expect(kindOf(claim(registry, key('a')))).toBe('taken');
		expect(kindOf(claim(registry, key('a')))).toBe('duplicate');
		expect(kindOf(claim(registry, key('b')))).toBe('taken');
	});

	it('keeps triggers apart (workflow, node, test or production)', () => {
		const registry = new ReplayRegistry();
		for (const scope of [
			'wf1\u0000node\u0000production',
			'wf1\u0000node\u0000test',
			'wf2\u0000node',
		])
			expect(kindOf(claim(registry, key('a'), { scope }))).toBe('taken');
	});

	it('forgets an event once its bucket has ended, never before its own expiry', () => {
		const registry = new ReplayRegistry();
		claim(registry, key('a'), { expiresAtMs: NOW + 1000 });
		const end = bucketEnd(NOW + 1000, WINDOW) * 1000;
		expect(end).toBeGreaterThanOrEqual(NOW + 1000);
		expect(kindOf(claim(registry, key('a'), { nowMs: end - 1 }))).toBe('duplicate');
		expect(kindOf(claim(registry, key('a'), { nowMs: end, expiresAtMs: end + 5000 }))).toBe(
			'taken',
		);
	});

	it('counts what static data remembers, and returns everything still remembered to save', () => {
		const registry = new ReplayRegistry();
		const other = new ReplayRegistry();
		claim(registry, key('mine'));
		const theirs = remembered(claim(other, key('theirs')));
		const result = remembered(claim(registry, key('new'), { stored: theirs }));
		expect(keysOf(result).sort()).toEqual([key('mine'), key('theirs'), key('new')].sort());
		expect(kindOf(claim(registry, key('theirs')))).toBe('duplicate');
	});

	it('stores 12 characters per event, in a few buckets, and prunes ended buckets whole', () => {
		const registry = new ReplayRegistry();
		let store: RememberedEvents | undefined;
		for (let i = 0; i < 1000; i++)
			store = remembered(
				claim(registry, key(i), { nowMs: NOW + i * 100, expiresAtMs: NOW + i * 100 + 60_000 }),
			);
		expect(Object.keys(store!.b).length).toBeLessThanOrEqual(18);
		expect(JSON.stringify(store).length).toBeLessThan(1000 * KEY_LENGTH + 18 * 20 + 20);
		const later = remembered(
			claim(registry, key('late'), { nowMs: NOW + 170_000, expiresAtMs: NOW + 230_000 }),
		);
		expect(keysOf(later)).toEqual([key('late')]);
	});

	it.each([null, 'text', 42, ['a'], undefined, { v: 2, b: { '9999999999': 'short' } }])(
		'ignores static data it cannot read (%p)',
		(stored) => {
			expect(kindOf(claim(new ReplayRegistry(), key('a'), { stored }))).toBe('taken');
		},
	);

	it('reads the format before this one (32 hex digits to an expiry), so an upgrade forgets nothing', () => {
		const hex = '2d711642b726b04401627ca9fbac32f5';
		const buckets = storedBuckets(
			{ [hex]: NOW + 10_000, stale: NOW + 10_000, old: 1 },
			NOW,
			WINDOW,
		);
		expect([...buckets.values()]).toEqual(['LXEWQrcmsEQB']);
		expect(
			kindOf(claim(new ReplayRegistry(), 'LXEWQrcmsEQB', { stored: { [hex]: NOW + 10_000 } })),
		).toBe('duplicate');
	});

	it('when full of events still inside the window, takes nothing more and says when to retry; nothing is forgotten', () => {
		const registry = new ReplayRegistry(3);
		for (const k of ['a', 'b', 'c']) expect(kindOf(claim(registry, key(k)))).toBe('taken');
		const full = claim(registry, key('d'), { nowMs: NOW + 1000 });
		expect(full).toEqual({
			kind: 'full',
			held: 3,
			retryAfterSeconds: bucketEnd(NOW + WINDOW * 1000, WINDOW) - (NOW + 1000) / 1000,
		});
		// The oldest is still remembered: its replay is caught, not accepted.
		expect(kindOf(claim(registry, key('a'), { nowMs: NOW + 1000 }))).toBe('duplicate');
		// Once the window has passed, there is room again.
		const after = bucketEnd(NOW + WINDOW * 1000, WINDOW) * 1000;
		expect(kindOf(claim(registry, key('d'), { nowMs: after, expiresAtMs: after + 60_000 }))).toBe(
			'taken',
		);
	});

	it(`holds ${MAX_REMEMBERED_EVENTS} events per trigger by default`, () => {
		const registry = new ReplayRegistry();
		let last: ClaimResult | undefined;
		for (let i = 0; i <= MAX_REMEMBERED_EVENTS; i++) last = claim(registry, key(i));
		expect(registry.size('s')).toBe(MAX_REMEMBERED_EVENTS);
		expect(last?.kind).toBe('full');
	});

	it('drops a trigger whose events have all expired', () => {
		const registry = new ReplayRegistry();
		claim(registry, key('a'), { scope: 'old', expiresAtMs: NOW + 10 });
		claim(registry, key('b'), { scope: 'other', nowMs: NOW + 120_000, expiresAtMs: NOW + 180_000 });
		expect(registry.size('old')).toBe(0);
	});

	it('agrees with a simple model over random sequences of deliveries', () => {
		const delivery = fc.record({
			name: fc.constantFrom('a', 'b', 'c'),
			scope: fc.constantFrom('x', 'y'),
			step: fc.integer({ min: 0, max: 40_000 }),
			life: fc.integer({ min: 1, max: WINDOW * 1000 }),
		});
		fc.assert(
			fc.property(fc.array(delivery, { maxLength: 60 }), (deliveries) => {
				const registry = new ReplayRegistry();
				// The model remembers each event until the end of its bucket, no shorter.
				const model = new Map<string, number>();
				let now = NOW;
				for (const { name, scope, step, life } of deliveries) {
					now += step;
					const id = `${scope}/${name}`;
					const expected = (model.get(id) ?? -Infinity) > now ? 'duplicate' : 'taken';
					const result = claim(registry, key(name), {
						scope,
						expiresAtMs: now + life,
						nowMs: now,
					});
					if (result.kind !== expected) return false;
					if (expected === 'taken') model.set(id, bucketEnd(now + life, WINDOW) * 1000);
				}
				return true;
			}),
			{ numRuns: 2000 },
		);
	});
});

/**
 * n8n's rules for a live webhook's static data: loaded from the database when the request
 * arrives, saved whole after the node ran if it changed. Each registry stands for one n8n
 * process (a main, or one of several webhook processes in queue mode).
 */
describe('across n8n processes, through static data', () => {
	class Database {
		stored: unknown = undefined;
		load(): unknown {
			return this.stored === undefined ? undefined : JSON.parse(JSON.stringify(this.stored));
		}
		save(result: ClaimResult): void {
			if (result.kind === 'taken') this.stored = JSON.parse(JSON.stringify(result.remembered));
		}
		keys(): string[] {
			const store = this.stored as RememberedEvents;
			return (Object.values(store.b).join('').match(/.{12}/g) ?? []).sort();
		}
	}

	const deliver = (process: ReplayRegistry, loaded: unknown, key: string, nowMs = NOW) =>
		process.claim({
			scope: 'wf\u0000trigger\u0000production',
			key,
			expiresAtMs: NOW + 300_000,
			nowMs,
			windowSeconds: 300,
			stored: loaded,
		});
	const [A, B] = [eventKey({}, 'a'), eventKey({}, 'b')];

	it('two deliveries at once in one process: the second is a duplicate, and both events stay saved', () => {
		const db = new Database();
		const main = new ReplayRegistry();
		const [first, second, other] = [db.load(), db.load(), db.load()]; // all loaded before any save
		const a = deliver(main, first, A);
		const b = deliver(main, second, A);
		const c = deliver(main, other, B);
		expect([a.kind, b.kind, c.kind]).toEqual(['taken', 'duplicate', 'taken']);
		db.save(a);
		db.save(c); // last writer wins, and still holds A
		expect(db.keys()).toEqual([A, B].sort());
	});

	it('a repeat reaching another process after the first was saved is a duplicate', () => {
		const db = new Database();
		const one = new ReplayRegistry();
		const two = new ReplayRegistry();
		db.save(deliver(one, db.load(), A));
		expect(deliver(two, db.load(), A, NOW + 1000).kind).toBe('duplicate');
	});

	it('two processes appending to the same bucket: each save carries both', () => {
		const db = new Database();
		const one = new ReplayRegistry();
		const two = new ReplayRegistry();
		db.save(deliver(one, db.load(), A));
		const loaded = db.load();
		db.save(deliver(one, loaded, eventKey({}, 'c')));
		db.save(deliver(two, loaded, B)); // lost the first's write...
		db.save(deliver(one, db.load(), eventKey({}, 'd'))); // ...which the next save of one repairs
		expect(db.keys()).toEqual([A, B, eventKey({}, 'c'), eventKey({}, 'd')].sort());
	});

	it('after a restart, static data still knows the events of the window', () => {
		const db = new Database();
		db.save(deliver(new ReplayRegistry(), db.load(), A));
		expect(deliver(new ReplayRegistry(), db.load(), A, NOW + 299_000).kind).toBe('duplicate');
	});

	it('the limit: two deliveries at once reaching two processes both start the workflow', () => {
		const db = new Database();
		const [loadedByOne, loadedByTwo] = [db.load(), db.load()];
		expect(deliver(new ReplayRegistry(), loadedByOne, A).kind).toBe('taken');
		expect(deliver(new ReplayRegistry(), loadedByTwo, A).kind).toBe('taken');
	});
});

describe('eventIdOf', () => {
	it('names the event and the call or message it is about, the same for every copy however serialised', () => {
		const completed = { event: 'call.completed', timestamp: 'x', data: { call_id: 'ucall_1' } };
		expect(eventIdOf(completed, JSON.stringify(completed))).toBe('call.completed:ucall_1');
		expect(eventIdOf(completed, JSON.stringify(completed, null, 2))).toBe('call.completed:ucall_1');
		expect(eventIdOf({ event: 'sms.failed', data: { message_id: 'usms_2' } }, '')).toBe(
			'sms.failed:usms_2',
		);
	});
	it('without such an id, the hash of the exact bytes', () => {
		const body = '{"event":"email.bounced","data":{}}';
		expect(eventIdOf(JSON.parse(body), body)).toBe(
			`sha256:${createHash('sha256').update(body).digest('hex')}`,
		);
		expect(eventIdOf(JSON.parse(body), Buffer.from(body))).toBe(eventIdOf(JSON.parse(body), body));
	});
});
