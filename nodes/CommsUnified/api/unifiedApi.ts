/**
 * The Unified API as the nodes see it. Its profile: its name, its credential and its key's rule
 * (the prefix, which also says live or test, checked by the credential class before n8n sends
 * anything and by the transport), its per-service limits, what its envelopes look like, and every
 * error it documents in words a non-developer can act on (docs/api.md). And what the Unified node
 * calls: one envelope sent through the shared transport with that profile.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	type ApiProfile,
	type CommsContext,
	CredentialRuleError,
	detail,
	type ErrorDescription,
	fallback,
	getConnection,
	isObject,
	type RateLimit,
	send,
	text,
} from '../../shared/transport';

export const UNIFIED_CREDENTIAL = 'commsUnifiedApi';

export type UnifiedKeyMode = 'live' | 'test';

export function assertUnifiedKey(apiKey: unknown): { key: string; mode: UnifiedKeyMode } {
	const key = typeof apiKey === 'string' ? apiKey.trim() : '';
	if (!key)
		throw new CredentialRuleError(
			'The Comms Unified API credential has no API key. Paste a key starting with "key_live_" or "key_test_".',
		);
	if (key.startsWith('key_live_')) return { key, mode: 'live' };
	if (key.startsWith('key_test_')) return { key, mode: 'test' };
	throw new CredentialRuleError(
		'This is not a Unified API key: Unified API keys start with "key_live_" (live: real actions, credits charged) or "key_test_" (test: no charges). (Keys starting with "acc_" belong to the Comms Account API credential.)',
	);
}

export type UnifiedService = 'voice' | 'sms' | 'email' | 'ai';

/** The Unified API's documented limits, per key and service. */
export const UNIFIED_LIMITS: Record<UnifiedService, RateLimit> = {
	voice: { perWindow: 10, windowMs: 60_000, concurrency: 5 },
	sms: { perWindow: 100, windowMs: 60_000, concurrency: 50 },
	email: { perWindow: 200, windowMs: 60_000, concurrency: 100 },
	ai: { perWindow: 30, windowMs: 60_000, concurrency: 10 },
};

const UNIFIED_MESSAGES: Record<string, string> = {
	MISSING_API_KEY:
		'No API key reached the Comms Unified API. Check the Comms Unified API credential.',
	INVALID_API_KEY:
		'The Comms Unified API did not accept the API key: it is invalid or has been revoked. Regenerate it in the API dashboard and update the credential.',
	INSUFFICIENT_CREDITS:
		'Not enough credits for this request. Top up your credits, then run again only the items that were not sent.',
	SERVICE_UNAVAILABLE: 'This service is not available for your account.',
	INTERNAL_ERROR: 'The Comms Unified API had an internal error.',
};

/**
 * After these codes nothing more can succeed (runtime/halts.ts): with the same credential in this
 * execution (the key is not accepted, the prepaid credits ran out), or in this node run (its
 * service is not available).
 */
const HALTS: Record<string, 'execution' | 'run'> = {
	INSUFFICIENT_CREDITS: 'execution',
	INVALID_API_KEY: 'execution',
	MISSING_API_KEY: 'execution',
	SERVICE_UNAVAILABLE: 'run',
};

/** An error body in the Unified API's own envelope: `success: false` and a code in `code`. */
export function isUnifiedErrorBody(body: unknown): boolean {
	return isObject(body) && body.success === false && typeof body.code === 'string';
}

/**
 * The Unified API's documented refusals: codes that say nothing was done. Its documentation gives
 * no status per code, so the code decides, whatever the status. INTERNAL_ERROR, and any code it
 * does not document, leave a write's outcome unknown.
 */
const UNIFIED_REFUSAL_CODES: ReadonlySet<string> = new Set([
	'MISSING_API_KEY',
	'INVALID_API_KEY',
	'INSUFFICIENT_CREDITS',
	'SERVICE_UNAVAILABLE',
]);

/** Whether an answer is the Unified API's own documented refusal: its error envelope with one of those codes. */
export function isUnifiedRefusal(body: unknown): boolean {
	return (
		isUnifiedErrorBody(body) && UNIFIED_REFUSAL_CODES.has(String((body as { code: unknown }).code))
	);
}

/** A success body of the Unified API: the envelope with `success: true` and a `result` object. */
export function isUnifiedSuccessBody(body: unknown): boolean {
	return isObject(body) && body.success === true && isObject(body.result);
}

export function describeUnifiedError(status: number, body: unknown): ErrorDescription {
	const obj = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
	const code = text(obj.code);
	const serverMessage =
		text(obj.message) ??
		text(obj.error) ??
		(typeof body === 'string' ? text(body.slice(0, 300)) : undefined);
	const known = code ? UNIFIED_MESSAGES[code] : undefined;
	const result: ErrorDescription = {
		message:
			known ?? (status >= 400 ? fallback(status) : 'The Comms Unified API reported a failure.'),
		description: detail(status, code, serverMessage),
		apiCode: code,
		httpStatus: status,
	};
	if (code === 'INSUFFICIENT_CREDITS' || status === 402) {
		// The envelope has no balance fields: its message states the balance and the amount
		// required (in words the spec does not fix), and topUpUrl says where to buy credits. Said
		// plainly when the two amounts can be read from it, else the API's own words are quoted.
		const topUpUrl = text(obj.topUpUrl);
		result.topUpUrl = topUpUrl;
		const amount = String.raw`(£\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?(?:\s?(?:p|pence|credits?)\b)?)`;
		const balance = serverMessage?.match(
			new RegExp(String.raw`\b(?:balance|available|remaining|have)\b\D{0,20}?${amount}`, 'i'),
		)?.[1];
		const required = serverMessage?.match(
			new RegExp(String.raw`\b(?:required|requires|needs?|costs?|price)\b\D{0,20}?${amount}`, 'i'),
		)?.[1];
		const amounts =
			balance && required
				? ` Your balance is ${balance} and this request needs ${required}.`
				: serverMessage
					? ` The API said: ${serverMessage}`
					: '';
		const where = topUpUrl
			? `Top up your credits at ${topUpUrl}`
			: "Top up your credits in your account's dashboard";
		result.message = `Not enough credits for this request.${amounts} ${where}, then run again only the items that were not sent.`;
	}
	if (status === 429 && !known) result.message = fallback(429);
	return result;
}

/** The Unified API as the transport sees it: every request to it carries this profile. */
export const unifiedApi: ApiProfile = {
	name: 'Comms Unified API',
	credential: UNIFIED_CREDENTIAL,
	scopeName: 'unified',
	keyOf: (apiKey) => assertUnifiedKey(apiKey).key,
	addressKey: 'endpointUrl',
	addressField: 'Endpoint URL',
	secretKeys: ['webhookSecret'],
	addressHint: 'It is the one address every Unified API request is posted to.',
	limitOf: (service) => UNIFIED_LIMITS[service as UnifiedService],
	isSuccess: isUnifiedSuccessBody,
	isRefusal: (_status, body) => isUnifiedRefusal(body),
	errorCodeOf: (body) =>
		isUnifiedErrorBody(body) ? String((body as { code: unknown }).code) : undefined,
	internalErrorCodes: new Set(['INTERNAL_ERROR']),
	halts: HALTS,
	describe: describeUnifiedError,
};

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
	const connection = await getConnection(ctx, unifiedApi);
	return (await send(ctx, connection, {
		profile: unifiedApi,
		lane: service,
		method: 'POST',
		url: connection.url,
		body: () => ({ service, action, data: { ...data } }),
		itemIndex,
		action: `the ${service} request was carried out`,
		check: `check in the API dashboard (or the events its webhook received) whether it was`,
	})) as UnifiedSuccess;
}
