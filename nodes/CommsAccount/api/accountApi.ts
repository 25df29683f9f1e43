/**
 * The Account API v1 as the nodes see it. Its profile: its name, its credential and its key's rule
 * (the prefix, checked by the credential class before n8n sends anything and by the transport),
 * its limits, what its answers look like, and every error it documents in words a non-developer
 * can act on (docs/api.md). And what the Account nodes call: a request sent through the shared
 * transport with that profile, and the API's clock for a node's credential.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	apiClock,
	type ApiClock,
	type ApiProfile,
	type CommsContext,
	CredentialRuleError,
	detail,
	type ErrorDescription,
	fallback,
	getConnection,
	isObject,
	type RateLimit,
	type RecordTime,
	type RecoveryLookup,
	send,
	text,
} from '../../shared/transport';

export const ACCOUNT_CREDENTIAL = 'commsAccountApi';

export const ACCOUNT_KEY_PREFIX = 'acc_';

export function assertAccountKey(apiKey: unknown): string {
	const key = typeof apiKey === 'string' ? apiKey.trim() : '';
	if (!key)
		throw new CredentialRuleError(
			'The Comms Account API credential has no API key. Paste the key from the dashboard\'s Account API page; it starts with "acc_".',
		);
	if (!key.startsWith(ACCOUNT_KEY_PREFIX)) {
		throw new CredentialRuleError(
			'This is not an Account API key: Account API keys start with "acc_". (Keys starting with "key_live_" or "key_test_" belong to the Comms Unified API credential.)',
		);
	}
	return key;
}

/** The Account API's documented limit, per key. */
export const ACCOUNT_LIMIT: RateLimit = { perWindow: 600, windowMs: 60_000, concurrency: 25 };

const ACCOUNT_MESSAGES: Record<string, string> = {
	missing_api_key:
		'No API key reached the Comms Account API. Check the Comms Account API credential.',
	invalid_api_key:
		"The Comms Account API did not accept the API key: it is unknown, revoked or has been rotated. Generate a new key in the dashboard's Account API page and update the credential.",
	key_disabled:
		'This Account API key has been disabled by an administrator. Ask your account administrator to enable it, or use another key.',
	account_suspended:
		'The account is suspended because its minutes or credits have run out. Top up the account in the dashboard; every request, reads included, is refused until then.',
	insufficient_minutes:
		'No call minutes left for a manual call. Top up call minutes in the dashboard, then run again only the items that were not sent.',
	insufficient_ai_minutes:
		'No AI minutes left for an AI call. Top up AI minutes in the dashboard, then run again only the items that were not sent.',
	missing_field: 'A required field was missing from the request.',
	missing_agent_phone:
		'A manual call needs an agent phone to ring first: fill in Agent Phone, or give the API key a default agent phone in the dashboard.',
	invalid_mode: 'The call mode must be "manual" or "ai".',
	agent_phone_is_tc_number:
		"Agent Phone is one of the account's own service numbers. Use the agent's own mobile, desk or landline number.",
	invalid_number:
		'A phone number was not accepted: numbers must be valid and in international (E.164) form.',
	message_too_long: 'The SMS is too long: the limit is 1600 characters.',
	phoneDoc_sms_not_configured:
		'This number has no SMS sender paired with it, so it cannot send SMS. Pick a number with SMS, or pair one in the dashboard.',
	phoneDoc_sms_disabled:
		'SMS sending is disabled on this number. Enable it in the dashboard, or pick another number.',
	phoneDocId_not_permitted:
		'This API key is restricted to other numbers and may not use this one. Pick an allowed number, or use an unrestricted key.',
	call_not_found: 'No call with that ID was found on this number.',
	phoneDoc_not_found: 'No number with that ID exists on this account. Pick one from the list.',
	message_not_found: 'No SMS with that message ID exists on this account.',
};

/**
 * Codes after which no request with the same credential can succeed for the rest of the
 * execution (runtime/halts.ts): the key is not accepted, or the account is suspended.
 */
const HALTS: Record<string, 'execution' | 'run'> = {
	invalid_api_key: 'execution',
	missing_api_key: 'execution',
	key_disabled: 'execution',
	account_suspended: 'execution',
};

/** An error body in the Account API's own shape: `success: false` and a code in `error`. */
export function isAccountErrorBody(body: unknown): boolean {
	return isObject(body) && body.success === false && typeof body.error === 'string';
}

/**
 * The Account API documents what each of these statuses means, and each is a refusal: the
 * request was not carried out (400 missing or invalid field, 401 key, 402 nothing left, 403 not
 * permitted, 404 no such number or message, 405 wrong verb, 502 the carrier rejected it).
 */
const ACCOUNT_REFUSAL_STATUSES: ReadonlySet<number> = new Set([400, 401, 402, 403, 404, 405, 502]);

/**
 * Whether an answer is the Account API's own documented refusal: its error shape, with a status
 * its documentation gives as a refusal. Anything else that is not a success (a 500, a status it
 * does not document, another shape) leaves a write's outcome unknown.
 */
export function isAccountRefusal(status: number, body: unknown): boolean {
	return isAccountErrorBody(body) && ACCOUNT_REFUSAL_STATUSES.has(status);
}

/** A success body of the Account API: a JSON object with `success: true`. */
export function isAccountSuccessBody(body: unknown): boolean {
	return isObject(body) && body.success === true;
}

const CARRIER_CODE_KEYS = [
	'carrierCode',
	'carrier_code',
	'carrierErrorCode',
	'providerCode',
	'code',
];

export function describeAccountError(status: number, body: unknown): ErrorDescription {
	const obj = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
	const code = text(obj.error);
	const serverMessage =
		text(obj.message) ?? (typeof body === 'string' ? text(body.slice(0, 300)) : undefined);
	let message = (code && ACCOUNT_MESSAGES[code]) || fallback(status);
	if (code === 'missing_field' && serverMessage)
		message = `A required field was missing: ${serverMessage}`;
	const result: ErrorDescription = {
		message,
		description: detail(status, code, serverMessage),
		apiCode: code,
		httpStatus: status,
	};
	if (status === 402 && !ACCOUNT_MESSAGES[code ?? '']) {
		result.message =
			'The account has run out of what this request needs (SMS credits, minutes or AI minutes). Top up in the dashboard, then run again only the items that were not sent.';
	}
	// Only the API's own 502 is the carrier's answer; one from a gateway or proxy (an HTML page,
	// or JSON in another shape) is not blamed on the carrier.
	if (status === 502 && isAccountErrorBody(body)) {
		result.message = 'The telephone carrier rejected the request.';
		const carrier = CARRIER_CODE_KEYS.map((key) => obj[key]).find(
			(v) => typeof v === 'string' || typeof v === 'number',
		);
		if (carrier !== undefined) {
			result.carrierCode = String(carrier);
			result.message = `The telephone carrier rejected the request (carrier code ${result.carrierCode}).`;
		}
	}
	return result;
}

/** The identifiers in these fields, each as `prefix:value` (an SMS's and a call's never meet). */
function idsIn(record: Record<string, unknown>, prefix: string, keys: string[]): string[] {
	return keys
		.map((key) => record[key])
		.filter(
			(id): id is string | number =>
				(typeof id === 'string' && id !== '') || typeof id === 'number',
		)
		.map((id) => `${prefix}:${id}`);
}

const SMS_IDS = ['messageId', 'id'];
const CALL_IDS = ['callId', 'callSid', 'id'];

/** When the API made a record: an SMS's `sentAt` (or `createdAt`), a call's `createdAt`. */
function madeAt(record: Record<string, unknown>, keys: string[]): number {
	for (const key of keys) {
		const value = record[key];
		if (typeof value !== 'string') continue;
		const ms = Date.parse(value);
		if (!Number.isNaN(ms)) return ms;
	}
	return NaN;
}

/**
 * The records of an Account API answer (`messages` of GET /v1/sms, `calls` of GET /v1/calls) with
 * the time the API stamped each when it made it, and their identifiers.
 */
export function accountRecordTimes(body: IDataObject): RecordTime[] {
	const times: RecordTime[] = [];
	const add = (list: unknown, prefix: string, ids: string[], timeKeys: string[]) => {
		if (!Array.isArray(list)) return;
		for (const record of list)
			if (isObject(record))
				times.push({ ids: idsIn(record, prefix, ids), atMs: madeAt(record, timeKeys) });
	};
	add(body.messages, 'sms', SMS_IDS, ['sentAt', 'createdAt']);
	add(body.calls, 'call', CALL_IDS, ['createdAt']);
	return times;
}

/** The record a write made: an SMS send's `messageId`, a call creation's `callId` and `callSid`. */
export function accountCreatedIds(body: IDataObject): string[] {
	if (body.messageId !== undefined) return idsIn(body, 'sms', ['messageId']);
	return idsIn(body, 'call', ['callId', 'callSid']);
}

/** The Account API v1 as the transport sees it: every request to it carries this profile. */
export const accountApi: ApiProfile = {
	name: 'Comms Account API',
	credential: ACCOUNT_CREDENTIAL,
	scopeName: 'account',
	keyOf: assertAccountKey,
	addressKey: 'baseUrl',
	addressField: 'Base URL',
	addressHint: "It is the API host from your provider's documentation, without /v1.",
	limitOf: () => ACCOUNT_LIMIT,
	isSuccess: isAccountSuccessBody,
	isRefusal: isAccountRefusal,
	errorCodeOf: (body) =>
		isAccountErrorBody(body) ? String((body as { error: unknown }).error) : undefined,
	halts: HALTS,
	describe: describeAccountError,
	recordTimes: accountRecordTimes,
	createdIds: accountCreatedIds,
};

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
	 * For a write: how to look it up when its outcome is unknown (see `recoveryLookups.ts`). Then a
	 * 500, a gateway's 502/503/504, a broken connection or a timeout leads to a look-up, and the
	 * request is sent again only if the look-up shows it was not carried out. Without it, such
	 * a write is never sent again.
	 */
	recoveryLookup?: RecoveryLookup;
	/** The longest any one wait may be (a 429's Retry-After included); default 120 s. */
	maxWaitMs?: number;
}

/**
 * A request to the Account API v1. Returns the body of a success (an object with
 * `success: true`, cleared of secrets); anything else is a NodeApiError.
 */
export async function accountApiRequest(
	ctx: CommsContext,
	request: AccountRequest,
): Promise<IDataObject> {
	const connection = await getConnection(ctx, accountApi);
	const qs =
		request.qs &&
		Object.fromEntries(Object.entries(request.qs).filter(([, v]) => v !== undefined && v !== ''));
	return await send(ctx, connection, {
		profile: accountApi,
		method: request.method,
		url: `${connection.url}${request.path}`,
		qs,
		body: request.body ? () => ({ ...request.body }) : undefined,
		itemIndex: request.itemIndex,
		action: request.action ?? 'the request was carried out',
		recoveryLookup: request.method === 'POST' ? request.recoveryLookup : undefined,
		maxWaitMs: request.maxWaitMs,
	});
}

/** The Account API's clock for this node's credential (the transport's `apiClock`). */
export function accountClock(ctx: CommsContext): Promise<ApiClock> {
	return apiClock(ctx, accountApi);
}
