/**
 * Phone numbers as people type them ("07700 900123", "+44 7700 900123", "(020) 7946-0018")
 * normalised to E.164.
 *
 * The gate is libphonenumber's `isPossible` (length and shape for the country), not
 * `isValid`: the server decides which ranges exist, and `isValid` rejects real test ranges
 * (Ofcom's +44 7700 900xxx) and ranges newer than its metadata.
 */
import { getCountries, parsePhoneNumberWithError, ParseError, type CountryCode, type PhoneNumber } from 'libphonenumber-js/min';

export class PhoneNumberError extends Error {
	constructor(
		message: string,
		readonly parameter: string,
		readonly value: string,
	) {
		super(message);
		this.name = 'PhoneNumberError';
	}
}

/** What a person may type around the digits; letters and other symbols are refused. */
const TYPED_NUMBER = /^\+?[\d\s().\-/]+$/;

const COUNTRIES = new Set<string>(getCountries());

export function isCountryCode(value: string): value is CountryCode {
	return COUNTRIES.has(value);
}

export interface PhoneOptions {
	/** The parameter's display name, used in messages. */
	parameter: string;
	/** ISO 3166 alpha-2 country for numbers typed without a country code; empty: must be international. */
	defaultCountry?: string;
}

export function normalisePhoneNumber(input: unknown, { parameter, defaultCountry }: PhoneOptions): string {
	const raw = typeof input === 'number' ? String(input) : typeof input === 'string' ? input : '';
	const value = raw.trim();
	const fail = (why: string): never => {
		throw new PhoneNumberError(`${parameter} "${value}" is not a phone number: ${why}`, parameter, value);
	};
	if (!value) fail('it is empty');
	let text = value;
	if (text.startsWith('00')) text = `+${text.slice(2)}`;
	if (!TYPED_NUMBER.test(text)) fail('use digits, spaces and an optional leading +, with no letters or extensions');

	const country = defaultCountry?.trim().toUpperCase() || undefined;
	if (country && !isCountryCode(country)) {
		throw new PhoneNumberError(
			`Default Country "${defaultCountry}" is not an ISO 3166 two-letter country code (for example GB, US, DE)`,
			'Default Country',
			defaultCountry ?? '',
		);
	}
	if (!text.startsWith('+') && !country) {
		fail('it has no country code. Type it in international form (+44 7700 900123) or set the Default Country option');
	}
	const parsed = parse(text, country as CountryCode | undefined);
	if ('failure' in parsed) return fail(parsed.failure);
	if (!parsed.number.isPossible()) fail('it has the wrong number of digits for its country');
	return parsed.number.number;
}

const PARSE_FAILURES: Record<string, string> = {
	INVALID_COUNTRY: 'its country code is unknown',
	NOT_A_NUMBER: 'it does not look like a phone number',
	TOO_SHORT: 'it is too short',
	TOO_LONG: 'it is too long',
	INVALID_LENGTH: 'it has the wrong number of digits for its country',
};

/** libphonenumber's parse, with its ParseError turned into our reason. */
function parse(text: string, country: CountryCode | undefined): { number: PhoneNumber } | { failure: string } {
	try {
		return { number: parsePhoneNumberWithError(text, country) };
	} catch (error) {
		const reason = error instanceof ParseError ? error.message : 'it could not be read';
		return { failure: PARSE_FAILURES[reason] ?? reason };
	}
}
