/**
 * Skip If Sent Within's matching (nodes/CommsAccount/api/earlierSms.ts) against a simple model: the
 * earlier SMS that count are those sent (or without a direction), dated inside the window, with a
 * recipient and a text; each stands for at most one item, the oldest first; so of N items of one
 * recipient and text after E such SMS, min(N, E) are skipped.
 */
import fc from 'fast-check';

import { EarlierSms, skippedOutput, skipWindow } from '../../nodes/CommsAccount/api/earlierSms';

const T0 = Date.parse('2026-11-27T10:00:00.000Z');
/** The API's clock as n8n's, to the millisecond. */
const sameClock = { since: (wallMs: number) => wallMs, madeAfter: (wallMs: number) => wallMs };
const window = skipWindow(sameClock, T0, 60);

describe('skipWindow', () => {
	it('ends when the execution began and reaches the given minutes back, on the API clock', () => {
		expect(window).toEqual({ fromMs: T0 - 3_600_000, beforeMs: T0 });
		expect(skipWindow(sameClock, T0, 0.5)).toEqual({ fromMs: T0 - 30_000, beforeMs: T0 });
		// A clock known only within 3 s either way: the window starts early enough to take in
		// everything sent in the minutes, and ends early enough to leave out what was made after.
		const loose = { since: (w: number) => w - 3_000, madeAfter: (w: number) => w - 3_000 };
		expect(skipWindow(loose, T0, 60)).toEqual({ fromMs: T0 - 3_603_000, beforeMs: T0 - 3_000 });
	});
});

const TO = ['+447700900301', '+447700900302', '+447700900303'];
const TEXT = ['Hi', 'Hi ', 'Your order'];

const record = fc.record({
	to: fc.integer({ min: 0, max: 2 }),
	text: fc.integer({ min: 0, max: 2 }),
	// Minutes from T0: -70 to +10 (before the window, inside it, after the execution began).
	minute: fc.integer({ min: -70, max: 10 }),
	direction: fc.constantFrom('sent', 'sent', 'received', undefined),
	dated: fc.boolean(),
});

describe('EarlierSms', () => {
	it('each earlier SMS stands for one item, and only one in the window that was sent to that recipient with that text', () => {
		fc.assert(
			fc.property(
				fc.array(record, { maxLength: 30 }),
				fc.array(
					fc.record({ to: fc.integer({ min: 0, max: 2 }), text: fc.integer({ min: 0, max: 2 }) }),
					{
						maxLength: 30,
					},
				),
				(records, items) => {
					const history = records.map((r, i) => ({
						id: `SM${i}`,
						messageId: `SM${i}`,
						toNumber: TO[r.to],
						body: TEXT[r.text],
						...(r.direction ? { direction: r.direction } : {}),
						...(r.dated ? { sentAt: new Date(T0 + r.minute * 60_000).toISOString() } : {}),
					}));
					const earlier = new EarlierSms([null, 'junk', ...history], window);
					const taken = new Set<string>();
					const got = items.map((item) => earlier.take(TO[item.to], TEXT[item.text], taken));
					// Model: eligible records per pair, oldest first.
					const eligible = (to: number, text: number) =>
						records
							.map((r, i) => ({ ...r, i }))
							.filter(
								(r) =>
									r.to === to &&
									r.text === text &&
									r.direction !== 'received' &&
									r.dated &&
									r.minute >= -60 &&
									r.minute < 0,
							)
							.sort((a, b) => a.minute - b.minute || a.i - b.i);
					const used = new Map<string, number>();
					items.forEach((item, n) => {
						const key = `${item.to}|${item.text}`;
						const k = used.get(key) ?? 0;
						const candidates = eligible(item.to, item.text);
						if (k < candidates.length) {
							expect(got[n]?.id).toBe(`SM${candidates[k].i}`);
							used.set(key, k + 1);
						} else expect(got[n]).toBeUndefined();
					});
					const ids = got.filter(Boolean).map((r) => r!.id);
					expect(new Set(ids).size).toBe(ids.length);
				},
			),
			{ numRuns: 500 },
		);
	});

	it('a record taken by one read is not taken again by another read of the same run', () => {
		const sms = {
			id: 'SM1',
			toNumber: TO[0],
			body: 'Hi',
			direction: 'sent',
			sentAt: new Date(T0 - 60_000).toISOString(),
		};
		const taken = new Set<string>();
		expect(new EarlierSms([sms], window).take(TO[0], 'Hi', taken)?.id).toBe('SM1');
		expect(new EarlierSms([sms], window).take(TO[0], 'Hi', taken)).toBeUndefined();
	});
});

describe('skippedOutput', () => {
	it('the send result as the record gives it, skipped, and in words what was found', () => {
		const output = skippedOutput(
			{
				id: 'rec1',
				messageId: 'SM9',
				status: 'delivered',
				fromNumber: '+447700900001',
				toNumber: TO[0],
				segments: 2,
				sentAt: '2026-11-27T09:58:00.000Z',
			},
			{ phoneDocId: 'pdoc_main', to: TO[0] },
			60,
			1,
		);
		expect(output).toEqual({
			messageId: 'SM9',
			status: 'delivered',
			from: '+447700900001',
			to: TO[0],
			phoneDocId: 'pdoc_main',
			segmentsUsed: 2,
			sentAt: '2026-11-27T09:58:00.000Z',
			skipped: true,
			skippedBecause:
				"Already sent: the SMS history holds an SMS from this number to +447700900301 with exactly this text, sent at 2026-11-27T09:58:00.000Z (message SM9), in the 60 minutes before this execution's first SMS Send (Skip If Sent Within). So it was not sent again. To send it anyway, set Skip If Sent Within to 0.",
		});
	});
});
