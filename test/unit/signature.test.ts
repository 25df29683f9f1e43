/**
 * Signature verification of the Comms Unified Trigger, as a pure function: HMAC-SHA256 over
 * the raw bytes, hex, an optional `sha256=` prefix, constant-time comparison after a length
 * check, and never a throw. Examples first, then properties over thousands of random bodies,
 * secrets and signatures, of which only the right ones pass.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';

import {
	checkSignature,
	computeSignature,
	DEFAULT_SIGNATURE_HEADER,
	digestFromHeader,
	usableSecret,
	verifySignature,
} from '../../nodes/CommsUnified/trigger/signature';

const SECRET = 'whsec_sbx_5d2a8f1c7e3b9a6d';
const BODY =
	'{"event":"call.completed","timestamp":"2026-01-01T10:01:10.000Z","data":{"call_id":"ucall_sbx_000006","duration":60}}';
const reference = (body: string | Uint8Array, secret: string) =>
	createHmac('sha256', secret).update(body).digest('hex');

describe('computeSignature', () => {
	it('is the hex HMAC-SHA256 (a published test vector)', () => {
		expect(computeSignature('The quick brown fox jumps over the lazy dog', 'key')).toBe(
			'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
		);
	});

	it('is the same over text and over its UTF-8 bytes', () => {
		const text = '{"to":"Zoë ☎"}';
		expect(computeSignature(Buffer.from(text, 'utf8'), SECRET)).toBe(
			computeSignature(text, SECRET),
		);
	});
});

describe('checkSignature', () => {
	const signature = reference(BODY, SECRET);
	const check = (header: unknown, rawBody: unknown = Buffer.from(BODY), secret: unknown = SECRET) =>
		checkSignature({ rawBody, header, secret });

	it('accepts the hex HMAC of the raw bytes, as the sandbox sends it', () => {
		expect(check(signature)).toBe('valid');
		expect(verifySignature({ rawBody: Buffer.from(BODY), header: signature, secret: SECRET })).toBe(
			true,
		);
	});

	it.each([
		['with a sha256= prefix', `sha256=${signature}`],
		['with an upper-case SHA256= prefix', `SHA256=${signature}`],
		['in upper-case hex', signature.toUpperCase()],
		['with white space around it', `  ${signature}\t`],
	])('accepts the signature %s', (_label, header) => {
		expect(check(header)).toBe('valid');
	});

	it('accepts a raw body given as text', () => {
		expect(check(signature, BODY)).toBe('valid');
	});

	it.each([
		['absent', undefined],
		['null', null],
		['empty', ''],
		['blank', '   '],
	])('says a header that is %s is missing', (_label, header) => {
		expect(check(header)).toBe('missing');
	});

	it.each([
		['not hex', 'z'.repeat(64)],
		['one digit short', signature.slice(1)],
		['one digit long', `${signature}0`],
		['base64', Buffer.from(signature, 'hex').toString('base64')],
		['another algorithm prefix', `sha1=${signature}`],
		['a doubled prefix', `sha256=sha256=${signature}`],
		['two values joined by a proxy', `${signature}, ${signature}`],
		['a list of values', [signature]],
		['a number', 12345],
		['an object', { signature }],
	])('says a header that is %s is malformed', (_label, header) => {
		expect(check(header)).toBe('malformed');
	});

	it('refuses a signature made with another secret', () => {
		expect(check(reference(BODY, 'whsec_other'))).toBe('mismatch');
	});

	it('refuses a body changed by one byte, wherever the byte is', () => {
		const bytes = Buffer.from(BODY);
		for (let i = 0; i < bytes.length; i++) {
			const changed = Buffer.from(bytes);
			changed[i] ^= 0x01;
			expect(check(signature, changed)).toBe('mismatch');
		}
	});

	it('refuses a body with a byte added or removed', () => {
		expect(check(signature, Buffer.from(`${BODY} `))).toBe('mismatch');
		expect(check(signature, Buffer.from(BODY.slice(0, -1)))).toBe('mismatch');
		expect(check(signature, Buffer.from(`\uFEFF${BODY}`))).toBe('mismatch');
	});

	it('refuses the same JSON serialised again (other spacing, other key order)', () => {
		const parsed = JSON.parse(BODY);
		expect(check(signature, Buffer.from(JSON.stringify(parsed, null, 2)))).toBe('mismatch');
		const { data, ...rest } = parsed;
		expect(check(signature, Buffer.from(JSON.stringify({ data, ...rest })))).toBe('mismatch');
	});

	it('never verifies a body n8n already parsed into an object', () => {
		expect(check(signature, JSON.parse(BODY))).toBe('noBody');
		expect(checkSignature({ rawBody: undefined, header: signature, secret: SECRET })).toBe(
			'noBody',
		);
		expect(check(signature, 42)).toBe('noBody');
	});

	it.each([
		['absent', undefined],
		['empty', ''],
		['blank', ' \n '],
		['not text', 1234],
	])('accepts nothing when the secret is %s', (_label, secret) => {
		expect(checkSignature({ rawBody: Buffer.from(BODY), header: signature, secret })).toBe(
			'noSecret',
		);
		// Not even a signature made with that "secret".
		expect(
			checkSignature({ rawBody: Buffer.from(BODY), header: reference(BODY, ''), secret }),
		).toBe('noSecret');
	});

	it('drops white space pasted around the secret', () => {
		expect(usableSecret(` ${SECRET}\n`)).toBe(SECRET);
		expect(check(signature, Buffer.from(BODY), ` ${SECRET}\n`)).toBe('valid');
	});

	it('reads only a sha256= prefix and hex from the header', () => {
		expect(digestFromHeader(`sha256=${'AB'.repeat(32)}`)).toBe('ab'.repeat(32));
		expect(digestFromHeader('sha256=')).toBeNull();
		expect(DEFAULT_SIGNATURE_HEADER).toBe('x-signature');
	});
});

describe('properties (thousands of random bodies, secrets and signatures)', () => {
	const body = fc.uint8Array({ minLength: 0, maxLength: 512 });
	const secret = fc.string({ minLength: 1, maxLength: 64 }).filter((s) => s.trim() !== '');
	const hex64 = fc
		.uint8Array({ minLength: 32, maxLength: 32 })
		.map((bytes) => Buffer.from(bytes).toString('hex'));

	it('the right signature passes, plain, prefixed or upper-case', () => {
		fc.assert(
			fc.property(
				body,
				secret,
				fc.constantFrom('', 'sha256=', 'SHA256='),
				fc.boolean(),
				(bytes, key, prefix, upper) => {
					const hex = reference(bytes, key.trim());
					return verifySignature({
						rawBody: Buffer.from(bytes),
						header: prefix + (upper ? hex.toUpperCase() : hex),
						secret: key,
					});
				},
			),
			{ numRuns: 3000 },
		);
	});

	it('a random signature never passes', () => {
		fc.assert(
			fc.property(
				body,
				secret,
				fc.oneof(
					hex64,
					fc.string({ maxLength: 80 }),
					hex64.map((hex) => `sha256=${hex}`),
				),
				(bytes, key, header) => {
					fc.pre(
						header
							.replace(/^sha256=/i, '')
							.trim()
							.toLowerCase() !== reference(bytes, key.trim()),
					);
					return !verifySignature({ rawBody: Buffer.from(bytes), header, secret: key });
				},
			),
			{ numRuns: 5000 },
		);
	});

	it('a signature made with another secret never passes', () => {
		fc.assert(
			fc.property(body, secret, secret, (bytes, key, other) => {
				fc.pre(key.trim() !== other.trim());
				return (
					checkSignature({
						rawBody: Buffer.from(bytes),
						header: reference(bytes, other.trim()),
						secret: key,
					}) === 'mismatch'
				);
			}),
			{ numRuns: 3000 },
		);
	});

	it('a body changed anywhere (a byte flipped, added or removed) never passes with the old signature', () => {
		const changed = fc
			.tuple(
				fc.uint8Array({ minLength: 1, maxLength: 512 }),
				fc.nat(),
				fc.integer({ min: 1, max: 255 }),
				fc.constantFrom('flip', 'insert', 'delete'),
			)
			.map(([bytes, at, delta, how]) => {
				const i = at % bytes.length;
				const after = Buffer.from(bytes);
				if (how === 'flip') after[i] = (after[i] + delta) % 256;
				if (how === 'insert')
					return {
						before: Buffer.from(bytes),
						after: Buffer.concat([after.subarray(0, i), Buffer.from([delta]), after.subarray(i)]),
					};
				if (how === 'delete')
					return {
						before: Buffer.from(bytes),
						after: Buffer.concat([after.subarray(0, i), after.subarray(i + 1)]),
					};
				return { before: Buffer.from(bytes), after };
			});
		fc.assert(
			fc.property(changed, secret, ({ before, after }, key) => {
				return (
					checkSignature({ rawBody: after, header: reference(before, key.trim()), secret: key }) ===
					'mismatch'
				);
			}),
			{ numRuns: 3000 },
		);
	});

	it('never throws, whatever it is given', () => {
		fc.assert(
			fc.property(fc.anything(), fc.anything(), fc.anything(), (rawBody, header, key) => {
				const verdict = checkSignature({ rawBody, header, secret: key });
				return (
					['valid', 'noSecret', 'noBody', 'missing', 'malformed', 'mismatch'].includes(verdict) &&
					verdict !== 'valid'
				);
			}),
			{ numRuns: 3000 },
		);
	});
});
