/**
 * The Comms Unified node's money arithmetic, apart from n8n: prices from the spec's table and
 * the Spending Cap's ledger.
 */
import fc from 'fast-check';

import {
	formatPence,
	priceOf,
	smsCount,
	toUnits,
	VOICE_MINUTES_COUNTED,
} from '../../nodes/CommsUnified/api/pricing';
import { SpendingLedger } from '../../nodes/CommsUnified/spending';

describe("prices from the spec's table", () => {
	it('SMS: 3p per started 160 characters, counted as a person counts them', () => {
		expect(priceOf('sms', { message: 'hi' }).units).toBe(toUnits(3));
		expect(priceOf('sms', { message: 'x'.repeat(160) }).units).toBe(toUnits(3));
		expect(priceOf('sms', { message: 'x'.repeat(161) }).units).toBe(toUnits(6));
		expect(smsCount('😀'.repeat(160))).toBe(1);
		expect(priceOf('sms', { message: 'x'.repeat(161) }).basis).toBe(
			'6p: 2 SMS (one per started 160 characters) at 3p',
		);
	});

	it('email 0.15p, exact in units; AI chat 15p', () => {
		expect(priceOf('email', {}).units).toBe(15);
		expect(3 * priceOf('email', {}).units).toBe(45);
		expect(priceOf('ai', {}).units).toBe(toUnits(15));
	});

	it('a voice call of unknown length is counted as 10 minutes at 7p, or more if the API reports more', () => {
		expect(VOICE_MINUTES_COUNTED).toBe(10);
		const price = priceOf('voice', { message: 'short' });
		expect(price.units).toBe(toUnits(70));
		expect(price.basis).toMatch(
			/^70p: a voice call costs 7p a minute .* counted as 10 minutes, or as the cost the API reports when that is higher$/,
		);
		expect(price.provisional).toBe(true);
		expect(priceOf('sms', { message: 'short' }).provisional).toBeUndefined();
	});

	it('formats pence as the API does, with pounds beside large amounts', () => {
		expect(formatPence(toUnits(3))).toBe('3p');
		expect(formatPence(toUnits(0.45))).toBe('0.45p');
		expect(formatPence(toUnits(105))).toBe('105p (£1.05)');
	});
});

describe('the Spending Cap ledger', () => {
	it('a provisional cost (a call reported at 0 when placed) counts at no less than its estimate', async () => {
		const ledger = new SpendingLedger();
		const calls = [];
		for (let i = 0; i < 20; i++) {
			const decision = await ledger.reserve(7000, 15000);
			if (decision.kind !== 'go') break;
			decision.reservation.settle({ kind: 'charged', units: 0, provisional: true });
			calls.push(i);
		}
		expect(calls).toHaveLength(2);
		expect(ledger.spentUnits).toBe(14000);
		// A higher reported cost wins over the estimate.
		const more = new SpendingLedger();
		const decision = await more.reserve(7000, 100000);
		if (decision.kind === 'go')
			decision.reservation.settle({ kind: 'charged', units: 9100, provisional: true });
		expect(more.spentUnits).toBe(9100);
	});

	it('lets items through while they fit, then refuses, counting what the API reported', async () => {
		const ledger = new SpendingLedger();
		const first = await ledger.reserve(300, 1000);
		expect(first.kind).toBe('go');
		if (first.kind === 'go') first.reservation.settle({ kind: 'charged', units: 300 });
		const second = await ledger.reserve(700, 1000);
		expect(second.kind).toBe('go');
		if (second.kind === 'go') second.reservation.settle({ kind: 'charged', units: 700 });
		expect(await ledger.reserve(1, 1000)).toEqual({
			kind: 'refused',
			priceUnits: 1,
			spentUnits: 1000,
			capUnits: 1000,
		});
	});

	it('with no cap, or a free item, everything goes', async () => {
		const ledger = new SpendingLedger();
		expect((await ledger.reserve(1e9, undefined)).kind).toBe('go');
		expect((await ledger.reserve(0, 0)).kind).toBe('go');
	});

	it('an item that fits only if a request in flight turns out cheaper waits for its answer', async () => {
		const ledger = new SpendingLedger();
		const call = await ledger.reserve(7000, 10000); // a voice call counted as 70p
		if (call.kind !== 'go') throw new Error('expected go');
		let decided: string | undefined;
		const next = ledger.reserve(7000, 10000).then((d) => (decided = d.kind));
		await Promise.resolve();
		expect(decided).toBeUndefined();
		call.reservation.settle({ kind: 'charged', units: 700 }); // it cost 7p
		await next;
		expect(decided).toBe('go');
		expect(ledger.spentUnits).toBe(700);
		expect(ledger.inFlightUnits).toBe(7000);
	});

	it('a refusal releases its estimate; an unknown outcome keeps it', async () => {
		const ledger = new SpendingLedger();
		const a = await ledger.reserve(300, 600);
		const b = await ledger.reserve(300, 600);
		if (a.kind !== 'go' || b.kind !== 'go') throw new Error('expected go');
		a.reservation.settle({ kind: 'notCharged' });
		b.reservation.settle({ kind: 'unknown' });
		b.reservation.settle({ kind: 'charged', units: 0 }); // settles once only
		expect(ledger.spentUnits).toBe(300);
		expect(ledger.inFlightUnits).toBe(0);
	});

	it("keeps the spend in the store it is given (the execution's record), so a new ledger on it after a park carries on", async () => {
		const store: { spentUnits?: unknown } = {};
		const before = new SpendingLedger(store);
		for (const price of [300, 300]) {
			const decision = await before.reserve(price, 900);
			if (decision.kind === 'go') decision.reservation.settle({ kind: 'charged', units: price });
		}
		const saved = JSON.parse(JSON.stringify(store)) as typeof store;
		expect(saved).toEqual({ spentUnits: 600 });
		const after = new SpendingLedger(saved);
		const third = await after.reserve(300, 900);
		if (third.kind !== 'go') throw new Error('expected go');
		third.reservation.settle({ kind: 'charged', units: 300 });
		expect(await after.reserve(300, 900)).toMatchObject({ kind: 'refused', spentUnits: 900 });
		expect(saved).toEqual({ spentUnits: 900 });
		// Whatever a store holds that is not a spend counts as nothing spent.
		expect(new SpendingLedger({ spentUnits: 'lots' }).spentUnits).toBe(0);
	});

	it('never lets the spend go above the cap when every answer costs at most its estimate (any order, any concurrency)', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.integer({ min: 0, max: 5000 }),
				fc.array(
					fc.record({
						price: fc.integer({ min: 1, max: 1000 }),
						charged: fc.double({ min: 0, max: 1, noNaN: true }),
						outcome: fc.constantFrom('charged', 'notCharged', 'unknown'),
					}),
					{ maxLength: 40 },
				),
				fc.scheduler(),
				async (cap, items, s) => {
					const ledger = new SpendingLedger();
					let spentForReal = 0;
					const all = Promise.all(
						items.map(async (item) => {
							const decision = await s
								.schedule(Promise.resolve())
								.then(() => ledger.reserve(item.price, cap));
							if (decision.kind === 'refused') return;
							await s.schedule(Promise.resolve());
							if (item.outcome === 'charged') {
								const units = Math.floor(item.price * item.charged);
								spentForReal += units;
								decision.reservation.settle({ kind: 'charged', units });
							} else if (item.outcome === 'unknown') {
								spentForReal += item.price;
								decision.reservation.settle({ kind: 'unknown' });
							} else decision.reservation.settle({ kind: 'notCharged' });
							expect(spentForReal).toBeLessThanOrEqual(cap);
						}),
					);
					await s.waitFor(all);
					expect(spentForReal).toBeLessThanOrEqual(cap);
					expect(ledger.spentUnits).toBe(spentForReal);
					expect(ledger.inFlightUnits).toBe(0);
				},
			),
			{ numRuns: 200 },
		);
	});
});
