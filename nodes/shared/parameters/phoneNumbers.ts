/**
 * Phone numbers as people type them ("07700 900123", "+44 7700 900123", "(020) 7946-0018")
 * normalised to E.164.
 *
 * The gate is libphonenumber's `isPossible` (length and shape for the country), not
 * `isValid`: the server decides which ranges exist, and `isValid` rejects real test ranges
 * (Ofcom's +44 7700 900xxx) and ranges newer than its metadata.
 */
import {
	getCountries,
	parsePhoneNumberWithError,
	ParseError,
	type CountryCode,
	type PhoneNumber,
} from './vendor/libphonenumber';
import { quotePrefix } from './expressionValues';

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

/**
 * Invisible formatting marks that ride along when a number is pasted: direction marks and
 * embeddings/isolates (Outlook, Teams and phones' contact cards wrap numbers in U+202A…U+202C
 * or U+2066…U+2069), zero-width characters, the word joiner, a byte-order mark, a soft hyphen.
 * They carry no digit, so they are removed wherever they are.
 */
const INVISIBLE_MARKS = /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
/** Any white space (tabs, no-break, thin, narrow and ideographic spaces) counts as a space. */
const ANY_SPACE = /\s+/g;
/** Typographic dashes and the minus sign count as a hyphen. */
const ANY_DASH = /[\u2010-\u2015\u2212\uFE58\uFE63\uFF0D]/g;
/** A country code written in brackets, "(+44) 7700 900123", as many contact lists do. */
const BRACKETED_COUNTRY_CODE = /^\(\s*\+\s*(\d{1,3})\s*\)\s*/;

/** The number as the person meant it: pasted formatting removed, separators made plain. */
function cleanTypedNumber(raw: string): string {
	return raw
		.replace(INVISIBLE_MARKS, '')
		.replace(ANY_SPACE, ' ')
		.replace(ANY_DASH, '-')
		.trim()
		.replace(BRACKETED_COUNTRY_CODE, '+$1 ');
}

const COUNTRIES = new Set<string>(getCountries());

function isCountryCode(value: string): value is CountryCode {
	return COUNTRIES.has(value);
}

export interface PhoneOptions {
	/** The parameter's display name, used in messages. */
	parameter: string;
	/** ISO 3166 alpha-2 country for numbers typed without a country code; empty: must be international. */
	defaultCountry?: string;
}

export function normalisePhoneNumber(
	input: unknown,
	{ parameter, defaultCountry }: PhoneOptions,
): string {
	const raw = typeof input === 'number' ? String(input) : typeof input === 'string' ? input : '';
	const value = cleanTypedNumber(raw);
	const fail = (why: string): never => {
		throw new PhoneNumberError(
			`${parameter} "${quotePrefix(value)}" is not a phone number: ${why}`,
			parameter,
			value,
		);
	};
	if (!value) fail('it is empty');
	let text = value;
	if (text.startsWith('00')) text = `+${text.slice(2)}`;
	if (!TYPED_NUMBER.test(text))
		fail('use digits, spaces and an optional leading +, with no letters or extensions');

	const country = defaultCountry?.trim().toUpperCase() || undefined;
	if (country && !isCountryCode(country)) {
		throw new PhoneNumberError(
			`Default Country "${quotePrefix(defaultCountry ?? '')}" is not an ISO 3166 two-letter country code (for example GB, US, DE)`,
			'Default Country',
			defaultCountry ?? '',
		);
	}
	if (!text.startsWith('+') && !country) {
		fail(
			'it has no country code. Type it in international form (+44 7700 900123) or set the Default Country option',
		);
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
function parse(
	text: string,
	country: CountryCode | undefined,
): { number: PhoneNumber } | { failure: string } {
	try {
		return { number: parsePhoneNumberWithError(text, country) };
	} catch (error) {
		const reason = error instanceof ParseError ? error.message : 'it could not be read';
		return { failure: PARSE_FAILURES[reason] ?? reason };
	}
}
