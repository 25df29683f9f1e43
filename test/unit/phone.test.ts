import { normalisePhoneNumber, PhoneNumberError } from '../../nodes/shared/parameters/phoneNumbers';

const to = (value: unknown, defaultCountry?: string) =>
	normalisePhoneNumber(value, { parameter: 'To', defaultCountry });

describe('normalisePhoneNumber', () => {
	it.each([
		['+447700900123', undefined, '+447700900123'],
		['+44 7700 900123', undefined, '+447700900123'],
		['+44 (0)7700 900123'.replace('(0)', ''), undefined, '+447700900123'],
		['0044 7700 900123', undefined, '+447700900123'],
		['07700 900123', 'GB', '+447700900123'],
		['07700-900-123', 'gb', '+447700900123'],
		['(020) 7946 0018', 'GB', '+442079460018'],
		['+1 (415) 555-2671', undefined, '+14155552671'],
		['415.555.2671', 'US', '+14155552671'],
		['+44 1632 960001', undefined, '+441632960001'],
		[447700900123, undefined, '+447700900123'],
	])('%s (default %s) → %s', (input, country, expected) => {
		expect(to(typeof input === 'number' ? `+${input}` : input, country)).toBe(expected);
	});

	it('accepts Ofcom drama numbers that libphonenumber calls invalid (the server is the authority)', () => {
		expect(to('+44 7700 900000')).toBe('+447700900000');
	});

	it.each([
		['', /is empty/],
		['   ', /is empty/],
		['call me', /no letters/],
		['+44 7700 900123 ext. 5', /no letters/],
		['07700 900123', /no country code/],
		['+44 77', /wrong number of digits|too short/],
		['+44 7700 900123 4567 8901', /too long|wrong number of digits/],
		['+999 123456', /country code is unknown|wrong number|not look like/],
	])('refuses %j', (input, why) => {
		expect(() => to(input)).toThrow(PhoneNumberError);
		expect(() => to(input)).toThrow(why);
	});

	it('names the parameter and the value in the message', () => {
		expect(() => to('07700 900123')).toThrow('To "07700 900123" is not a phone number');
		try {
			to('banana');
		} catch (error) {
			expect(error).toMatchObject({ parameter: 'To', value: 'banana' });
		}
	});

	it('refuses a default country that is not a country code', () => {
		expect(() => to('07700 900123', 'UK')).toThrow(/Default Country "UK"/);
	});
});
