/**
 * Why a poll failed, declared the way n8n 2.41's poll backoff reads it.
 *
 * n8n looks along the error's chain for a `failure` object (n8n-workflow's `Failure`): a
 * timed cause (`rate-limited`, `quota-exhausted`, `temporarily-unavailable`) backs off on its
 * curve, at least as long as a declared `retryAfterMs`; an actionable cause
 * (`credential-invalid`, `configuration-invalid`, `node-defect`) counts as permanent and
 * waits its longest backoff (30 minutes) before trying again. Without a declaration it falls
 * back to the HTTP status it can find, and a 402 (a suspended account) would then be retried
 * on the short curve, about every minute at first.
 *
 * Pure: reads plain fields (`httpCode`, `context`, `errorResponse`), so it needs neither
 * `instanceof` nor this copy of n8n-workflow.
 */
import type { Failure } from 'n8n-workflow';

/** Statuses of a server that is failing now and may recover on its own. */
const UNAVAILABLE = new Set([500, 502, 503, 504]);

function record(value: unknown): Record<string, unknown> | undefined {
	return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
}

/** The wait the server asked for, in ms, as far as the error shows it. */
function declaredWaitMs(error: unknown): number | undefined {
	const fields = record(error);
	const context = record(fields?.context);
	if (typeof context?.retryAfterMs === 'number' && context.retryAfterMs > 0)
		return context.retryAfterMs;
	// The sandbox (and perhaps the real API: its 429 body is "not shown") says it in the body.
	const body = record(fields?.errorResponse);
	const seconds = body?.retryAfterSeconds;
	if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0) return seconds * 1000;
	return undefined;
}

/**
 * The failure a Comms Account API error stands for, or undefined when it cannot tell (n8n
 * then reads the status itself).
 */
export function failureOf(error: unknown): Failure | undefined {
	const fields = record(error);
	if (!fields) return undefined;
	const status = Number(fields.httpCode);
	if (status === 429) {
		const retryAfterMs = declaredWaitMs(error);
		return retryAfterMs ? { cause: 'rate-limited', retryAfterMs } : { cause: 'rate-limited' };
	}
	// 401: the key is missing, unknown, revoked, rotated or disabled.
	if (status === 401) return { cause: 'credential-invalid' };
	// 402: the account is suspended; someone has to top it up. 400/403/404: the trigger asks
	// for a number that does not exist or that the key may not read, or for a malformed peer.
	if (status === 400 || status === 402 || status === 403 || status === 404)
		return { cause: 'configuration-invalid' };
	if (UNAVAILABLE.has(status)) return { cause: 'temporarily-unavailable' };
	// No status: a connection that failed (the transport names its code, ECONNREFUSED, ...).
	const apiCode = record(fields.context)?.apiCode;
	if (!fields.httpCode && typeof apiCode === 'string' && /^E[A-Z_]+$|^UND_ERR_/.test(apiCode))
		return { cause: 'temporarily-unavailable' };
	return undefined;
}
