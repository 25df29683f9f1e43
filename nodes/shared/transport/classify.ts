/**
 * Reading how an attempt ended: an answer (the API's success, its refusal, a 429, a failure
 * that may come after the work was done, or not the API at all) or no answer (nothing sent,
 * a broken connection, a timeout, a cancelled execution).
 */
import { type IDataObject, NodeOperationError } from 'n8n-workflow';

import { CredentialRuleError } from '../credentialRules';
import {
	describeNotTheApi,
	isAccountErrorBody,
	isAccountSuccessBody,
	isUnifiedErrorBody,
	isUnifiedSuccessBody,
} from '../errors';
import { redactSecrets } from '../secrets';
import type { Attempt, Ending } from './attempt';
import type { CommsContext, Connection } from './connection';
import { answerError, apiError } from './nodeErrors';
import { requestTimeoutMs } from './timeout';

/** The error and the causes it wraps (n8n wraps client errors in NodeApiError). */
function causes(error: unknown): unknown[] {
	const chain: unknown[] = [];
	for (
		let current = error;
		current && chain.length < 6;
		current = (current as { cause?: unknown }).cause
	)
		chain.push(current);
	return chain;
}

/**
 * Codes of a failed connection: the system's (ECONNRESET, EAI_AGAIN, ...), and the HTTP
 * clients' own for a broken socket or timeout. Node's ERR_* codes of a bad argument are not.
 */
const CONNECTION_CODE =
	/^(E(?!RR_)[A-Z_]+|ERR_NETWORK|ERR_SOCKET_CONNECTION_TIMEOUT|UND_ERR_[A-Z_]+)$/;

/** The code of a failed connection, read from n8n's wrapper and the client error beneath it. */
function networkCode(error: unknown): string | undefined {
	for (const current of causes(error) as Array<{ code?: unknown; name?: unknown }>) {
		if (current.name === 'CanceledError' || current.name === 'AbortError') return 'ERR_CANCELED';
		if (typeof current.code === 'string' && CONNECTION_CODE.test(current.code)) return current.code;
	}
	return undefined;
}

/** Nothing reached the server: safe to send again. */
const NOT_SENT = new Set([
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'ENETUNREACH',
	'EHOSTUNREACH',
	'EADDRNOTAVAIL',
]);

const GATEWAY_STATUS: Record<number, string> = {
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
	const where = redactSecrets(connection.url, connection.secrets);
	const notTheApi = (): Ending => ({
		kind: 'refused',
		error: apiError(
			ctx,
			connection,
			describeNotTheApi(attempt.apiName, where, attempt.addressField, status, body),
			body,
			attempt.itemIndex,
		),
	});
	const apiFailure =
		attempt.api === 'account' ? isAccountErrorBody(body) : isUnifiedErrorBody(body);
	// A body with `success: false` is a failure whatever the status (the Unified API's statuses are not documented).
	const saidFailure =
		body !== null && typeof body === 'object' && (body as IDataObject).success === false;

	if (status >= 200 && status < 300 && !saidFailure) {
		const isApi =
			attempt.api === 'account' ? isAccountSuccessBody(body) : isUnifiedSuccessBody(body);
		return isApi ? { kind: 'success', body: body as IDataObject } : notTheApi();
	}
	if (status === 429) return { kind: 'rateLimited', status, body, retryAfterMs };
	if (status >= 300 && status < 400) return notTheApi();

	const code = apiFailure
		? String((body as IDataObject)[attempt.api === 'account' ? 'error' : 'code'])
		: `HTTP_${status}`;
	const unknown = (reason: string): Ending => ({
		kind: 'unknown',
		label: `HTTP ${status}`,
		reason,
		code,
		status,
		body,
		retryAfterMs,
	});
	if (apiFailure) {
		// The API's own answer. Its 500 (and the Unified API's INTERNAL_ERROR) may come after
		// the work was done; its other errors are refusals (the Account API's 502 is the carrier's).
		if (attempt.api === 'unified' && code === 'INTERNAL_ERROR')
			return unknown(
				`the ${attempt.apiName} reported an internal error (HTTP ${status}, INTERNAL_ERROR)`,
			);
		const documentedRefusal =
			attempt.api === 'account' ? status === 502 : UNIFIED_REFUSALS.has(code);
		if (status >= 500 && !documentedRefusal)
			return unknown(
				`the ${attempt.apiName} answered HTTP ${status} (${status === 500 ? 'an unexpected failure' : (GATEWAY_STATUS[status] ?? 'a server error')})`,
			);
		return {
			kind: 'refused',
			error: answerError(ctx, connection, attempt, status, body),
		};
	}
	// Not the API's own shape: a proxy's or gateway's page, or not the API at all.
	if (status === 500)
		return unknown(`the ${attempt.apiName} answered HTTP 500 (an unexpected failure)`);
	if (status >= 500)
		return unknown(
			`a gateway or proxy in front of the ${attempt.apiName} answered HTTP ${status}${GATEWAY_STATUS[status] ? ` (${GATEWAY_STATUS[status]})` : ''}`,
		);
	return notTheApi();
}

/** Unified API codes that are refusals, documented as such: nothing was done. */
const UNIFIED_REFUSALS = new Set([
	'MISSING_API_KEY',
	'INVALID_API_KEY',
	'INSUFFICIENT_CREDITS',
	'SERVICE_UNAVAILABLE',
]);

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
			reason: `the ${attempt.apiName} did not answer within ${seconds} seconds`,
			code: 'ETIMEDOUT',
		};
	}
	const code = networkCode(failure);
	if (code === 'ERR_CANCELED')
		throw new NodeOperationError(ctx.getNode(), 'The execution was cancelled', {
			itemIndex: attempt.itemIndex,
		});
	if (!code) {
		// Not a connection failure: the credential's own rules, or n8n refusing the request
		// (its SSRF protection, for one). Nothing to retry; say what it was, without secrets.
		const rule = causes(failure).find((cause) => cause instanceof CredentialRuleError) as
			Error | undefined;
		const message = redactSecrets(
			String((rule ?? (failure as Error))?.message ?? failure),
			connection.secrets,
		);
		throw new NodeOperationError(ctx.getNode(), message, { itemIndex: attempt.itemIndex });
	}
	if (NOT_SENT.has(code)) return { kind: 'notSent', code };
	return {
		kind: 'unknown',
		label: code,
		reason: `the connection to the ${attempt.apiName} broke after the request was sent (${code})`,
		code,
	};
}
