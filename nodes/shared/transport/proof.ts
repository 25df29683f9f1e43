/**
 * Whether a request that got no answer can be proven never to have reached the server. Pure.
 *
 * A write is "not sent" only on proof, never by a list of the failures met so far: every other
 * failure (a reset, a body cut short, an undecodable encoding, a timeout, a code nobody has seen)
 * leaves its outcome unknown. The proofs are failures that can only happen before a single byte
 * of the request is written to a connection:
 *
 * - the address could not be resolved (the system's `getaddrinfo` failed);
 * - the connection was never made (the system's `connect` failed: refused, unreachable);
 * - the URL could not be parsed;
 * - n8n refused to make the request (its SSRF protection, which checks the address before it
 *   connects) or the credential's own rules refused it (checked before n8n sends anything).
 */

/** The errors an error wraps, outermost first (n8n and the HTTP client nest them in `cause`). */
export function causesOf(error: unknown): unknown[] {
	const chain: unknown[] = [];
	for (
		let current = error;
		current !== null && current !== undefined && chain.length < 8;
		current = (current as { cause?: unknown }).cause
	)
		chain.push(current);
	return chain;
}

/** The system calls whose failure means no connection existed yet, and the codes that say so. */
const BEFORE_CONNECTION: Record<string, ReadonlySet<string>> = {
	connect: new Set(['ECONNREFUSED', 'ENETUNREACH', 'EHOSTUNREACH', 'EADDRNOTAVAIL', 'ENETDOWN']),
	getaddrinfo: new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']),
};

/** Errors n8n raises when it refuses to connect to an address (its SSRF protection). */
const N8N_REFUSALS = new Set(['SsrfBlockedIpError', 'SsrfBlockedHostnameError']);

interface ErrorFacts {
	name?: unknown;
	code?: unknown;
	syscall?: unknown;
	errors?: unknown;
}

/** A system error of a connection that never existed: its call and its code both say so. */
function failedBeforeConnecting(error: ErrorFacts): boolean {
	if (Array.isArray(error.errors) && error.errors.length > 0)
		// Node.js tries each address of a host in turn and reports every failure together.
		return error.errors.every((inner) => failedBeforeConnecting(inner as ErrorFacts));
	const codes = typeof error.syscall === 'string' ? BEFORE_CONNECTION[error.syscall] : undefined;
	return codes !== undefined && typeof error.code === 'string' && codes.has(error.code);
}

/**
 * What proves that a request which got no answer never reached the server: a short label
 * ("ECONNREFUSED", "n8n refused the address"), or undefined when nothing proves it, and its
 * outcome is unknown. `isRuleError` recognises the credential's own rules.
 */
export function provenNotSent(
	failure: unknown,
	isRuleError: (error: unknown) => boolean = () => false,
): string | undefined {
	for (const cause of causesOf(failure)) {
		if (cause === null || typeof cause !== 'object') continue;
		const facts = cause as ErrorFacts;
		if (isRuleError(cause)) return 'the credential refused it';
		if (typeof facts.name === 'string' && N8N_REFUSALS.has(facts.name))
			return 'n8n refused the address';
		if (facts.code === 'ERR_INVALID_URL') return 'ERR_INVALID_URL';
		if (failedBeforeConnecting(facts)) return String(facts.code);
	}
	return undefined;
}

/**
 * Whether the failure is one n8n or the credential refused outright (nothing to retry), as
 * opposed to a connection that could not be made (which may work a moment later).
 */
export function refusedBeforeSending(
	failure: unknown,
	isRuleError: (error: unknown) => boolean,
): boolean {
	return causesOf(failure).some(
		(cause) =>
			cause !== null &&
			typeof cause === 'object' &&
			(isRuleError(cause) ||
				N8N_REFUSALS.has(String((cause as ErrorFacts).name)) ||
				(cause as ErrorFacts).code === 'ERR_INVALID_URL'),
	);
}

/** A short name for a failure, for messages: its code, or its error name, or "an error". */
export function failureLabel(failure: unknown): string {
	for (const cause of causesOf(failure)) {
		const code = (cause as ErrorFacts | undefined)?.code;
		if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{2,40}$/.test(code)) return code;
	}
	for (const cause of causesOf(failure)) {
		const name = (cause as ErrorFacts | undefined)?.name;
		if (typeof name === 'string' && name !== 'Error' && /^[A-Za-z]{3,40}$/.test(name)) return name;
	}
	return 'an error';
}
