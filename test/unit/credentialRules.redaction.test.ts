import { redactSecrets } from '../../nodes/shared/transport/credentialRules';

describe('redactSecrets', () => {
	const secret = 'whsec_plain_secret_value';

	it('removes known secrets anywhere, keys included, without touching the original', () => {
		const original = { a: `x ${secret} y`, nested: [{ [secret]: secret }], n: 3, nil: null };
		const clean = redactSecrets(original, [secret]);
		expect(JSON.stringify(clean)).not.toContain(secret);
		expect(clean.n).toBe(3);
		expect(clean.nil).toBeNull();
		expect(original.a).toContain(secret);
	});

	it('masks key-shaped strings it was not told about', () => {
		const clean = redactSecrets(
			{ m: 'bad key acc_abcdef123456 and key_test_zzzz9999 and key_live_q1w2e3r4' },
			[],
		);
		expect(clean.m).toBe('bad key acc_**** and key_test_**** and key_live_****');
	});

	it('survives cycles', () => {
		const cyclic: Record<string, unknown> = { s: secret };
		cyclic.self = cyclic;
		const clean = redactSecrets(cyclic, [secret]);
		expect(clean.s).toBe('****');
		expect(clean.self).toBe(clean);
	});

	it('ignores empty and very short secrets, which would shred everything', () => {
		expect(redactSecrets('abc', ['', 'a'])).toBe('abc');
	});
});
