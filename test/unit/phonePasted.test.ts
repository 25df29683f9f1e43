/**
 * Phone numbers as they arrive when pasted: Outlook, Teams and phones' contact cards wrap them
 * in invisible direction marks (U+202A…U+202E, U+2066…U+2069, U+200E/U+200F), word processors
 * put in no-break, thin and narrow spaces, typographic dashes and a byte-order mark, and
 * spreadsheets tabs. None of it changes which number was meant.
 */
import fc from 'fast-check';

import { normalisePhoneNumber, PhoneNumberError } from '../../nodes/shared/parameters/phoneNumbers';

const to = (value: unknown, defaultCountry?: string) =>
	normalisePhoneNumber(value, { parameter: 'To', defaultCountry });

/** Invisible formatting marks: removed wherever they are. */
const INVISIBLE = [
	'\u202A',
	'\u202B',
	'\u202C',
	'\u202D',
	'\u202E',
	'\u2066',
	'\u2067',
	'\u2068',
	'\u2069',
	'\u200E',
	'\u200F',
	'\uFEFF',
	'\u200B',
	'\u2060',
];
/** Separators that stand for a space or a dash. */
const SPACES = [' ', '\u00A0', '\u2009', '\u202F', '\t', '\u2007', '\u3000'];
const DASHES = ['-', '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212'];

describe('pasted phone numbers', () => {
	it.each([
		['\u202A+44 7700 900123\u202C', undefined, 'Outlook / Teams wrapping (LRE … PDF)'],
		['\u2066+44 7700 900123\u2069', undefined, 'isolates (LRI … PDI)'],
		['\u200E+44 7700 900123\u200E', undefined, 'left-to-right marks'],
		['\uFEFF+447700900123', undefined, 'a byte-order mark'],
		['+44\u202F7700\u202F900123', undefined, 'narrow no-break spaces'],
		['+44\u20097700\u2009900123', undefined, 'thin spaces'],
		['+44\u00A07700\u00A0900123', undefined, 'no-break spaces'],
		['+44\t7700\t900123', undefined, 'tabs'],
		['+44\u20137700\u2013900123', undefined, 'en dashes'],
		['+44\u22127700\u2212900123', undefined, 'minus signs'],
		['+44\u20107700\u2011900123', undefined, 'hyphen and non-breaking hyphen'],
		['(+44) 7700 900123', undefined, 'country code in brackets'],
		['(+44)7700 900123', undefined, 'country code in brackets, no space'],
		['( +44 ) 7700 900123', undefined, 'country code in spaced brackets'],
		['\u202A(+44)\u00A07700\u2013900\u2009123\u202C', undefined, 'all of it at once'],
		['07700\u202F900123', 'GB', 'a national number with a narrow space'],
		['\u202D07700 900123\u202C', 'GB', 'a national number wrapped in marks'],
		['\u2068\u200F0044 7700 900123', undefined, 'a 00 prefix behind marks'],
	])('%j with default country %s → +447700900123 (%s)', (input, country, _why) => {
		expect(to(input, country)).toBe('+447700900123');
	});

	it('quotes the value without the invisible marks in a message', () => {
		expect(() => to('\u202A07700 900123\u202C')).toThrow('To "07700 900123" is not a phone number');
	});

	it('still refuses letters and extensions hidden among marks', () => {
		expect(() => to('\u202A+44 7700 900123 ext 5\u202C')).toThrow(PhoneNumberError);
		expect(() => to('\u202A\u202C')).toThrow(/is empty/);
	});
});

/** Numbers in every form the node accepts, with the E.164 each means. */
const VALID: Array<[string, string | undefined, string]> = [
	['+447700900123', undefined, '+447700900123'],
	['+44 7700 900123', undefined, '+447700900123'],
	['0044 7700 900123', undefined, '+447700900123'],
	['07700 900123', 'GB', '+447700900123'],
	['(020) 7946 0018', 'GB', '+442079460018'],
	['+1 (415) 555-2671', undefined, '+14155552671'],
	['415.555.2671', 'US', '+14155552671'],
	['(+44) 1632 960001', undefined, '+441632960001'],
	['+49 30 901820', undefined, '+4930901820'],
	['+33 1 23 45 67 89', undefined, '+33123456789'],
];

/** Inserts each of `marks` at its position in `text` (positions taken modulo the length so far). */
function insertAll(text: string, marks: Array<[number, string]>): string {
	let out = text;
	for (const [at, mark] of marks) {
		const i = at % (out.length + 1);
		out = out.slice(0, i) + mark + out.slice(i);
	}
	return out;
}

describe('property: pasted formatting never changes the number', () => {
	const valid = fc.constantFrom(...VALID);

	it('invisible marks inserted anywhere, any number of them', () => {
		fc.assert(
			fc.property(
				valid,
				fc.array(fc.tuple(fc.nat(), fc.constantFrom(...INVISIBLE)), { maxLength: 12 }),
				([input, country, expected], marks) => {
					expect(to(insertAll(input, marks), country)).toBe(expected);
				},
			),
			{ numRuns: 2000 },
		);
	});

	it('any kind of space for a space, any kind of dash for a dash, surrounding spaces, and marks on top', () => {
		fc.assert(
			fc.property(
				valid,
				fc.array(fc.constantFrom(...SPACES), { minLength: 16, maxLength: 16 }),
				fc.array(fc.constantFrom(...DASHES), { minLength: 16, maxLength: 16 }),
				fc.array(fc.tuple(fc.nat(), fc.constantFrom(...INVISIBLE)), { maxLength: 6 }),
				fc.constantFrom('', ' ', '\t', '\u00A0'),
				([input, country, expected], spaces, dashes, marks, around) => {
					let s = 0;
					let d = 0;
					const pasted = input
						.replace(/ /g, () => spaces[s++ % spaces.length])
						.replace(/-/g, () => dashes[d++ % dashes.length]);
					expect(to(`${around}${insertAll(pasted, marks)}${around}`, country)).toBe(expected);
				},
			),
			{ numRuns: 2000 },
		);
	});

	it('a separator (space or dash of any kind) between two digits of an international number', () => {
		const international = fc.constantFrom(...VALID.filter(([input]) => input.startsWith('+')));
		fc.assert(
			fc.property(
				international,
				fc.nat(),
				fc.constantFrom(...SPACES, ...DASHES),
				([input, country, expected], at, separator) => {
					const gaps = [...input.matchAll(/\d(?=\d)/g)].map((match) => match.index + 1);
					const i = gaps[at % gaps.length];
					expect(to(input.slice(0, i) + separator + input.slice(i), country)).toBe(expected);
				},
			),
			{ numRuns: 2000 },
		);
	});
});
