/**
 * What an answer of an API, or of something in its place, says, in words a non-developer can
 * act on: the shape every description takes, the wording every API shares, and the answer of
 * something that is not the API at all. Each API's own wording is in its profile (in its
 * folder's `api/`). Pure.
 */

/** What an answer says: the transport wraps it in a NodeApiError. */
export interface ErrorDescription {
	message: string;
	description: string;
	/** The API's own machine-readable code, when it sent one. */
	apiCode?: string;
	httpStatus: number;
	/** Where to buy credits, when the API says. */
	topUpUrl?: string;
	/** The telephone carrier's code, when the API passes one on. */
	carrierCode?: string;
}

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

/** A JSON object (not null, not a list). */
export function isObject(value: unknown): value is Record<string, unknown> {
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
	profile: { name: string; addressField: string; addressHint: string },
	where: string,
	status: number,
	body: unknown,
): ErrorDescription {
	return {
		message: `The address ${where} does not answer like the ${profile.name}: it answered HTTP ${status} with ${kindOfBody(body)}.`,
		description: `Check the ${profile.addressField} in the credential. ${profile.addressHint}`,
		httpStatus: status,
	};
}

/** A string with something in it, trimmed; undefined otherwise. */
export function text(value: unknown): string | undefined {
	return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** The message for a status when the body names no code we know. */
export function fallback(status: number): string {
	return STATUS_MESSAGES[status] ?? `The API answered with HTTP ${status}.`;
}

/** "HTTP 402, code X. The API said: ..." */
export function detail(
	status: number,
	code: string | undefined,
	serverMessage: string | undefined,
): string {
	const parts = [`HTTP ${status}`];
	if (code) parts.push(`code ${code}`);
	const head = parts.join(', ');
	return serverMessage ? `${head}. The API said: ${serverMessage}` : `${head}.`;
}
