/**
 * A request from start to end: attempts sent one after the other, each ending read, the retry
 * decided (retry.ts), and a write whose outcome is unknown looked up before anything else.
 *
 * Every error that leaves here says what became of the request (`WriteOutcome` in nodeErrors.ts): `notSent` or
 * `refused` only when every attempt was proven not sent or refused by the API, `unknown`
 * otherwise, whatever went wrong and wherever. A write is sent again only after an unknown
 * outcome whose look-ups found nothing, and then once at most.
 */
import { type IDataObject, NodeApiError, NodeOperationError } from 'n8n-workflow';

import { breaker, decideRetry, DEFAULT_RETRY, type FailedEnding, parseRetryAfter } from './retry';
import { redactSecrets } from './credentialRules';
import { type Attempt, type Ending, limiterOf } from './attempt';
import { classifyFailure, classifyResponse } from './classify';
import type { CommsContext, Connection } from './connection';
import { cancelSignal, dispatch } from './dispatch';
import {
	finalError,
	hasOutcome,
	humanDuration,
	notAnsweringError,
	outcomeOf,
	unknownOutcomeError,
	type UnknownStory,
	withOutcome,
} from './nodeErrors';
import { claims, gate, type RecoveryFinding, recoverUnknown } from './recovery';
import { apiClocks, sleep, systemClock } from './serverClock';
import { requestTimeoutMs } from './timeout';

const noop = () => undefined;

/**
 * What a success shows of the API's clock: the times on the records it returned, and (a write)
 * the record it made between `sentMs` and `receivedMs`, whose time a later read will show.
 */
function learnClock(
	connection: Connection,
	attempt: Attempt,
	body: IDataObject,
	sentMs: number,
	receivedMs: number,
): void {
	const { profile } = attempt;
	if (attempt.method !== 'GET' && profile.createdIds)
		apiClocks.madeRecord(connection.scope, profile.createdIds(body), sentMs, receivedMs);
	if (profile.recordTimes) apiClocks.readRecords(connection.scope, profile.recordTimes(body));
}

/** n8n's error for anything thrown on the way (a cancelled wait, say), as the scanner requires. */
function asNodeError(
	ctx: CommsContext,
	error: unknown,
	itemIndex: number | undefined,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	const wrapped = new NodeOperationError(
		ctx.getNode(),
		String((error as Error)?.message ?? error),
		{
			itemIndex,
		},
	);
	const context = (error as { context?: IDataObject } | null)?.context;
	if (context) wrapped.context = { ...wrapped.context, ...context };
	return wrapped;
}

type UnknownEnding = Extract<Ending, { kind: 'unknown' }>;

/** What look-ups that did not find the record saw, in a sentence. */
function lookedUpText(
	attempt: Attempt,
	recovery: Exclude<RecoveryFinding, { kind: 'found' }>,
): string {
	const lookup = attempt.recoveryLookup!;
	if (recovery.kind === 'undecided')
		return `Looking it up in ${lookup.history} could not settle it: ${recovery.reason}.`;
	return `It was not in ${lookup.history} in ${recovery.lookups} look-ups over ${humanDuration(recovery.spanMs)}${lookup.resend ? '' : ', which is not proof enough to do it again: the API may record it late'}.`;
}

/**
 * How the attempt sent again after an unknown outcome ended, when it settled nothing, as the end
 * of "So it was tried again, once, and …, so it is unknown whether …".
 */
function endedText(attempt: Attempt, ending: Ending | undefined, error?: unknown): string {
	if (ending?.kind === 'unknown') return `${ending.reason} as well`;
	const message = String((error as Error | undefined)?.message ?? 'no reason given').replace(
		/\.$/,
		'',
	);
	return outcomeOf(error) === 'refused'
		? `the ${attempt.profile.name} refused that attempt (${message}), but not the first one`
		: `that attempt could not be sent (${message})`;
}

export async function send(
	ctx: CommsContext,
	connection: Connection,
	attempt: Attempt,
): Promise<IDataObject> {
	const cancel = cancelSignal(ctx);
	const limiter = limiterOf(connection, attempt);
	const write = attempt.method !== 'GET';
	const { recoveryLookup: lookup } = attempt;
	const gateKey = lookup ? `${connection.scope}|${lookup.key}` : '';
	const scoped = (ids: string[]) => ids.map((id) => `${connection.scope}|${id}`);
	let firstSentWallMs: number | undefined;
	/** When the first 429 without Retry-After came, on the monotonic clock. */
	let firstRateLimitedAt: number | undefined;
	let retryAfterRateLimit = false;
	/** Attempts that may have been carried out (their outcome unknown), and 429s. */
	let sent = 0;
	let rateLimited = 0;
	/** Whether a request is on its way: an error now leaves its outcome unknown. */
	let inFlight = false;
	/** The story so far, once an attempt's outcome was unknown and looked up. */
	let story: (UnknownStory & { lookups: number; spanMs: number }) | undefined;
	/** Set when the look-ups found nothing and the request was sent again. */
	let resent = false;

	try {
		for (let number = 1; ; number++) {
			const openUntil = breaker.openUntil(connection.scope, systemClock.now());
			if (openUntil !== undefined) throw notAnsweringError(ctx, connection, attempt, openUntil);
			const leave = lookup ? await gate.enter(gateKey, 'send') : noop;
			let ending: Ending;
			try {
				const { response, sentAtWallMs, receivedWallMs, failure, timedOut } = await dispatch(
					ctx,
					connection,
					attempt,
					limiter,
					cancel,
					() => (inFlight = true),
					retryAfterRateLimit,
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
				if (ending.kind === 'success') {
					learnClock(connection, attempt, ending.body, sentAtWallMs, receivedWallMs);
					if (lookup) claims.claim(scoped(lookup.idsOf(ending.body)), Date.now());
				}
				inFlight = false;
			} finally {
				leave();
			}

			if (ending.kind === 'success') {
				const body = redactSecrets(ending.body, connection.secrets);
				if (resent && lookup && story) {
					body.recoveredAfter = story.first.label;
					body.recovered = 'sentAgain';
					body.recovery = `After ${story.first.label} the outcome was unknown; ${lookup.what} was not in ${lookup.history} in ${story.lookups} look-ups over ${humanDuration(story.spanMs)}, so it had not been sent: the request was sent again, once.`;
				}
				return body;
			}
			if (ending.kind === 'refused') throw withOutcome(ending.error, 'refused');
			if (ending.kind === 'rateLimited') rateLimited++;
			if (ending.kind === 'unknown' && write) sent++;

			retryAfterRateLimit = ending.kind === 'rateLimited' && ending.retryAfterMs === undefined;
			if (retryAfterRateLimit) firstRateLimitedAt ??= systemClock.now();
			const failed: FailedEnding =
				ending.kind === 'rateLimited'
					? {
							kind: 'rateLimited',
							retryAfterMs: ending.retryAfterMs,
							waitedMs: systemClock.now() - (firstRateLimitedAt ?? systemClock.now()),
							keyQuietMs: limiter.msSinceAccepted(),
							windowMs: limiter.longestWindowMs,
						}
					: ending.kind === 'notSent'
						? { kind: 'notSent' }
						: {
								kind: 'unknown',
								responded: ending.status !== undefined,
								retryAfterMs: ending.retryAfterMs,
							};
			const decision = decideRetry(failed, number, {
				idempotent: !write,
				canLookUp: lookup !== undefined,
				policy:
					attempt.maxWaitMs === undefined
						? DEFAULT_RETRY
						: {
								...DEFAULT_RETRY,
								maxWaitMs: attempt.maxWaitMs,
								maxRateLimitedMs: attempt.maxWaitMs,
							},
				lookupSpanMs: requestTimeoutMs(),
			});

			if (decision.action === 'stop') {
				if (ending.kind === 'unknown' && write)
					// A write nothing can look up: never sent again.
					throw unknownOutcomeError(
						ctx,
						connection,
						attempt,
						{ first: ending, sent, rateLimited },
						attempt.check,
					);
				const error = finalError(ctx, connection, attempt, ending, decision.why);
				throw withOutcome(
					error,
					ending.kind === 'rateLimited'
						? 'refused'
						: ending.kind === 'notSent'
							? 'notSent'
							: 'unknown',
				);
			}

			if (decision.action === 'retry') {
				if (decision.holdKeyMs) limiter.pauseFor(decision.holdKeyMs);
				const what =
					ending.kind === 'rateLimited'
						? `HTTP ${ending.status}`
						: ending.kind === 'notSent'
							? `connection failed (${ending.code})`
							: ending.label;
				ctx.logger?.debug(
					`${attempt.profile.name}: ${what}, retrying in ${decision.delayMs} ms (attempt ${number})`,
				);
				await sleep(systemClock, decision.delayMs, cancel);
				continue;
			}

			// A write whose outcome is unknown: look it up, more than once, before anything else.
			const unknown = ending as UnknownEnding;
			const recovered = await recoverUnknown(ctx, connection, attempt, unknown, {
				atMs: decision.atMs,
				number,
				gateKey,
				firstSentWallMs: firstSentWallMs!,
				scoped,
				cancel,
				afterResend: resent,
			});
			if (recovered.kind === 'found') return recovered.body;
			const check = lookup!.check(new Date(firstSentWallMs!).toISOString());
			if (story) {
				// The second unknown outcome: never a third send.
				story.resend = {
					ended: endedText(attempt, unknown),
					lookedUp: lookedUpText(attempt, recovered),
				};
				story.sent = sent;
				story.rateLimited = rateLimited;
				throw unknownOutcomeError(ctx, connection, attempt, story, check);
			}
			story = {
				first: unknown,
				lookedUp: lookedUpText(attempt, recovered),
				lookups: recovered.lookups,
				spanMs: recovered.spanMs,
				sent,
				rateLimited,
			};
			if (recovered.kind === 'undecided' || !lookup!.resend)
				throw unknownOutcomeError(ctx, connection, attempt, story, check);
			resent = true;
		}
	} catch (caught) {
		// Every error leaving here is n8n's and says what became of the request.
		const error = asNodeError(ctx, caught, attempt.itemIndex);
		const marked = hasOutcome(caught);
		if (marked) withOutcome(error, outcomeOf(caught));
		if (write && story && outcomeOf(error) !== 'unknown') {
			// It was sent again after an unknown outcome, and that attempt did not settle it: the
			// first attempt's outcome is still unknown.
			story.resend = { ended: endedText(attempt, undefined, error) };
			story.sent = sent;
			story.rateLimited = rateLimited;
			const check = lookup ? lookup.check(new Date(firstSentWallMs!).toISOString()) : attempt.check;
			throw unknownOutcomeError(ctx, connection, attempt, story, check);
		}
		// An error nobody marked: unknown if a request was on its way, else nothing was sent.
		if (!marked) withOutcome(error, inFlight || sent > 0 ? 'unknown' : 'notSent');
		throw error;
	}
}
