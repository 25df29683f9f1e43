/**
 * Keeping a credential's secrets safe, its rules in one place. Before any request leaves: an
 * address that is HTTPS, or plain HTTP only to this machine (the sandbox); each API's key rule is
 * in its profile. After: no key or webhook secret in anything a user or a log can see.
 *
 * The Account key travels in a header, which n8n already hides, but the Unified key travels in the
 * JSON body and an API may echo either back in an error. Everything we build from a response
 * (errors, items) passes through `redactSecrets` with the secrets of the credential in use;
 * key-shaped strings we do not know are masked by pattern as well. Keys such as `__proto__`,
 * `constructor` and `prototype` in a body are kept as plain own data of the copy, never as its
 * prototype or anything inherited.
 *
 * Pure functions, shared by the credential classes' `authenticate` and by the transport.
 */
import type {
	IAuthenticateRuleResponseCode,
	IAuthenticateRuleResponseSuccessBody,
	ICredentialTestRequest,
} from 'n8n-workflow';

import { quotePrefix } from '../parameters/expressionValues';

/** The longest address accepted (the de facto limit of browsers and servers). */
export const MAX_URL_LENGTH = 2048;

export class CredentialRuleError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'CredentialRuleError';
	}
}

/**
 * Whether a host is this machine, as docs/nodes.md (the credentials) promises: `localhost`, 127.0.0.0/8, `::1`, and
 * the IPv4-mapped loopback as the URL parser gives it (`[::ffff:127.0.0.1]` becomes
 * `[::ffff:7f00:1]`). Nothing else: `evil.localhost` is a name a resolver may send anywhere.
 */
export function isLoopbackHost(hostname: string): boolean {
	const host = hostname.toLowerCase();
	const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
	if (bare === 'localhost' || bare === '::1' || bare === '0:0:0:0:0:0:0:1') return true;
	const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(bare);
	if (v4) return Number(v4[1]) === 127 && v4.slice(1).every((part) => Number(part) <= 255);
	// ::ffff:7f00:1 to ::ffff:7fff:ffff (the parser's form), or ::ffff:127.x.y.z as typed.
	if (/^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(bare)) return true;
	const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(bare);
	return mapped ? isLoopbackHost(mapped[1]) : false;
}

/** `text` without the slashes it ends with (a loop: a regex here can take seconds on hostile input). */
export function trimTrailingSlashes(text: string): string {
	let end = text.length;
	while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end--;
	return text.slice(0, end);
}

/**
 * Parses and checks an address (a credential's field, or a request's target): length, scheme,
 * no user or password, https or plain http to this machine. Returns the text and its URL.
 */
function checkAddress(value: unknown, field: string): { text: string; url: URL } {
	const text = typeof value === 'string' ? value.trim() : '';
	if (text.length > MAX_URL_LENGTH) {
		throw new CredentialRuleError(
			`${field} "${quotePrefix(text)}" is ${text.length.toLocaleString('en-GB')} characters long; at most ${MAX_URL_LENGTH.toLocaleString('en-GB')} are accepted.`,
		);
	}
	if (!URL.canParse(text)) {
		throw new CredentialRuleError(
			`${field} "${quotePrefix(text)}" is not a valid address. Use a full URL such as https://api.example.com.`,
		);
	}
	const url = new URL(text);
	if (url.username || url.password) {
		throw new CredentialRuleError(`${field} must not contain a user name or password.`);
	}
	if (url.protocol === 'https:') return { text, url };
	if (url.protocol === 'http:') {
		if (isLoopbackHost(url.hostname)) return { text, url };
		throw new CredentialRuleError(
			`${field} "${quotePrefix(text)}" uses plain http://, which would send the API key unencrypted. Use https:// (plain http:// is allowed only to this machine: localhost, 127.0.0.0/8 or ::1).`,
		);
	}
	throw new CredentialRuleError(`${field} "${quotePrefix(text)}" must start with https://.`);
}

/**
 * Parses and checks an address from a credential. Returns it without a trailing slash.
 * `field` is the credential field's display name, used in the message.
 */
export function assertSafeUrl(value: unknown, field: string): string {
	const { text, url } = checkAddress(value, field);
	// Every request path is appended to the address: a query or fragment would end up in the middle.
	if (url.search !== '' || url.hash !== '' || text.includes('?') || text.includes('#')) {
		throw new CredentialRuleError(
			`${field} "${quotePrefix(text)}" has a query (?…) or a fragment (#…). Enter the address alone, such as https://api.example.com; the nodes add the rest.`,
		);
	}
	return trimTrailingSlashes(text);
}

/**
 * The URL a request will go to, checked the same way (used where the credential applies; a
 * query is allowed here, as n8n's HTTP Request node may send one). With a base URL (the
 * credential test), the address the user typed is checked and quoted, then the full target
 * too, in case the path took the request elsewhere; the base is returned without its trailing
 * slashes, for the request to use.
 */
export function assertRequestTarget(
	url: string | undefined,
	baseURL: string | undefined,
	field: string,
): string | undefined {
	if (!baseURL) {
		checkAddress(url, field);
		return undefined;
	}
	const base = assertSafeUrl(baseURL, field);
	checkAddress(new URL(url ?? '', `${base}/`).toString(), field);
	return base;
}

/**
 * One spelling per address, for keying what is per key and address (the rate limiter): scheme
 * and host in lower case, no default port, no trailing slash. `https://API.example.com` and
 * `https://api.example.com:443/` are one address.
 */
export function canonicalAddress(url: string): string {
	const parsed = new URL(url.trim());
	return `${parsed.protocol}//${parsed.host}${trimTrailingSlashes(parsed.pathname)}${parsed.search}`;
}

/**
 * A credential test's rules, of both kinds in one list. n8n types `rules` as a list of one
 * kind or of the other, but its credential tester reads each rule's `type` (status rules when
 * the request failed, body rules when it succeeded), so a mixed list works as written.
 */
export function testRules(
	...rules: Array<IAuthenticateRuleResponseCode | IAuthenticateRuleResponseSuccessBody>
): ICredentialTestRequest['rules'] {
	return rules as IAuthenticateRuleResponseCode[];
}

/** Anything that looks like a key of either API, known to us or not. */
const KEY_PATTERN = /\b(acc_|key_live_|key_test_)[A-Za-z0-9_-]{4,}/g;

const MASK = '****';

function redactString(text: string, secrets: readonly string[]): string {
	let out = text;
	for (const secret of secrets) {
		if (secret && secret.length >= 4) out = out.split(secret).join(MASK);
	}
	return out.replace(KEY_PATTERN, (_match, prefix: string) => `${prefix}${MASK}`);
}

/** A deep copy of `value` in which no secret, and nothing key-shaped, remains. */
export function redactSecrets<T>(value: T, secrets: readonly string[]): T {
	const seen = new WeakMap<object, unknown>();
	const walk = (v: unknown): unknown => {
		if (typeof v === 'string') return redactString(v, secrets);
		if (v === null || typeof v !== 'object') return v;
		if (seen.has(v)) return seen.get(v);
		if (Array.isArray(v)) {
			const copy: unknown[] = [];
			seen.set(v, copy);
			for (const entry of v) copy.push(walk(entry));
			return copy;
		}
		const copy: Record<string, unknown> = {};
		seen.set(v, copy);
		for (const [k, entry] of Object.entries(v)) {
			const name = redactString(k, secrets);
			// `copy.__proto__ = …` would set the copy's prototype (a body's {"__proto__": {"isAdmin":
			// true}} would make `isAdmin` true by inheritance): such a key stays plain own data.
			if (name === '__proto__')
				Object.defineProperty(copy, name, {
					value: walk(entry),
					enumerable: true,
					writable: true,
					configurable: true,
				});
			else copy[name] = walk(entry);
		}
		return copy;
	};
	return walk(value) as T;
}
