/**
 * Every error either API documents, turned into a message a non-developer can act on.
 *
 * Pure data and pure functions: `describeAccountError` / `describeUnifiedError` take the
 * HTTP status and the (already redacted) response body and say what happened. The
 * transport wraps the result in a NodeApiError.
 */

export interface ErrorDescription {
	message: string;
	description: string;
	/** The API's own machine-readable code, when it sent one. */
	apiCode?: string;
	httpStatus: number;
	/** Unified: where to buy credits. */
	topUpUrl?: string;
	/** Account 502: the carrier's code. */
	carrierCode?: string;
}

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

/** What each HTTP status means when the body names no code we know. */
const STATUS_MESSAGES: Record<number, string> = {
	400: 'The request was not accepted: a field is missing or invalid.',
	401: 'The API key was not accepted. Check the credential.',
	402: 'The account has run out of what this request needs (minutes, AI minutes, SMS credits or credits). Top up, then run again only the items that were not sent.',
	403: 'This API key may not do this.',
	404: 'Not found.',
	405: 'The API does not allow this method on this address (the node and the API version may not match).',
	429: "Too many requests: the API's rate limit was still exceeded after waiting and retrying.",
	500: 'The API had an unexpected failure, which persisted after retrying.',
	502: 'A gateway or proxy in front of the API answered HTTP 502 (bad gateway): the API itself did not answer.',
	503: 'The service is unavailable (HTTP 503), and stayed so after retrying.',
	504: 'A gateway or proxy in front of the API answered HTTP 504 (gateway timeout): the API did not answer it in time.',
};

/** An error body in the Account API's own shape: `success: false` and a code in `error`. */
export function isAccountErrorBody(body: unknown): boolean {
	return isObject(body) && body.success === false && typeof body.error === 'string';
}

/** An error body in the Unified API's own envelope: `success: false` and a code in `code`. */
export function isUnifiedErrorBody(body: unknown): boolean {
	return isObject(body) && body.success === false && typeof body.code === 'string';
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

/** A success body of the Account API: a JSON object with `success: true`. */
export function isAccountSuccessBody(body: unknown): boolean {
	return isObject(body) && body.success === true;
}

/** A success body of the Unified API: the envelope with `success: true` and a `result` object. */
export function isUnifiedSuccessBody(body: unknown): boolean {
	return isObject(body) && body.success === true && isObject(body.result);
}

function isObject(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** What a body that is not the API's JSON was, in words: "an HTML page", "an empty answer", ... */
function kindOfBody(body: unknown): string {
	if (body === undefined || body === null || body === '') return 'an empty answer';
	if (typeof body === 'string')
		return /^\s*</.test(body) || /<html/i.test(body) ? 'an HTML page' : 'text that is not JSON';
	if (Array.isArray(body)) return 'a JSON list';
	if (isObject(body)) return "JSON that is not in the API's format";
	return 'a bare JSON value';
}

/**
 * The answer of something that is not the API (a web app, a login page, a proxy's error page):
 * says so, and where to look. `where` is the address without secrets.
 */
export function describeNotTheApi(
	apiName: string,
	where: string,
	field: string,
	status: number,
	body: unknown,
): ErrorDescription {
	return {
		message: `The address ${where} does not answer like the ${apiName}: it answered HTTP ${status} with ${kindOfBody(body)}.`,
		description: `Check the ${field} in the credential. ${
			field === 'Base URL'
				? "It is the API host from your provider's documentation, without /v1."
				: 'It is the one address every Unified API request is posted to.'
		}`,
		httpStatus: status,
	};
}

function text(value: unknown): string | undefined {
	return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

function fallback(status: number): string {
	return STATUS_MESSAGES[status] ?? `The API answered with HTTP ${status}.`;
}

function detail(
	status: number,
	code: string | undefined,
	serverMessage: string | undefined,
): string {
	const parts = [`HTTP ${status}`];
	if (code) parts.push(`code ${code}`);
	const head = parts.join(', ');
	return serverMessage ? `${head}. The API said: ${serverMessage}` : `${head}.`;
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
