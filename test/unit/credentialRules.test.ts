import { assertAccountKey } from '../../nodes/CommsAccount/api/accountApi';
import { assertUnifiedKey } from '../../nodes/CommsUnified/api/unifiedApi';
import {
	assertRequestTarget,
	assertSafeUrl,
	canonicalAddress,
	isLoopbackHost,
} from '../../nodes/shared/transport/credentialRules';
import { limiterScope } from '../../nodes/shared/transport';

describe('key prefixes', () => {
	it('accepts acc_ keys and trims them', () =>
		expect(assertAccountKey('  acc_abc123  ')).toBe('acc_abc123'));
	it.each(['key_live_x', 'ACC_x', 'acc', ''])(
		'refuses %j as an Account key, naming acc_',
		(key) => {
			expect(() => assertAccountKey(key)).toThrow(/acc_/);
		},
	);
	it('tells live from test', () => {
		expect(assertUnifiedKey('key_live_1').mode).toBe('live');
		expect(assertUnifiedKey('key_test_1').mode).toBe('test');
	});
	it.each(['acc_1', 'key_1', 'key_prod_1', undefined])(
		'refuses %j as a Unified key, naming both prefixes',
		(key) => {
			expect(() => assertUnifiedKey(key)).toThrow(/key_live_.*key_test_|key_live_" or "key_test_/);
		},
	);
});

describe('addresses', () => {
	it.each([
		'localhost',
		'127.0.0.1',
		'127.8.9.10',
		'[::1]',
		'::1',
		'::ffff:127.0.0.1',
		'[::ffff:7f00:1]',
	])('%s is loopback', (host) => {
		expect(isLoopbackHost(host)).toBe(true);
	});
	it.each([
		'10.0.0.1',
		'128.0.0.1',
		'example.com',
		'127.0.0.1.example.com',
		'localhost.example.com',
		'0.0.0.0',
		'api.localhost',
		'[::ffff:a00:1]',
	])('%s is not', (host) => {
		expect(isLoopbackHost(host)).toBe(false);
	});
	it('accepts https anywhere and strips trailing slashes', () =>
		expect(assertSafeUrl('https://api.example.com/', 'Base URL')).toBe('https://api.example.com'));
	it('accepts http to loopback', () =>
		expect(assertSafeUrl('http://127.0.0.1:4010', 'Base URL')).toBe('http://127.0.0.1:4010'));
	it('refuses http elsewhere, naming the field and the value', () => {
		expect(() => assertSafeUrl('http://10.1.2.3', 'Base URL')).toThrow(
			'Base URL "http://10.1.2.3" uses plain http://',
		);
	});
	it.each(['ftp://x', 'not a url', '', 'https://user:pw@example.com'])('refuses %j', (url) => {
		expect(() => assertSafeUrl(url, 'Base URL')).toThrow(/Base URL/);
	});
	it('quotes the address the user typed when the credential test adds a path', () => {
		expect(() => assertRequestTarget('/v1/numbers', 'http://api.example.com/', 'Base URL')).toThrow(
			'Base URL "http://api.example.com/" uses plain http://',
		);
		expect(() =>
			assertRequestTarget('/v1/numbers', 'http://api.example.com', 'Base URL'),
		).not.toThrow(/v1\/numbers/);
	});
	it('still checks where a path would take the request', () => {
		expect(() =>
			assertRequestTarget(
				'http://evil.example.com/v1/numbers',
				'https://api.example.com',
				'Base URL',
			),
		).toThrow(/plain http/);
		expect(() =>
			assertRequestTarget('/v1/numbers', 'https://api.example.com', 'Base URL'),
		).not.toThrow();
	});
});

describe('canonicalAddress', () => {
	it.each([
		['https://API.example.com', 'https://api.example.com'],
		['https://api.example.com:443/', 'https://api.example.com'],
		['HTTPS://Api.Example.COM//', 'https://api.example.com'],
		['http://127.0.0.1:4010/', 'http://127.0.0.1:4010'],
		['http://localhost:80/', 'http://localhost'],
		['https://api.example.com:8443/unified/', 'https://api.example.com:8443/unified'],
		['https://[::1]:443/', 'https://[::1]'],
	])('%s is %s', (input, canonical) => expect(canonicalAddress(input)).toBe(canonical));

	it('one limiter scope for every spelling of an address', () => {
		const key = 'acc_scope_test_1234';
		const scopes = [
			'https://API.example.com',
			'https://api.example.com:443/',
			'https://api.example.com',
		].map((url) => limiterScope('account', key, url));
		expect(new Set(scopes).size).toBe(1);
		expect(limiterScope('account', key, 'https://api.example.com:8443')).not.toBe(scopes[0]);
	});
});
