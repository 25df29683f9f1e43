/**
 * Small HTTP helpers shared by both APIs and the control surface: reading a request,
 * answering with JSON, and keeping keys out of anything that is logged.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

const MAX_BODY_BYTES = 1024 * 1024;

export interface ParsedRequest {
	method: string;
	/** Path without trailing slash (except for "/"). */
	path: string;
	query: URLSearchParams;
	headers: IncomingMessage['headers'];
	rawBody: Buffer;
	/** The parsed JSON body; undefined when there was no body. */
	body: unknown;
	/** Set when a body was sent but is not valid JSON. */
	bodyError: string | null;
}

export class BodyTooLarge extends Error {}

export async function readRequest(req: IncomingMessage): Promise<ParsedRequest> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req) {
		size += (chunk as Buffer).length;
		if (size > MAX_BODY_BYTES) throw new BodyTooLarge(`body larger than ${MAX_BODY_BYTES} bytes`);
		chunks.push(chunk as Buffer);
	}
	const rawBody = Buffer.concat(chunks);
	const url = new URL(req.url ?? '/', 'http://sandbox.local');
	const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
	let body: unknown;
	let bodyError: string | null = null;
	if (rawBody.length > 0) {
		try {
			body = JSON.parse(rawBody.toString('utf8'));
		} catch (error) {
			bodyError = (error as Error).message;
		}
	}
	return {
		method: req.method ?? 'GET',
		path,
		query: url.searchParams,
		headers: req.headers,
		rawBody,
		body,
		bodyError,
	};
}

export interface JsonReply {
	status: number;
	body: unknown;
	headers?: Record<string, string>;
}

export function sendJson(res: ServerResponse, reply: JsonReply): void {
	const payload = JSON.stringify(reply.body);
	res.writeHead(reply.status, {
		'content-type': 'application/json; charset=utf-8',
		'content-length': Buffer.byteLength(payload),
		...reply.headers,
	});
	res.end(payload);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function queryObject(query: URLSearchParams): Record<string, string> {
	const result: Record<string, string> = {};
	for (const [name, value] of query) if (!(name in result)) result[name] = value;
	return result;
}

/** The dashboard's masked form of a key: first 8 and last 4 characters. */
export function maskKey(key: string): string {
	if (key.length <= 12) return '*'.repeat(key.length);
	return `${key.slice(0, 8)}****${key.slice(-4)}`;
}

const KEY_PATTERN = /(?:acc_|key_live_|key_test_|whsec_)[A-Za-z0-9_-]*/g;

/**
 * A deep copy of `value` with every key-like token (and every `api_key` field) masked, so
 * that nothing the sandbox logs or echoes can leak a full key.
 */
export function redactKeys(value: unknown): unknown {
	if (typeof value === 'string') return value.replace(KEY_PATTERN, (token) => maskKey(token));
	if (Array.isArray(value)) return value.map(redactKeys);
	if (isPlainObject(value)) {
		return Object.fromEntries(
			Object.entries(value).map(([name, inner]) => [
				name,
				/^api_?key$/i.test(name) && typeof inner === 'string' ? maskKey(inner) : redactKeys(inner),
			]),
		);
	}
	return value;
}
