/**
 * Sending one attempt: a place under the key's rate limit, then the request through n8n's
 * `httpRequestWithAuthentication`, bounded as a whole by the timeout; what it teaches the
 * limiter and the circuit breaker. (The API's clock is learnt from the records of a success, in
 * send.ts, never from a `Date` header: see serverClock.ts.)
 */
import type { IHttpRequestOptions, IN8nHttpFullResponse } from 'n8n-workflow';

import { systemClock } from './serverClock';
import type { RateLimiter, ReleaseResult } from './pacing';
import { BREAKER_OPEN_TIMEOUTS, breaker, parseRetryAfter } from './retry';
import type { Attempt } from './attempt';
import type { CommsContext, Connection } from './connection';
import { requestTimeoutMs } from './timeout';

export function cancelSignal(ctx: CommsContext): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
}

/** A context whose cancel signal is `signal`: n8n gives every request the execution's own cancel signal, replacing the request's. */
function withCancelSignal(ctx: CommsContext, signal: AbortSignal): CommsContext {
	if (!('getExecutionCancelSignal' in ctx)) return ctx;
	return Object.create(ctx, { getExecutionCancelSignal: { value: () => signal } }) as CommsContext;
}

/** One attempt: a place under the key's limit, then the request, bounded as a whole by the timeout. */
export async function dispatch(
	ctx: CommsContext,
	connection: Connection,
	attempt: Attempt,
	/** The attempt's limiter (`limiterOf`), looked up once by the caller for all its attempts. */
	limiter: RateLimiter,
	cancel: AbortSignal | undefined,
	/** Called just before the request is handed to n8n: from then on, it may reach the server. */
	onSending: () => void = () => undefined,
	/** A request the server refused for the rate (429): it goes before those not sent yet. */
	retry = false,
) {
	// Built before the request takes its place: nothing may throw between taking a place and the
	// `finally` that gives it back.
	const body = attempt.body?.();
	const release = await limiter.acquire(cancel, { retry });
	const deadline = new AbortController();
	const stopTimer = systemClock.setTimer(() => deadline.abort(), requestTimeoutMs());
	const signal = cancel ? AbortSignal.any([cancel, deadline.signal]) : deadline.signal;
	const options: IHttpRequestOptions = {
		method: attempt.method,
		url: attempt.url,
		qs: attempt.qs,
		body,
		json: true,
		timeout: requestTimeoutMs(),
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
		onSending();
		const response = (await ctx.helpers.httpRequestWithAuthentication.call(
			withCancelSignal(ctx, signal),
			connection.credentialType,
			options,
		)) as IN8nHttpFullResponse;
		// A Retry-After that cannot be read counts as none, as send.ts retries it: the limiter
		// learns from that 429 (taken as a wait asked for, it held nothing, and the retry went at
		// once: a 429 a round trip for 4 minutes).
		result =
			response.statusCode !== 429
				? 'accepted'
				: parseRetryAfter(response.headers?.['retry-after'], Date.now()) === undefined
					? 'rateLimited'
					: 'deferred';
		breaker.answered(connection.scope);
		return {
			response,
			sentAtWallMs,
			receivedWallMs: Date.now(),
			failure: undefined,
			timedOut: false,
		};
	} catch (failure) {
		const timedOut = deadline.signal.aborted && !cancel?.aborted;
		if (timedOut)
			breaker.timedOut(
				connection.scope,
				systemClock.now(),
				BREAKER_OPEN_TIMEOUTS * requestTimeoutMs(),
			);
		return { response: undefined, sentAtWallMs, receivedWallMs: Date.now(), failure, timedOut };
	} finally {
		stopTimer();
		release(result);
	}
}
