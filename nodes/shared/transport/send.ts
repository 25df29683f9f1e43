/**
 * A request from start to end: attempts sent one after the other, each ending read, the retry
 * decided (retry.ts), and a write whose outcome is unknown looked up before anything else.
 */
import type { IDataObject } from 'n8n-workflow';

import { sleep, systemClock } from '../clock';
import { decideRetry, DEFAULT_RETRY, type Outcome, parseRetryAfter } from '../retry';
import { redactSecrets } from '../secrets';
import type { Attempt, Ending } from './attempt';
import { breaker } from './breaker';
import { claims, gate } from './claims';
import { classifyFailure, classifyResponse } from './classify';
import type { CommsContext, Connection } from './connection';
import { cancelSignal, dispatch } from './dispatch';
import { recoverUnknown, type Resent } from './recoverUnknown';
import { finalError, humanDuration, notAnsweringError } from './nodeErrors';
import { requestTimeoutMs } from './timeout';

const noop = () => undefined;

export async function send(
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
	let resent: Resent | undefined;

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
			lookupSpanMs: requestTimeoutMs(),
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
		const recovered = await recoverUnknown(
			ctx,
			connection,
			attempt,
			ending as Extract<Ending, { kind: 'unknown' }>,
			{ atMs: decision.atMs, number, gateKey, firstSentWallMs: firstSentWallMs!, scoped, cancel },
		);
		if (recovered.kind === 'found') return recovered.body;
		resent = recovered.resent;
	}
}
