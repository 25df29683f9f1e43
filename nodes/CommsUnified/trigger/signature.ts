/**
 * Webhook signature verification, as a pure function (n8n's own helper for this lives in
 * n8n-nodes-base, which community packages cannot import).
 *
 * The Unified API signs each event with HMAC-SHA256 over the raw request body, using the
 * shared webhook secret, hex-encoded. The receiver recomputes it over the bytes exactly as
 * they arrived (never over JSON parsed and serialised again, which changes bytes) and
 * compares in constant time, after checking the lengths match. Nothing here throws: every
 * input that is not a correct signature of these bytes gives a verdict other than 'valid'.
 */
import { createHmac, timingSafeEqual } from 'crypto';

/** The API documents no header name; the sandbox (and this default) use `x-signature`. */
export const DEFAULT_SIGNATURE_HEADER = 'x-signature';

/** A hex SHA-256 digest: 32 bytes, 64 hex digits. */
const DIGEST_BYTES = 32;
const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;
/** An optional `sha256=` in front of the hex digest, as GitHub-style senders write it. */
const PREFIX = /^sha256=/i;

export type SignatureVerdict =
	/** The signature is the HMAC of these bytes with this secret. */
	| 'valid'
	/** No usable secret: nothing can be verified, so nothing is accepted. */
	| 'noSecret'
	/** No raw body to verify (not bytes or text). */
	| 'noBody'
	/** The header is absent or empty. */
	| 'missing'
	/** The header is there but is not a hex SHA-256 digest (with or without `sha256=`). */
	| 'malformed'
	/** A well-formed digest that is not the HMAC of these bytes with this secret. */
	| 'mismatch';

export interface SignatureInput {
	/** The request body exactly as received: bytes (n8n's `rawBody` Buffer) or the raw text. */
	rawBody: unknown;
	/** The signature header's value as the HTTP server gives it. */
	header: unknown;
	/** The shared webhook secret. */
	secret: unknown;
}

/** The secret as verification uses it: surrounding white space (a paste slip) is dropped. */
export function usableSecret(secret: unknown): string | undefined {
	if (typeof secret !== 'string') return undefined;
	const trimmed = secret.trim();
	return trimmed === '' ? undefined : trimmed;
}

function isBytes(value: unknown): value is Uint8Array {
	return value instanceof Uint8Array;
}

/** Hex HMAC-SHA256 of `rawBody` (bytes, or text as UTF-8) with `secret`. */
export function computeSignature(rawBody: Uint8Array | string, secret: string): string {
	return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/**
 * The hex digest a header value carries, lower-cased, or null when it is not one: white space
 * around it and one `sha256=` prefix are accepted; anything else (a list of values, base64,
 * a digest of another length) is not.
 */
export function digestFromHeader(header: unknown): string | null {
	if (typeof header !== 'string') return null;
	const value = header.trim().replace(PREFIX, '');
	return HEX_DIGEST.test(value) ? value.toLowerCase() : null;
}

/** Checks the signature of one request. Never throws. */
export function checkSignature({ rawBody, header, secret }: SignatureInput): SignatureVerdict {
	try {
		const key = usableSecret(secret);
		if (key === undefined) return 'noSecret';
		if (!isBytes(rawBody) && typeof rawBody !== 'string') return 'noBody';
		if (
			header === undefined ||
			header === null ||
			(typeof header === 'string' && header.trim() === '')
		)
			return 'missing';
		const received = digestFromHeader(header);
		if (received === null) return 'malformed';
		const expected = createHmac('sha256', key).update(rawBody).digest();
		const actual = Uint8Array.from(received.match(/../g) ?? [], (pair) => parseInt(pair, 16));
		if (actual.length !== expected.length || actual.length !== DIGEST_BYTES) return 'mismatch';
		return timingSafeEqual(actual, expected) ? 'valid' : 'mismatch';
	} catch {
		return 'mismatch';
	}
}

/** True only when the header carries the HMAC-SHA256 of exactly these bytes with the secret. */
export function verifySignature(input: SignatureInput): boolean {
	return checkSignature(input) === 'valid';
}
