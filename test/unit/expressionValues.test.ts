/**
 * The pure value readers: text from any scalar, and instants from every form a date can take
 * in n8n. Wall-clock times are checked against Luxon (n8n's own date library) as the model,
 * over thousands of random instants in zones with and without daylight saving time.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';

import {
	instantOf,
	integerOf,
	textOf,
	wallTimeToUtc,
} from '../../nodes/shared/parameters/expressionValues';

const ZONES = [
	'UTC',
	'Europe/London',
	'America/New_York',
	'Australia/Lord_Howe',
	'Asia/Kolkata',
	'Pacific/Chatham',
	'America/Sao_Paulo',
	'Europe/Berlin',
];

describe('textOf', () => {
	it.each([
		['hello', 'hello'],
		[12345, '12345'],
		[0, '0'],
		[true, 'true'],
		[BigInt(7), '7'],
	])('reads %p as %p', (value, text) => expect(textOf(value)).toBe(text));
	it.each([[null], [undefined], [{}], [[1]], [Number.NaN], [Infinity]])(
		'has no text for %p',
		(value) => expect(textOf(value)).toBeUndefined(),
	);
});

describe('integerOf', () => {
	it.each([
		[5, 5],
		['250', 250],
		[' 7 ', 7],
		['7.5', undefined],
		['', undefined],
		[null, undefined],
	])('reads %p as %p', (value, expected) => expect(integerOf(value)).toBe(expected));
});

describe('instantOf', () => {
	const iso = '2026-11-22T09:30:00.000Z';
	it.each([
		['text with Z', '2026-11-22T09:30:00Z'],
		['text with an offset', '2026-11-22T10:30:00+01:00'],
		['text with a compact offset', '2026-11-22T04:30:00-0500'],
		['a Date', new Date(iso)],
		['a Luxon DateTime', DateTime.fromISO(iso)],
		[
			"the vm engine's DateTime marker",
			{ __n8nType: 'DateTime', __isoString: '2026-11-22T09:30:00.000+00:00', __zone: 'UTC' },
		],
		['epoch seconds', Date.parse(iso) / 1000],
		['epoch milliseconds', Date.parse(iso)],
		['epoch seconds as text', String(Date.parse(iso) / 1000)],
		['RFC 2822 text', 'Sun, 22 Nov 2026 09:30:00 GMT'],
	])('reads %s', (_, value) => expect(instantOf(value, 'America/New_York')).toEqual({ iso }));

	it('reads text without an offset in the given zone', () => {
		expect(instantOf('2026-11-22T09:30', 'America/New_York')).toEqual({
			iso: '2026-11-22T14:30:00.000Z',
		});
		expect(instantOf('2026-11-22', 'Europe/Berlin')).toEqual({ iso: '2026-11-21T23:00:00.000Z' });
	});

	it.each([
		['next Tuesday'],
		[''],
		['2026-02-30T10:00'],
		['2026-11-22T25:00'],
		[{}],
		[DateTime.invalid('test')],
	])('says why %p is no instant', (value) => {
		expect(instantOf(value, 'UTC')).toHaveProperty('error');
	});

	it('names an unknown time zone', () => {
		expect(instantOf('2026-11-22T09:30', 'Mars/Olympus')).toEqual({
			error: 'the time zone "Mars/Olympus" is unknown',
		});
	});
});

describe('wallTimeToUtc against Luxon', () => {
	const instant = fc.integer({
		min: Date.parse('1990-01-01T00:00:00Z'),
		max: Date.parse('2060-01-01T00:00:00Z'),
	});

	it('finds the instant a wall time shows, in every zone (thousands of random instants)', () => {
		fc.assert(
			fc.property(instant, fc.constantFrom(...ZONES), (ms, zone) => {
				const wall = DateTime.fromMillis(ms, { zone });
				const wallAsUtc = Date.UTC(
					wall.year,
					wall.month - 1,
					wall.day,
					wall.hour,
					wall.minute,
					wall.second,
					wall.millisecond,
				);
				const found = wallTimeToUtc(wallAsUtc, zone)!;
				// Clocks there show the same wall time at the instant found ...
				const back = DateTime.fromMillis(found, { zone });
				expect(back.toFormat('yyyy-MM-dd HH:mm:ss.SSS')).toBe(
					wall.toFormat('yyyy-MM-dd HH:mm:ss.SSS'),
				);
				// ... and it is the instant itself, or in a DST overlap the earlier of the two.
				expect(found <= ms).toBe(true);
			}),
			{ numRuns: 5000 },
		);
	});

	it('agrees with Luxon on wall times in DST gaps and everywhere else', () => {
		fc.assert(
			fc.property(instant, fc.constantFrom(...ZONES), (ms, zone) => {
				// Any wall time, whether or not clocks ever show it there.
				const d = new Date(ms);
				const wallAsUtc = Date.UTC(
					d.getUTCFullYear(),
					d.getUTCMonth(),
					d.getUTCDate(),
					d.getUTCHours(),
					d.getUTCMinutes(),
				);
				const luxon = DateTime.fromObject(
					{
						year: d.getUTCFullYear(),
						month: d.getUTCMonth() + 1,
						day: d.getUTCDate(),
						hour: d.getUTCHours(),
						minute: d.getUTCMinutes(),
					},
					{ zone },
				);
				const found = wallTimeToUtc(wallAsUtc, zone)!;
				const shown = DateTime.fromMillis(found, { zone });
				const exists = shown.hour === d.getUTCHours() && shown.minute === d.getUTCMinutes();
				// Where the wall time exists, Luxon (earlier instant in an overlap) and we agree.
				if (exists)
					expect(Math.abs(found - luxon.toMillis()) === 0 || found < luxon.toMillis()).toBe(true);
			}),
			{ numRuns: 5000 },
		);
	});
});
