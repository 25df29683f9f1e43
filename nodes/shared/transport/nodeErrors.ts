/**
 * The NodeApiErrors a request ends with: the API's own refusal, a plain one with our code,
 * the circuit breaker's, and a write's whose outcome is unknown; all cleared of secrets.
 */
import { type JsonObject, NodeApiError } from 'n8n-workflow';
import { systemClock } from './serverClock';
import type { ErrorDescription } from './answers';
import { breaker, DEFAULT_RETRY } from './retry';
import { redactSecrets } from './credentialRules';
import type { Attempt, Ending } from './attempt';
import type { CommsContext, Connection } from './connection';
import { requestTimeoutMs } from './timeout';

export function humanDuration(ms: number): string {
	const seconds = Math.ceil(ms / 1000);
	if (seconds < 120) return `${seconds} seconds`;
	const minutes = Math.round(seconds / 60);
	if (minutes < 120) return `${minutes} minutes`;
	const hours = Math.round(minutes / 60);
	if (hours < 48) return `${hours} hours`;
	return `${Math.round(hours / 24)} days`;
}

export function apiError(
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

/** The error of a request not sent because the key's circuit is open (see `TimeoutBreaker`). */
export function notAnsweringError(
	ctx: CommsContext,
	connection: Connection,
	attempt: Attempt,
	openUntil: number,
): NodeApiError {
	const where = redactSecrets(connection.url, connection.secrets);
	const seconds = Math.round(requestTimeoutMs() / 100) / 10;
	return plainError(
		ctx,
		connection,
		`The ${attempt.profile.name} at ${where} accepted the last ${breaker.threshold} requests with this key and did not answer any of them within ${seconds} seconds, so the node stops sending to it for ${humanDuration(openUntil - systemClock.now())}. This item was not sent.`,
		'Check that the service is up and answering. The items whose request timed out have their own error, which says whether they were carried out; run again only the items that were not sent.',
		'NOT_ANSWERING',
		attempt.itemIndex,
	);
}

/** A write's story, for the error when its outcome is unknown: see `unknownOutcomeError`. */
export interface UnknownStory {
	/** The first attempt whose outcome was unknown. */
	first: Extract<Ending, { kind: 'unknown' }>;
	/** What the look-ups after it saw, in a sentence, when there were any. */
	lookedUp?: string;
	/**
	 * When the look-ups found nothing and it was sent again, once: how that attempt ended (a
	 * clause: "the API refused that attempt (…)"), and what the look-ups after it saw.
	 */
	resend?: { ended: string; lookedUp?: string };
	/** Attempts that may have been carried out (sent, with an unknown outcome): 1 or 2. */
	sent: number;
	/** Attempts the API refused with 429 (never carried out). */
	rateLimited: number;
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** How many times the request went out, truthfully, for the end of a message. */
function sentLine(sent: number, rateLimited: number): string {
	const times = sent === 1 ? 'once' : sent === 2 ? 'twice' : `${sent} times`;
	const refused =
		rateLimited > 0
			? ` (besides ${rateLimited === 1 ? 'one attempt' : `${rateLimited} attempts`} the API refused with HTTP 429, which it never carries out)`
			: '';
	return sent === 1
		? `It was sent once${refused}, and was not sent again, to avoid doing it twice`
		: `It was sent ${times} in all${refused}, and was not sent again`;
}

/**
 * The error of a write that may or may not have been carried out: what happened, how many times
 * it went out, and what to check before doing it again (`check`, when the caller knows).
 */
export function unknownOutcomeError(
	ctx: CommsContext,
	connection: Connection,
	attempt: Attempt,
	story: UnknownStory,
	check = 'check whether it was',
): NodeApiError {
	const { first, lookedUp, resend } = story;
	const parts = resend
		? [
				`${capitalised(first.reason)}.`,
				lookedUp ?? '',
				`So it was tried again, once, and ${resend.ended}, so it is unknown whether ${attempt.action}.`,
				resend.lookedUp ?? '',
			]
		: [`${capitalised(first.reason)}, so it is unknown whether ${attempt.action}.`, lookedUp ?? ''];
	parts.push(
		`${sentLine(story.sent, story.rateLimited)}: ${check} before running this item again.`,
	);
	const message = parts.filter(Boolean).join(' ');
	const description =
		first.description ??
		(first.status === undefined
			? 'Check the address in the credential and that the service is reachable from n8n.'
			: attempt.profile.describe(first.status, first.body).description);
	const error = plainError(
		ctx,
		connection,
		message,
		description,
		first.code,
		attempt.itemIndex,
		first.status,
	);
	// Read by the item runner and the Spending Cap: listed, counted at its estimate, never run again.
	return withOutcome(marked(error, attempt), 'unknown');
}

/** The error of an answer, as the request's API describes its status and body. */
export function answerError(
	ctx: CommsContext,
	connection: Connection,
	attempt: Attempt,
	status: number,
	body: unknown,
): NodeApiError {
	const found = attempt.profile.describe(status, body);
	return marked(apiError(ctx, connection, found, body, attempt.itemIndex), attempt);
}

/**
 * Marks an error whose API code the profile says halts what follows (`context.halts`, read by
 * runtime/halts.ts): no further request with this credential in the execution, or in the run.
 */
function marked(error: NodeApiError, attempt: Attempt): NodeApiError {
	const code = error.context.apiCode;
	const halts = attempt.profile.halts;
	if (typeof code === 'string' && halts && Object.hasOwn(halts, code))
		error.context.halts = halts[code];
	return error;
}

/** The error a request ends with when it will not be tried again. */
export function finalError(
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
				`The ${attempt.profile.name} is refusing requests for now (HTTP 429) and asked to wait ${asked} before the next one (Retry-After), longer than the ${humanDuration(attempt.maxWaitMs ?? DEFAULT_RETRY.maxWaitMs)} the node waits. This item was not carried out (a 429 is a refusal): send it again later.`,
				`The rate limit of this API key was exceeded. The server asked for a pause of ${asked}.`,
				'RATE_LIMITED',
				attempt.itemIndex,
				429,
			);
			// For n8n's poll backoff: the wait the server asked for.
			if (ending.retryAfterMs) error.context.retryAfterMs = ending.retryAfterMs;
			return error;
		}
		return answerError(ctx, connection, attempt, ending.status, ending.body);
	}
	if (ending.kind === 'unknown' && ending.status !== undefined)
		return answerError(ctx, connection, attempt, ending.status, ending.body);
	const where = redactSecrets(connection.url, connection.secrets);
	const message =
		ending.kind === 'notSent'
			? `Could not reach the ${attempt.profile.name} at ${where} (${ending.code}).`
			: ending.code === 'ETIMEDOUT'
				? `The ${attempt.profile.name} at ${where} did not answer within ${Math.round(requestTimeoutMs() / 1000)} seconds, after retrying.`
				: `${capitalised(ending.reason)}, after retrying.`;
	const error = plainError(
		ctx,
		connection,
		message,
		'Check the address in the credential and that the service is reachable from n8n.',
		ending.code,
		attempt.itemIndex,
	);
	return marked(error, attempt);
}

/*
 * What became of a write, as its error says: the one word the item runner, the Spending Cap and
 * the user read. An error that does not say is unknown: only what is proven is anything else.
 *
 * - `notSent`: proven that no byte of the request reached the server (or it was never tried);
 * - `refused`: the API's own documented refusal, in its own error shape: nothing was done;
 * - `unknown`: carried out or not, nobody can tell.
 *
 * A success ("done") is not an error and needs no mark.
 */
export type WriteOutcome = 'notSent' | 'refused' | 'unknown';

const OUTCOMES: ReadonlySet<string> = new Set<WriteOutcome>(['notSent', 'refused', 'unknown']);

interface WithContext {
	context?: Record<string, unknown>;
}

/** The outcome an error carries; unknown when it carries none. */
export function outcomeOf(error: unknown): WriteOutcome {
	const outcome = (error as WithContext | null | undefined)?.context?.outcome;
	return typeof outcome === 'string' && OUTCOMES.has(outcome)
		? (outcome as WriteOutcome)
		: 'unknown';
}

/** Whether the error says its outcome itself (rather than being unknown by default). */
export function hasOutcome(error: unknown): boolean {
	const outcome = (error as WithContext | null | undefined)?.context?.outcome;
	return typeof outcome === 'string' && OUTCOMES.has(outcome);
}

/** Marks the error with its outcome (n8n's errors keep it in `context`); returns the error. */
export function withOutcome<E>(error: E, outcome: WriteOutcome): E {
	if (error !== null && typeof error === 'object') {
		const target = error as WithContext;
		target.context = { ...(target.context ?? {}), outcome };
	}
	return error;
}

/** What each outcome means, in words, for an error item or a message. */
export const OUTCOME_WORDS: Record<WriteOutcome, string> = {
	notSent: 'not sent',
	refused: 'refused by the API',
	unknown: 'unknown',
};
