/**
 * The one way our nodes talk to either API.
 *
 * For every request: the credential's rules are checked (key prefix, HTTPS or loopback),
 * the request waits for its place under the key's rate limit, goes out through n8n's
 * `httpRequestWithAuthentication` (so n8n applies the credential, its proxy and TLS
 * settings) bounded as a whole by a timeout, and is retried only when that is safe (see
 * retry.ts). A success must be the API's own JSON, or it is an error ("does not answer like
 * the API"). A write whose outcome is unknown is looked up when the operation says how
 * (recovery.ts, lookups.ts), and otherwise never sent again. Everything that leaves, success
 * bodies included, has been cleared of keys and secrets; failures are NodeApiErrors.
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
import {
	assertAccountKey,
	assertSafeUrl,
	assertUnifiedKey,
	canonicalAddress,
	CredentialRuleError,
} from './credentialRules';
import {
	describeAccountError,
	describeNotTheApi,
	describeUnifiedError,
	type ErrorDescription,
	isAccountErrorBody,
	isAccountSuccessBody,
	isUnifiedErrorBody,
	isUnifiedSuccessBody,
} from './errors';
import {
	ACCOUNT_LIMIT,
	type RateLimiter,
	type ReleaseResult,
	sharedLimiter,
	UNIFIED_LIMITS,
	type UnifiedService,
} from './pacing';
import {
	ClaimLedger,
	LookupGate,
	type LookupResult,
	type LookupWindow,
	lookupSince,
	type ServerClock,
	serverClockOf,
} from './recovery';
import {
	BREAKER_OPEN_TIMEOUTS,
	decideRetry,
	DEFAULT_RETRY,
	type Outcome,
	parseRetryAfter,
	TimeoutBreaker,
} from './retry';
import { redactSecrets } from './secrets';

export type CommsContext =
	IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions | IHookFunctions;

export const ACCOUNT_CREDENTIAL = 'commsAccountApi';
export const UNIFIED_CREDENTIAL = 'commsUnifiedApi';

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

/**
 * The pacing scope of a key at an address: the API's limits are per key. The address is
 * canonical first, so `https://API.example.com` and `https://api.example.com:443/` share one.
 */
export function limiterScope(
	api: 'account' | 'unified',
	key: string,
	url: string,
	service?: UnifiedService,
): string {
	const base = `${api}:${fingerprint(key, canonicalAddress(url))}`;
	return service ? `${base}:${service}` : base;
}

function parseConnection(
	credentialType: string,
	credentials: ICredentialDataDecryptedObject,
): Connection {
	if (credentialType === ACCOUNT_CREDENTIAL) {
		const key = assertAccountKey(credentials.apiKey);
		const url = canonicalAddress(assertSafeUrl(credentials.baseUrl, 'Base URL'));
		return { credentialType, url, secrets: [key], scope: limiterScope('account', key, url) };
	}
	const { key } = assertUnifiedKey(credentials.apiKey);
	const url = canonicalAddress(assertSafeUrl(credentials.endpointUrl, 'Endpoint URL'));
	const secret = typeof credentials.webhookSecret === 'string' ? credentials.webhookSecret : '';
	return {
		credentialType,
		url,
		secrets: [key, secret].filter(Boolean),
		scope: limiterScope('unified', key, url),
	};
}

async function readConnection(ctx: CommsContext, credentialType: string): Promise<Connection> {
	const credentials = await ctx.getCredentials(credentialType);
	try {
		return parseConnection(credentialType, credentials);
	} catch (error) {
		// Only credential rules throw here; their messages never contain the key.
		throw new NodeOperationError(ctx.getNode(), (error as Error).message, {
			description: 'Fix the credential. This node sent no request.',
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

/**
 * How long one request may take, all of it: connecting, the answer's headers and its body.
 * (n8n's `timeout` is axios's, which after the headers only bounds how long the socket may sit
 * idle, so a server trickling its body could hold a request for ever.)
 */
let requestTimeoutMs = 30_000;

/**
 * Changes the whole-request timeout; returns the previous one. For tests, which cannot wait
 * 30 s. The look-ups of a write whose outcome is unknown span the same time.
 */
export function setRequestTimeout(ms: number): number {
	const previous = requestTimeoutMs;
	requestTimeoutMs = ms;
	return previous;
}

/**
 * A write the transport can look up when its outcome is unknown (see `lookups.ts`). Without
 * one, a write whose outcome is unknown is never sent again.
 */
export interface Reconcile {
	/** Writes that could be taken for one another (same number and recipient) share a key. */
	key: string;
	/** For the output's note: "the SMS", and where it was looked for: "the SMS history". */
	what: string;
	history: string;
	/**
	 * Whether it may be sent again when the history shows, after every look-up, that it was not
	 * carried out. A call never is: a second call would ring a person twice.
	 */
	resend: boolean;
	/** What the user should look for before trying again, given when it was first sent. */
	check(sentAtIso: string): string;
	/** The identifiers of the record a success body describes, claimed for the item. */
	idsOf(body: IDataObject): string[];
	/** Looks for the record the request may have made. Errors count as "cannot tell". */
	find(ctx: CommsContext, window: LookupWindow, itemIndex?: number): Promise<LookupResult>;
}

/**
 * The records sends in this process have claimed, and the gate between sends and look-ups of
 * one key: process-wide, so that a look-up never takes a record another execution's send made
 * (it waits for that send's answer, which claims the record) nor one another look-up found.
 */
let claims = new ClaimLedger();
const gate = new LookupGate();

/** Forgets every claim. For tests: a reset sandbox hands out its identifiers again. */
export function forgetClaims(): void {
	claims = new ClaimLedger();
}

/** Keys whose server accepts requests and never answers: their requests fail at once for a while. */
const breaker = new TimeoutBreaker();

/** What each address's clock is known to be, from its latest `Date` header. */
const serverClocks = new Map<string, ServerClock>();

interface Attempt {
	method: IHttpRequestMethods;
	url: string;
	qs?: IDataObject;
	body?: () => IDataObject;
	itemIndex?: number;
	limiter: RateLimiter;
	api: 'account' | 'unified';
	describe: (status: number, body: unknown) => ErrorDescription;
	apiName: string;
	/** The credential field holding the address, for "does not answer like the API". */
	addressField: string;
	/** What the request does, for the message when its outcome is unknown ("the SMS was sent"). */
	action: string;
	/** What to check, when its outcome is unknown and it cannot be looked up. */
	check?: string;
	reconcile?: Reconcile;
	/** The longest any one wait may be (a poll must not outlast its interval); default 120 s. */
	maxWaitMs?: number;
}

function apiError(
	ctx: CommsContext,
	connection: Connection,
	found: ErrorDescription,
	body: unknown,
	itemIndex?: number,
): NodeApiError {
	const safe = redactSecrets({ found, body }, connection.secrets);
	const response = (
		safe.body && typeof safe.body === 'object'
			? safe.body
			: { message: String(safe.body ?? '').slice(0, 300) }
	) as JsonObject;
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

function plainError(
	ctx: CommsContext,
	connection: Connection,
	message: string,
	description: string,
	apiCode: string,
	itemIndex?: number,
	httpCode?: number,
): NodeApiError {
	const safeMessage = redactSecrets(message, connection.secrets);
	const error = new NodeApiError(ctx.getNode(), { message: apiCode } as JsonObject, {
		message: safeMessage,
		description: redactSecrets(description, connection.secrets),
		httpCode: httpCode === undefined ? undefined : String(httpCode),
		itemIndex,
	});
	error.message = safeMessage;
	error.context.apiCode = apiCode;
	return error;
}

/** How an attempt ended. */
type Ending =
	| { kind: 'success'; body: IDataObject }
	/** The API refused or failed the request for good: throw this. */
	| { kind: 'refused'; error: NodeApiError }
	| { kind: 'rateLimited'; status: number; body: unknown; retryAfterMs?: number }
	/** Nothing reached the server. */
	| { kind: 'notSent'; code: string }
	/**
	 * Carried out or not, nobody can say. `label` names what happened ("HTTP 500"), `reason`
	 * says it in a sentence; `status`/`body` when an answer came.
	 */
	| {
			kind: 'unknown';
			label: string;
			reason: string;
			code: string;
			status?: number;
			body?: unknown;
			retryAfterMs?: number;
	  };

const GATEWAY_STATUS: Record<number, string> = {
	502: 'bad gateway',
	503: 'service unavailable',
	504: 'gateway timeout',
};

/** Reads an answer of the API (or of whatever answered in its place). */
function classifyResponse(
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
			error: apiError(ctx, connection, attempt.describe(status, body), body, attempt.itemIndex),
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
function classifyFailure(
	ctx: CommsContext,
	connection: Connection,
	attempt: Attempt,
	failure: unknown,
	timedOut: boolean,
): Ending {
	if (timedOut) {
		const seconds = Math.round(requestTimeoutMs / 100) / 10;
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

/** A context whose cancel signal is `signal`: n8n gives every request the execution's own cancel signal, replacing the request's. */
function withCancelSignal(ctx: CommsContext, signal: AbortSignal): CommsContext {
	if (!('getExecutionCancelSignal' in ctx)) return ctx;
	return Object.create(ctx, { getExecutionCancelSignal: { value: () => signal } }) as CommsContext;
}

/** One attempt: a place under the key's limit, then the request, bounded as a whole by the timeout. */
async function dispatch(
	ctx: CommsContext,
	connection: Connection,
	attempt: Attempt,
	cancel: AbortSignal | undefined,
) {
	const release = await attempt.limiter.acquire(cancel);
	const deadline = new AbortController();
	const stopTimer = systemClock.setTimer(() => deadline.abort(), requestTimeoutMs);
	const signal = cancel ? AbortSignal.any([cancel, deadline.signal]) : deadline.signal;
	const options: IHttpRequestOptions = {
		method: attempt.method,
		url: attempt.url,
		qs: attempt.qs,
		body: attempt.body?.(),
		json: true,
		timeout: requestTimeoutMs,
		abortSignal: signal,
		ignoreHttpStatusErrors: true,
		returnFullResponse: true,
		// Neither API redirects; following one could carry the key to another host or to plain http.
		disableFollowRedirect: true,
	};
	const sentAtWallMs = Date.now();
	// How the limiter learns what the server made of it: a 429 says the key's window is full.
	let result: ReleaseResult = 'unknown';
	try {
		const response = (await ctx.helpers.httpRequestWithAuthentication.call(
			withCancelSignal(ctx, signal),
			connection.credentialType,
			options,
		)) as IN8nHttpFullResponse;
		result =
			response.statusCode !== 429
				? 'accepted'
				: response.headers?.['retry-after'] === undefined
					? 'rateLimited'
					: 'deferred';
		breaker.answered(connection.scope);
		const clock = serverClockOf(response.headers?.date, sentAtWallMs, Date.now());
		// Without a Date header (a gateway may strip it), the latest one known still holds.
		if (clock) serverClocks.set(connection.scope, clock);
		return { response, sentAtWallMs, failure: undefined, timedOut: false };
	} catch (failure) {
		const timedOut = deadline.signal.aborted && !cancel?.aborted;
		if (timedOut)
			breaker.timedOut(
				connection.scope,
				systemClock.now(),
				BREAKER_OPEN_TIMEOUTS * requestTimeoutMs,
			);
		return { response: undefined, sentAtWallMs, failure, timedOut };
	} finally {
		stopTimer();
		release(result);
	}
}

const noop = () => undefined;

function humanDuration(ms: number): string {
	const seconds = Math.ceil(ms / 1000);
	if (seconds < 120) return `${seconds} seconds`;
	const minutes = Math.round(seconds / 60);
	if (minutes < 120) return `${minutes} minutes`;
	const hours = Math.round(minutes / 60);
	if (hours < 48) return `${hours} hours`;
	return `${Math.round(hours / 24)} days`;
}

async function send(
	ctx: CommsContext,
	connection: Connection,
	attempt: Attempt,
): Promise<IDataObject> {
	const cancel = cancelSignal(ctx);
	const { reconcile } = attempt;
	const gateKey = reconcile ? `${connection.scope}|${reconcile.key}` : '';
	const scoped = (ids: string[]) => ids.map((id) => `${connection.scope}|${id}`);
	let firstSentWallMs: number | undefined;
	let rateLimitWaitedMs = 0;
	/** Set when the look-ups found nothing and the request was sent again: what they saw. */
	let resent: { after: string; lookups: number; spanMs: number } | undefined;

	for (let number = 1; ; number++) {
		const openUntil = breaker.openUntil(connection.scope, systemClock.now());
		if (openUntil !== undefined) throw notAnsweringError(ctx, connection, attempt, openUntil);
		const leave = reconcile ? await gate.enter(gateKey, 'send') : noop;
		let ending: Ending;
		try {
			const { response, sentAtWallMs, failure, timedOut } = await dispatch(
				ctx,
				connection,
				attempt,
				cancel,
			);
			firstSentWallMs ??= sentAtWallMs;
			if (response) {
				const retryAfterMs = parseRetryAfter(response.headers?.['retry-after'], Date.now());
				ending = classifyResponse(
					ctx,
					connection,
					attempt,
					response.statusCode,
					response.body,
					retryAfterMs,
				);
			} else {
				ending = classifyFailure(ctx, connection, attempt, failure, timedOut);
			}
			if (ending.kind === 'success' && reconcile)
				claims.claim(scoped(reconcile.idsOf(ending.body)), Date.now());
		} finally {
			leave();
		}

		if (ending.kind === 'success') {
			const body = redactSecrets(ending.body, connection.secrets);
			if (resent && reconcile) {
				body.recoveredAfter = resent.after;
				body.recovered = 'sentAgain';
				body.recovery = `After ${resent.after} the outcome was unknown; ${reconcile.what} was not in ${reconcile.history} in ${resent.lookups} look-ups over ${humanDuration(resent.spanMs)}, so it had not been sent: the request was sent again, once.`;
			}
			return body;
		}
		if (ending.kind === 'refused') throw ending.error;

		const outcome: Outcome =
			ending.kind === 'rateLimited'
				? {
						kind: 'rateLimited',
						retryAfterMs: ending.retryAfterMs,
						windowMs: attempt.limiter.limit.windowMs,
						windowFreesInMs: attempt.limiter.msUntilWindowFrees(),
						waitedMs: rateLimitWaitedMs,
					}
				: ending.kind === 'notSent'
					? { kind: 'notSent' }
					: {
							kind: 'unknown',
							responded: ending.status !== undefined,
							retryAfterMs: ending.retryAfterMs,
						};
		const decision = decideRetry(outcome, number, {
			idempotent: attempt.method === 'GET',
			canLookUp: reconcile !== undefined,
			policy:
				attempt.maxWaitMs === undefined
					? DEFAULT_RETRY
					: { ...DEFAULT_RETRY, maxWaitMs: attempt.maxWaitMs },
			lookupSpanMs: requestTimeoutMs,
		});

		if (decision.action === 'stop')
			throw finalError(ctx, connection, attempt, ending, decision.why);

		if (decision.action === 'retry') {
			if (decision.holdKeyMs) attempt.limiter.pauseFor(decision.holdKeyMs);
			if (ending.kind === 'rateLimited') rateLimitWaitedMs += decision.delayMs;
			const what =
				ending.kind === 'rateLimited'
					? `HTTP ${ending.status}`
					: ending.kind === 'notSent'
						? `connection failed (${ending.code})`
						: ending.label;
			ctx.logger?.debug(
				`${attempt.apiName}: ${what}, retrying in ${decision.delayMs} ms (attempt ${number})`,
			);
			await sleep(systemClock, decision.delayMs, cancel);
			continue;
		}

		// A write whose outcome is unknown: look it up, more than once, before anything else.
		const unknown = ending as Extract<Ending, { kind: 'unknown' }>;
		const check = reconcile!.check(new Date(firstSentWallMs!).toISOString());
		const startedMs = systemClock.now();
		let lookups = 0;
		let found: LookupResult = { kind: 'absent' };
		for (const atMs of decision.atMs) {
			const waitMs = startedMs + atMs - systemClock.now();
			ctx.logger?.debug(
				`${attempt.apiName}: ${unknown.label} on a write, looking it up in ${reconcile!.history} in ${Math.max(0, Math.round(waitMs))} ms (attempt ${number}, look-up ${lookups + 1})`,
			);
			if (waitMs > 0) await sleep(systemClock, waitMs, cancel);
			lookups++;
			found = await lookUp(ctx, connection, attempt, gateKey, firstSentWallMs!, scoped);
			if (found.kind !== 'absent') break;
		}
		const spanMs = systemClock.now() - startedMs;
		if (found.kind === 'found') {
			const body = redactSecrets(found.result, connection.secrets);
			body.recoveredAfter = unknown.label;
			body.recovered = 'foundInHistory';
			body.recovery = `After ${unknown.label} the outcome was unknown; ${reconcile!.what} was found in ${reconcile!.history}${lookups > 1 ? ` at look-up ${lookups}` : ''}, so it was not sent again.`;
			return body;
		}
		if (found.kind === 'undecided')
			throw unknownOutcomeError(
				ctx,
				connection,
				attempt,
				unknown,
				`Looking it up in ${reconcile!.history} could not settle it: ${found.reason}.`,
				check,
			);
		if (!reconcile!.resend)
			throw unknownOutcomeError(
				ctx,
				connection,
				attempt,
				unknown,
				`It was not in ${reconcile!.history} in ${lookups} look-ups over ${humanDuration(spanMs)}, which is not proof enough to do it again: the API may record it late.`,
				check,
			);
		resent = { after: unknown.label, lookups, spanMs };
	}
}

/** The error of a request not sent because the key's circuit is open (see `TimeoutBreaker`). */
function notAnsweringError(
	ctx: CommsContext,
	connection: Connection,
	attempt: Attempt,
	openUntil: number,
): NodeApiError {
	const where = redactSecrets(connection.url, connection.secrets);
	const seconds = Math.round(requestTimeoutMs / 100) / 10;
	return plainError(
		ctx,
		connection,
		`The ${attempt.apiName} at ${where} accepted the last ${breaker.threshold} requests with this key and did not answer any of them within ${seconds} seconds, so the node stops sending to it for ${humanDuration(openUntil - systemClock.now())}. This item was not sent.`,
		'Check that the service is up and answering. The items whose request timed out have their own error, which says whether they were carried out; run again only the items that were not sent.',
		'NOT_ANSWERING',
		attempt.itemIndex,
	);
}

/** Looks a write up, with sends of the same key held back, and claims what it finds. */
async function lookUp(
	ctx: CommsContext,
	connection: Connection,
	attempt: Attempt,
	gateKey: string,
	firstSentWallMs: number,
	scoped: (ids: string[]) => string[],
): Promise<LookupResult> {
	const reconcile = attempt.reconcile!;
	const leave = await gate.enter(gateKey, 'lookUp');
	try {
		const window = {
			sinceMs: lookupSince(firstSentWallMs, serverClocks.get(connection.scope)),
			isClaimed: (ids: string[]) => claims.isClaimed(scoped(ids)),
		};
		let found: LookupResult;
		try {
			found = await reconcile.find(ctx, window, attempt.itemIndex);
		} catch (error) {
			if (cancelSignal(ctx)?.aborted)
				throw new NodeOperationError(ctx.getNode(), 'The execution was cancelled', {
					itemIndex: attempt.itemIndex,
				});
			found = {
				kind: 'undecided',
				reason: `the look-up itself failed (${redactSecrets(String((error as Error)?.message ?? error), connection.secrets)})`,
			};
		}
		if (found.kind === 'found') claims.claim(scoped(found.ids), Date.now());
		return found;
	} finally {
		leave();
	}
}

/**
 * The error of a write that may or may not have been carried out: what happened, that it was
 * not sent again, and what to check before doing it again (`check`, when the caller knows).
 */
function unknownOutcomeError(
	ctx: CommsContext,
	connection: Connection,
	attempt: Attempt,
	ending: Extract<Ending, { kind: 'unknown' }>,
	lookedUp = '',
	check = 'check whether it was',
): NodeApiError {
	const reason = ending.reason.charAt(0).toUpperCase() + ending.reason.slice(1);
	const message = `${reason}, so it is unknown whether ${attempt.action}. ${lookedUp ? `${lookedUp} ` : ''}It was not sent again, to avoid doing it twice: ${check} before running this item again.`;
	const description =
		ending.status === undefined
			? 'Check the address in the credential and that the service is reachable from n8n.'
			: attempt.describe(ending.status, ending.body).description;
	const error = plainError(
		ctx,
		connection,
		message,
		description,
		ending.code,
		attempt.itemIndex,
		ending.status,
	);
	// Read by items.ts: an item whose outcome is unknown is listed, and never run again.
	error.context.outcome = 'unknown';
	return error;
}

/** The error a request ends with when it will not be tried again. */
function finalError(
	ctx: CommsContext,
	connection: Connection,
	attempt: Attempt,
	ending: Exclude<Ending, { kind: 'success' | 'refused' }>,
	why: 'attempts' | 'waitTooLong' | 'unknownOutcome',
): NodeApiError {
	if (ending.kind === 'rateLimited') {
		if (why === 'waitTooLong') {
			const asked = humanDuration(ending.retryAfterMs ?? 0);
			const error = plainError(
				ctx,
				connection,
				`The ${attempt.apiName} is refusing requests for now (HTTP 429) and asked to wait ${asked} before the next one (Retry-After), longer than the ${humanDuration(attempt.maxWaitMs ?? DEFAULT_RETRY.maxWaitMs)} the node waits. This item was not carried out (a 429 is a refusal): send it again later.`,
				`The rate limit of this API key was exceeded. The server asked for a pause of ${asked}.`,
				'RATE_LIMITED',
				attempt.itemIndex,
				429,
			);
			// For n8n's poll backoff: the wait the server asked for.
			if (ending.retryAfterMs) error.context.retryAfterMs = ending.retryAfterMs;
			return error;
		}
		return apiError(
			ctx,
			connection,
			attempt.describe(ending.status, ending.body),
			ending.body,
			attempt.itemIndex,
		);
	}
	if (ending.kind === 'unknown' && (why === 'unknownOutcome' || attempt.method !== 'GET'))
		return unknownOutcomeError(ctx, connection, attempt, ending, '', attempt.check);
	if (ending.kind === 'unknown' && ending.status !== undefined)
		return apiError(
			ctx,
			connection,
			attempt.describe(ending.status, ending.body),
			ending.body,
			attempt.itemIndex,
		);
	const where = redactSecrets(connection.url, connection.secrets);
	const message =
		ending.code === 'ETIMEDOUT' && ending.kind === 'unknown'
			? `The ${attempt.apiName} at ${where} did not answer within ${Math.round(requestTimeoutMs / 1000)} seconds, after retrying.`
			: `Could not reach the ${attempt.apiName} at ${where} (${ending.code}).`;
	return plainError(
		ctx,
		connection,
		message,
		'Check the address in the credential and that the service is reachable from n8n.',
		ending.code,
		attempt.itemIndex,
	);
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
	/**
	 * For a write: how to look it up when its outcome is unknown (see `lookups.ts`). Then a
	 * 500, a gateway's 502/503/504, a broken connection or a timeout leads to a look-up, and the
	 * request is sent again only if the look-up shows it was not carried out. Without it, such
	 * a write is never sent again.
	 */
	reconcile?: Reconcile;
	/** The longest any one wait may be (a 429's Retry-After included); default 120 s. */
	maxWaitMs?: number;
}

/**
 * How far the Account API's clock is ahead of n8n's (negative: behind), from the `Date`
 * header of its latest answer in this process (the least its whole seconds and the request's
 * round trip allow); undefined before any answer with one.
 */
export async function accountClockOffsetMs(ctx: CommsContext): Promise<number | undefined> {
	const connection = await getConnection(ctx, ACCOUNT_CREDENTIAL);
	return serverClocks.get(connection.scope)?.lowOffsetMs;
}

/**
 * A request to the Account API v1. Returns the body of a success (an object with
 * `success: true`, cleared of secrets); anything else is a NodeApiError.
 */
export async function accountApiRequest(
	ctx: CommsContext,
	request: AccountRequest,
): Promise<IDataObject> {
	const connection = await getConnection(ctx, ACCOUNT_CREDENTIAL);
	const qs =
		request.qs &&
		Object.fromEntries(Object.entries(request.qs).filter(([, v]) => v !== undefined && v !== ''));
	return await send(ctx, connection, {
		method: request.method,
		url: `${connection.url}${request.path}`,
		qs,
		body: request.body ? () => ({ ...request.body }) : undefined,
		itemIndex: request.itemIndex,
		limiter: sharedLimiter(connection.scope, ACCOUNT_LIMIT),
		api: 'account',
		describe: describeAccountError,
		apiName: 'Comms Account API',
		addressField: 'Base URL',
		action: request.action ?? 'the request was carried out',
		reconcile: request.method === 'POST' ? request.reconcile : undefined,
		maxWaitMs: request.maxWaitMs,
	});
}

/**
 * Now on the Account API's clock, as far as its `Date` headers have shown it (this host's
 * clock when none has): for times sent to it, such as the `since` of a history request.
 */
export async function accountServerNow(ctx: CommsContext): Promise<number> {
	const connection = await getConnection(ctx, ACCOUNT_CREDENTIAL);
	return Date.now() + (serverClocks.get(connection.scope)?.lowOffsetMs ?? 0);
}

export interface UnifiedSuccess extends IDataObject {
	success: true;
	result: IDataObject;
	billing: IDataObject;
}

/**
 * One envelope to the Unified API. Returns the success envelope (cleared of secrets). The API
 * has nothing to look a request up with, so one whose outcome is unknown is never sent again.
 */
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
		api: 'unified',
		describe: describeUnifiedError,
		apiName: 'Comms Unified API',
		addressField: 'Endpoint URL',
		action: `the ${service} request was carried out`,
		check: `check in the API dashboard (or the events its webhook received) whether it was`,
	})) as UnifiedSuccess;
}
