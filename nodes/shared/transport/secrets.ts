/**
 * Keeping keys and webhook secrets out of everything a user or a log can see.
 *
 * The Account key travels in a header, which n8n already hides, but the Unified key travels
 * in the JSON body and an API may echo either back in an error. Everything we build from a
 * response (errors, items) passes through `redactSecrets` with the secrets of the credential
 * in use; key-shaped strings we do not know are masked by pattern as well.
 *
 * Keys such as `__proto__`, `constructor` and `prototype` in a body are kept as plain own data
 * of the copy, never as its prototype or anything inherited.
 */

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
