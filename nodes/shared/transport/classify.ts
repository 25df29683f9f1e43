/**
 * Reading how an attempt ended. For a write (anything that sends, calls or spends) an ending is:
 *
 * - `success` only on a complete answer that is the API's own success body;
 * - `refused` only on the API's own documented refusal, in its own error shape (the API's profile, in its folder's api/);
 * - `rateLimited` on 429, which the API documents as "retry with backoff": a refusal too;
 * - `notSent` only when it is proven that nothing reached the server (below);
 * - `unknown` in every other case, whatever the status, code or message.
 *
 * A read is safe to repeat, so for it the distinctions only decide whether to try again.
 */
import { type IDataObject, NodeOperationError } from 'n8n-workflow';
import { CredentialRuleError, redactSecrets } from './credentialRules';
import { describeNotTheApi } from './answers';
import type { Attempt, Ending } from './attempt';
import type { CommsContext, Connection } from './connection';
import { answerError, apiError, withOutcome } from './nodeErrors';
import { requestTimeoutMs } from './timeout';

const isRuleError = (error: unknown) => error instanceof CredentialRuleError;

const GATEWAY_STATUS: Record<number, string> = {
	500: 'an unexpected failure',
	502: 'bad gateway',
	503: 'service unavailable',
	504: 'gateway timeout',
};

/** Reads an answer of the API (or of whatever answered in its place). */
export function classifyResponse(
	ctx: CommsContext,
	connection: Connection,
	attempt: Attempt,
	status: number,
	body: unknown,
	retryAfterMs: number | undefined,
): Ending {
	const { profile } = attempt;
	const where = redactSecrets(connection.url, connection.secrets);
	const notTheApi = describeNotTheApi(profile, where, status, body);
	// A body with `success: false` is a failure whatever the status (the Unified API's statuses are not documented).
	const saidFailure =
		body !== null && typeof body === 'object' && (body as IDataObject).success === false;

	if (status >= 200 && status < 300 && !saidFailure) {
		if (profile.isSuccess(body)) return { kind: 'success', body: body as IDataObject };
	} else if (status === 429) {
		return { kind: 'rateLimited', status, body, retryAfterMs };
	} else if (profile.isRefusal(status, body)) {
		return { kind: 'refused', error: answerError(ctx, connection, attempt, status, body) };
	}

	const apiCode = profile.errorCodeOf(body);
	const apiFailure = apiCode !== undefined;
	const unknown = (reason: string, description?: string): Ending => ({
		kind: 'unknown',
		label: `HTTP ${status}`,
		reason,
		code: apiCode ?? `HTTP_${status}`,
		status,
		body,
		retryAfterMs,
		description,
	});

	if (attempt.method === 'GET') {
		// A read may be tried again after a server error; anything else is its answer.
		if (status >= 500) return unknown(`the ${profile.name} answered HTTP ${status}`);
		if (apiFailure)
			return { kind: 'refused', error: answerError(ctx, connection, attempt, status, body) };
		return {
			kind: 'refused',
			error: apiError(ctx, connection, notTheApi, body, attempt.itemIndex),
		};
	}

	// A write: anything that is not a success, a 429 or a documented refusal may have been carried out.
	if (apiCode !== undefined) {
		if (profile.internalErrorCodes?.has(apiCode))
			return unknown(`the ${profile.name} reported an internal error (HTTP ${status}, ${apiCode})`);
		if (status >= 500)
			return unknown(
				`the ${profile.name} answered HTTP ${status} (${GATEWAY_STATUS[status] ?? 'a server error'}, code ${apiCode})`,
			);
		return unknown(
			`the ${profile.name} answered HTTP ${status} with code ${apiCode}, which its documentation does not give as a refusal`,
		);
	}
	if (status >= 500)
		return unknown(
			`${status === 500 ? `the address ${where}` : `a gateway or proxy in front of the ${profile.name}`} answered HTTP ${status}${GATEWAY_STATUS[status] ? ` (${GATEWAY_STATUS[status]})` : ''}`,
		);
	if (status >= 300 && status < 400)
		return unknown(
			`the address ${where} answered HTTP ${status}, a redirect, which the node never follows`,
			notTheApi.description,
		);
	// A 2xx whose body is not the API's (cut short, undecodable, a web page) or a 4xx in another shape.
	return unknown(
		notTheApi.message.replace(/^The address/, 'the address').replace(/\.$/, ''),
		notTheApi.description,
	);
}

/** Whether the failure is the execution being cancelled (n8n's signal), rather than our own timeout. */
function isCancellation(failure: unknown): boolean {
	return causesOf(failure).some((cause) => {
		const name = (cause as { name?: unknown } | null)?.name;
		return name === 'CanceledError' || name === 'AbortError' || name === 'CancelledError';
	});
}

/** Reads a failure to get an answer at all. */
export function classifyFailure(
	ctx: CommsContext,
	connection: Connection,
	attempt: Attempt,
	failure: unknown,
	timedOut: boolean,
): Ending {
	if (timedOut) {
		const seconds = Math.round(requestTimeoutMs() / 100) / 10;
		return {
			kind: 'unknown',
			label: `no answer within ${seconds} s`,
			reason: `the ${attempt.profile.name} did not answer within ${seconds} seconds`,
			code: 'ETIMEDOUT',
		};
	}
	const proof = provenNotSent(failure, isRuleError);
	if (proof !== undefined && refusedBeforeSending(failure, isRuleError)) {
		// The credential's own rules, or n8n refusing the request (its SSRF protection, for one):
		// nothing to retry. Say what it was, without secrets.
		const rule = causesOf(failure).find(isRuleError) as Error | undefined;
		const message = redactSecrets(
			String((rule ?? (failure as Error))?.message ?? failure),
			connection.secrets,
		);
		throw withOutcome(
			new NodeOperationError(ctx.getNode(), message, { itemIndex: attempt.itemIndex }),
			'notSent',
		);
	}
	if (proof !== undefined) return { kind: 'notSent', code: proof };
	if (isCancellation(failure))
		// The request was on its way when the execution was stopped: what it did is unknown.
		throw withOutcome(
			new NodeOperationError(ctx.getNode(), 'The execution was cancelled', {
				itemIndex: attempt.itemIndex,
			}),
			attempt.method === 'GET' ? 'notSent' : 'unknown',
		);
	const label = failureLabel(failure);
	return {
		kind: 'unknown',
		label,
		reason: `the exchange with the ${attempt.profile.name} broke off before a whole answer arrived (${label})`,
		code: label,
	};
}

/*
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
