/**
 * The replay window of the Comms Unified Trigger as pure logic: the timestamp check, what makes
 * two deliveries the same event, and the registry that remembers events taken, in this process
 * and in static data. The last block plays n8n's static-data rules (load before the node runs,
 * save the whole object after) with two registries standing for two n8n processes, to show
 * exactly what holds across processes and what does not.
 */
import fc from 'fast-check';

import {
	checkTimestamp,
	eventKey,
	MAX_REMEMBERED_EVENTS,
	ReplayRegistry,
	type RememberedEvents,
} from '../../nodes/CommsUnifiedTrigger/replay';

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
		expect(key).toMatch(/^[0-9a-f]{32}$/);
	});
});

describe('ReplayRegistry', () => {
	const claim = (
		registry: ReplayRegistry,
		key: string,
		{ scope = 's', nowMs = NOW, expiresAtMs = NOW + 60_000, stored = {} as unknown } = {},
	) => registry.claim({ scope, key, expiresAtMs, nowMs, stored });

	it('takes an event once; a repeat inside the window is a duplicate', () => {
		const registry = new ReplayRegistry();
		expect(claim(registry, 'a').duplicate).toBe(false);
		expect(claim(registry, 'a').duplicate).toBe(true);
		expect(claim(registry, 'b').duplicate).toBe(false);
	});

	it('keeps triggers apart (workflow, node, test or production)', () => {
		const registry = new ReplayRegistry();
		expect(claim(registry, 'a', { scope: 'wf1\u0000node\u0000production' }).duplicate).toBe(false);
		expect(claim(registry, 'a', { scope: 'wf1\u0000node\u0000test' }).duplicate).toBe(false);
		expect(claim(registry, 'a', { scope: 'wf2\u0000node\u0000production' }).duplicate).toBe(false);
	});

	it('forgets an event once its window has passed', () => {
		const registry = new ReplayRegistry();
		claim(registry, 'a', { expiresAtMs: NOW + 1000 });
		expect(claim(registry, 'a', { nowMs: NOW + 999 }).duplicate).toBe(true);
		expect(claim(registry, 'a', { nowMs: NOW + 1000, expiresAtMs: NOW + 5000 }).duplicate).toBe(
			false,
		);
	});

	it('counts what static data remembers, and returns everything still remembered to save', () => {
		const registry = new ReplayRegistry();
		claim(registry, 'mine');
		const result = claim(registry, 'new', {
			stored: { theirs: NOW + 10_000, old: NOW - 1, junk: 'x' },
		});
		expect(result.duplicate).toBe(false);
		expect(result.remembered).toEqual({
			mine: NOW + 60_000,
			theirs: NOW + 10_000,
			new: NOW + 60_000,
		});
		expect(claim(registry, 'theirs').duplicate).toBe(true);
	});

	it.each([null, 'text', 42, ['a'], undefined])(
		'ignores static data that is not a map (%p)',
		(stored) => {
			expect(claim(new ReplayRegistry(), 'a', { stored }).duplicate).toBe(false);
		},
	);

	it(`remembers at most ${MAX_REMEMBERED_EVENTS} events per trigger, forgetting the oldest first`, () => {
		const registry = new ReplayRegistry(3);
		for (const key of ['a', 'b', 'c', 'd']) claim(registry, key);
		expect(registry.size('s')).toBe(3);
		expect(claim(registry, 'a').duplicate).toBe(false);
		expect(claim(registry, 'd').duplicate).toBe(true);
	});

	it('drops a trigger whose events have all expired', () => {
		const registry = new ReplayRegistry();
		claim(registry, 'a', { scope: 'old', expiresAtMs: NOW + 10 });
		claim(registry, 'b', { scope: 'other', nowMs: NOW + 20, expiresAtMs: NOW + 1000 });
		expect(registry.size('old')).toBe(0);
	});

	it('agrees with a simple model over random sequences of deliveries', () => {
		const delivery = fc.record({
			key: fc.constantFrom('a', 'b', 'c'),
			scope: fc.constantFrom('x', 'y'),
			step: fc.integer({ min: 0, max: 40_000 }),
			life: fc.integer({ min: 1, max: 60_000 }),
		});
		fc.assert(
			fc.property(fc.array(delivery, { maxLength: 60 }), (deliveries) => {
				const registry = new ReplayRegistry();
				const model = new Map<string, number>();
				let now = NOW;
				for (const { key, scope, step, life } of deliveries) {
					now += step;
					const id = `${scope}/${key}`;
					const expected = (model.get(id) ?? -Infinity) > now;
					const { duplicate } = registry.claim({
						scope,
						key,
						expiresAtMs: now + life,
						nowMs: now,
						stored: {},
					});
					if (duplicate !== expected) return false;
					if (!duplicate) model.set(id, now + life);
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
		stored: RememberedEvents = {};
		load(): RememberedEvents {
			return { ...this.stored };
		}
		save(remembered: RememberedEvents): void {
			this.stored = { ...remembered };
		}
	}

	const deliver = (process: ReplayRegistry, loaded: RememberedEvents, key: string, nowMs = NOW) =>
		process.claim({
			scope: 'wf\u0000trigger\u0000production',
			key,
			expiresAtMs: NOW + 300_000,
			nowMs,
			stored: loaded,
		});

	it('two deliveries at once in one process: the second is a duplicate, and both events stay saved', () => {
		const db = new Database();
		const main = new ReplayRegistry();
		const [first, second, other] = [db.load(), db.load(), db.load()]; // all loaded before any save
		const a = deliver(main, first, 'event-a');
		const b = deliver(main, second, 'event-a');
		const c = deliver(main, other, 'event-b');
		expect([a.duplicate, b.duplicate, c.duplicate]).toEqual([false, true, false]);
		db.save(a.remembered);
		db.save(c.remembered); // last writer wins, and still holds event-a
		expect(Object.keys(db.stored).sort()).toEqual(['event-a', 'event-b']);
	});

	it('a repeat reaching another process after the first was saved is a duplicate', () => {
		const db = new Database();
		const one = new ReplayRegistry();
		const two = new ReplayRegistry();
		db.save(deliver(one, db.load(), 'event-a').remembered);
		expect(deliver(two, db.load(), 'event-a', NOW + 1000).duplicate).toBe(true);
	});

	it('after a restart, static data still knows the events of the window', () => {
		const db = new Database();
		db.save(deliver(new ReplayRegistry(), db.load(), 'event-a').remembered);
		expect(deliver(new ReplayRegistry(), db.load(), 'event-a', NOW + 299_000).duplicate).toBe(true);
	});

	it('the limit: two deliveries at once reaching two processes both start the workflow', () => {
		const db = new Database();
		const [loadedByOne, loadedByTwo] = [db.load(), db.load()];
		expect(deliver(new ReplayRegistry(), loadedByOne, 'event-a').duplicate).toBe(false);
		expect(deliver(new ReplayRegistry(), loadedByTwo, 'event-a').duplicate).toBe(false);
	});
});
