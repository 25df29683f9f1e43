/**
 * The one way our nodes talk to either API.
 *
 * For every request: the credential's rules are checked (key prefix, HTTPS or loopback),
 * the request waits for its place under the key's rate limit, goes out through n8n's
 * `httpRequestWithAuthentication` (so n8n applies the credential, its proxy and TLS
 * settings), is retried only when that is safe, and any failure becomes a NodeApiError
 * whose every string has been cleared of keys and secrets.
 */
import { createHash } from 'node:crypto';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IPollFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { sleep, systemClock } from './clock';
import { assertAccountKey, assertSafeUrl, assertUnifiedKey, CredentialRuleError } from './credentialRules';
import { describeAccountError, describeUnifiedError, type ErrorDescription } from './errors';
import { ACCOUNT_LIMIT, type RateLimiter, sharedLimiter, UNIFIED_LIMITS, type UnifiedService } from './pacing';
import { decideRetry, type Outcome, parseRetryAfter } from './retry';
import { redactSecrets } from './secrets';

export type CommsContext = IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions | IHookFunctions;

export const ACCOUNT_CREDENTIAL = 'commsAccountApi';
export const UNIFIED_CREDENTIAL = 'commsUnifiedApi';

const REQUEST_TIMEOUT_MS = 30_000;

interface Connection {
	credentialType: string;
	url: string;
	secrets: string[];
	scope: string;
}

/** Credentials are read and checked once per node run, not once per item. */
const connections = new WeakMap<object, Map<string, Promise<Connection>>>();

function fingerprint(...parts: string[]): string {
	return createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 16);
}

/** The pacing scope of a key at an address: the API's limits are per key. */
export function limiterScope(api: 'account' | 'unified', key: string, url: string, service?: UnifiedService): string {
	const base = `${api}:${fingerprint(key, url.replace(/\/+$/, ''))}`;
	return service ? `${base}:${service}` : base;
}

function parseConnection(credentialType: string, credentials: ICredentialDataDecryptedObject): Connection {
	if (credentialType === ACCOUNT_CREDENTIAL) {
		const key = assertAccountKey(credentials.apiKey);
		const url = assertSafeUrl(credentials.baseUrl, 'Base URL');
		return { credentialType, url, secrets: [key], scope: limiterScope('account', key, url) };
	}
	const { key } = assertUnifiedKey(credentials.apiKey);
	const url = assertSafeUrl(credentials.endpointUrl, 'Endpoint URL');
	const secret = typeof credentials.webhookSecret === 'string' ? credentials.webhookSecret : '';
	return { credentialType, url, secrets: [key, secret].filter(Boolean), scope: limiterScope('unified', key, url) };
}

async function readConnection(ctx: CommsContext, credentialType: string): Promise<Connection> {
	const credentials = await ctx.getCredentials(credentialType);
	try {
		return parseConnection(credentialType, credentials);
	} catch (error) {
		// Only credential rules throw here; their messages never contain the key.
		throw new NodeOperationError(ctx.getNode(), (error as Error).message, {
			description: 'Fix the credential, then run the workflow again. No request was sent.',
		});
	}
}

export function getConnection(ctx: CommsContext, credentialType: string): Promise<Connection> {
	let perContext = connections.get(ctx);
	if (!perContext) {
		perContext = new Map();
		connections.set(ctx, perContext);
	}
	let connection = perContext.get(credentialType);
	if (!connection) {
		connection = readConnection(ctx, credentialType);
		perContext.set(credentialType, connection);
	}
	return connection;
}

function cancelSignal(ctx: CommsContext): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
}

/** The error and the causes it wraps (n8n wraps client errors in NodeApiError). */
function causes(error: unknown): unknown[] {
	const chain: unknown[] = [];
	for (let current = error; current && chain.length < 6; current = (current as { cause?: unknown }).cause) chain.push(current);
	return chain;
}

/**
 * Codes of a failed connection: the system's (ECONNRESET, EAI_AGAIN, ...), and the HTTP
 * clients' own for a broken socket or timeout. Node's ERR_* codes of a bad argument are not.
 */
const CONNECTION_CODE = /^(E(?!RR_)[A-Z_]+|ERR_NETWORK|ERR_SOCKET_CONNECTION_TIMEOUT|UND_ERR_[A-Z_]+)$/;

/** The code of a failed connection, read from n8n's wrapper and the client error beneath it. */
function networkCode(error: unknown): string | undefined {
	for (const current of causes(error) as Array<{ code?: unknown; name?: unknown }>) {
		if (current.name === 'CanceledError' || current.name === 'AbortError') return 'ERR_CANCELED';
		if (typeof current.code === 'string' && CONNECTION_CODE.test(current.code)) return current.code;
	}
	return undefined;
}

/** Nothing reached the server: safe to send again. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'EADDRNOTAVAIL']);

interface Attempt {
	method: IHttpRequestMethods;
	url: string;
	qs?: IDataObject;
	body?: () => IDataObject;
	itemIndex?: number;
	limiter: RateLimiter;
	/** Statuses the API documents as retryable, besides 429. */
	retryableStatuses: readonly number[];
	describe: (status: number, body: unknown) => ErrorDescription;
	apiName: string;
	/** What the request does, for the message when its outcome is unknown. */
	action: string;
}

function apiError(ctx: CommsContext, connection: Connection, found: ErrorDescription, body: unknown, itemIndex?: number): NodeApiError {
	const safe = redactSecrets({ found, body }, connection.secrets);
	const response = (safe.body && typeof safe.body === 'object' ? safe.body : { message: String(safe.body ?? '') }) as JsonObject;
	const error = new NodeApiError(ctx.getNode(), response, {
		message: safe.found.message,
		description: safe.found.description,
		httpCode: String(found.httpStatus),
		itemIndex,
	});
	// NodeApiError swaps messages that mention common codes (ECONNRESET, ...) for generic ones.
	error.message = safe.found.message;
	error.context.apiCode = safe.found.apiCode;
	if (safe.found.topUpUrl) error.context.topUpUrl = safe.found.topUpUrl;
	if (safe.found.carrierCode) error.context.carrierCode = safe.found.carrierCode;
	return error;
}

function connectionError(ctx: CommsContext, connection: Connection, attempt: Attempt, code: string, outcome: Outcome): NodeApiError {
	const where = redactSecrets(connection.url, connection.secrets);
	const message =
		outcome.kind === 'unknown' && attempt.method !== 'GET'
			? `The connection to the ${attempt.apiName} broke after the request was sent (${code}), so it is unknown whether ${attempt.action}. It was not sent again, to avoid doing it twice: check before running this item again.`
			: `Could not reach the ${attempt.apiName} at ${where} (${code}).`;
	const error = new NodeApiError(ctx.getNode(), { message: code } as JsonObject, {
		message,
		description: 'Check the address in the credential and that the service is reachable from n8n.',
		itemIndex: attempt.itemIndex,
	});
	error.message = message;
	error.context.apiCode = code;
	return error;
}

async function send(ctx: CommsContext, connection: Connection, attempt: Attempt): Promise<IDataObject> {
	const signal = cancelSignal(ctx);
	for (let number = 1; ; number++) {
		const options: IHttpRequestOptions = {
			method: attempt.method,
			url: attempt.url,
			qs: attempt.qs,
			body: attempt.body?.(),
			json: true,
			timeout: REQUEST_TIMEOUT_MS,
			ignoreHttpStatusErrors: true,
			returnFullResponse: true,
			// Neither API redirects; following one could carry the key to another host or to plain http.
			disableFollowRedirect: true,
		};
		const release = await attempt.limiter.acquire(signal);
		let response: IN8nHttpFullResponse | undefined;
		let failure: unknown;
		try {
			response = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, connection.credentialType, options)) as IN8nHttpFullResponse;
		} catch (error) {
			failure = error;
		} finally {
			release();
		}

		let outcome: Outcome;
		if (response) {
			const { statusCode: status, body } = response;
			// A body with `success: false` is a failure whatever the status (the Unified API's statuses are not documented).
			const failed = status >= 300 || (body !== null && typeof body === 'object' && (body as IDataObject).success === false);
			if (!failed) return (body ?? {}) as IDataObject;
			const retryAfterMs = parseRetryAfter(response.headers?.['retry-after'], Date.now());
			outcome = { kind: 'status', status, retryAfterMs };
			if (status === 429) attempt.limiter.pauseUntil(systemClock.now() + (retryAfterMs ?? 1000));
			const decision = decideRetry(outcome, number, { idempotent: attempt.method === 'GET', retryableStatuses: attempt.retryableStatuses });
			if (!decision.retry) throw apiError(ctx, connection, attempt.describe(status, body), body, attempt.itemIndex);
			ctx.logger?.debug(`${attempt.apiName}: HTTP ${status}, retrying in ${decision.delayMs} ms (attempt ${number})`);
			await sleep(systemClock, decision.delayMs, signal);
			continue;
		}

		const code = networkCode(failure);
		if (code === 'ERR_CANCELED') throw new NodeOperationError(ctx.getNode(), 'The execution was cancelled', { itemIndex: attempt.itemIndex });
		if (!code) {
			// Not a connection failure: the credential's own rules, or n8n refusing the request
			// (its SSRF protection, for one). Nothing to retry; say what it was, without secrets.
			const rule = causes(failure).find((cause) => cause instanceof CredentialRuleError) as Error | undefined;
			const message = redactSecrets(String((rule ?? (failure as Error))?.message ?? failure), connection.secrets);
			throw new NodeOperationError(ctx.getNode(), message, { itemIndex: attempt.itemIndex });
		}
		outcome = NOT_SENT.has(code) ? { kind: 'notSent' } : { kind: 'unknown' };
		const decision = decideRetry(outcome, number, { idempotent: attempt.method === 'GET', retryableStatuses: attempt.retryableStatuses });
		if (!decision.retry) throw connectionError(ctx, connection, attempt, code, outcome);
		ctx.logger?.debug(`${attempt.apiName}: connection failed (${code}), retrying in ${decision.delayMs} ms (attempt ${number})`);
		await sleep(systemClock, decision.delayMs, signal);
	}
}

export interface AccountRequest {
	method: 'GET' | 'POST';
	/** Path under the base URL, with its /v1 segment. */
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
	itemIndex?: number;
	/** What the request does, for the message when its outcome is unknown ("the SMS was sent"). */
	action?: string;
}

/** A request to the Account API v1. Returns the parsed body of a success. */
export async function accountApiRequest(ctx: CommsContext, request: AccountRequest): Promise<IDataObject> {
	const connection = await getConnection(ctx, ACCOUNT_CREDENTIAL);
	const qs = request.qs && Object.fromEntries(Object.entries(request.qs).filter(([, v]) => v !== undefined && v !== ''));
	return await send(ctx, connection, {
		method: request.method,
		url: `${connection.url}${request.path}`,
		qs,
		body: request.body ? () => ({ ...request.body }) : undefined,
		itemIndex: request.itemIndex,
		limiter: sharedLimiter(connection.scope, ACCOUNT_LIMIT),
		retryableStatuses: [500],
		describe: describeAccountError,
		apiName: 'Comms Account API',
		action: request.action ?? 'the request was carried out',
	});
}

export interface UnifiedSuccess extends IDataObject {
	success: true;
	result: IDataObject;
	billing: IDataObject;
}

/** One envelope to the Unified API. Returns the success envelope. */
export async function unifiedApiRequest(
	ctx: CommsContext,
	service: UnifiedService,
	action: string,
	data: IDataObject,
	itemIndex?: number,
): Promise<UnifiedSuccess> {
	const connection = await getConnection(ctx, UNIFIED_CREDENTIAL);
	return (await send(ctx, connection, {
		method: 'POST',
		url: connection.url,
		body: () => ({ service, action, data: { ...data } }),
		itemIndex,
		limiter: sharedLimiter(`${connection.scope}:${service}`, UNIFIED_LIMITS[service]),
		retryableStatuses: [],
		describe: describeUnifiedError,
		apiName: 'Comms Unified API',
		action: `the ${service} request was carried out`,
	})) as UnifiedSuccess;
}
