/**
 * Shared set-up for sandbox tests: one sandbox per file on a free port, reset before each
 * test, and small undici helpers to drive it over real HTTP.
 */
import { request } from 'undici';

import type { Sandbox, SandboxOptions } from '../../sandbox';
import { useSandbox as useSharedSandbox } from '../support/sandbox';

export interface HttpResult {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	// Parsed JSON that each test reads field by field and asserts on, so the type stays loose.
	// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
	body: any;
}

export async function http(
	method: string,
	url: string,
	options: { headers?: Record<string, string>; json?: unknown; raw?: string } = {},
): Promise<HttpResult> {
	const body =
		options.raw ?? (options.json === undefined ? undefined : JSON.stringify(options.json));
	const response = await request(url, {
		method: method as 'GET',
		headers: {
			...(body === undefined ? {} : { 'content-type': 'application/json' }),
			...options.headers,
		},
		body,
	});
	const text = await response.body.text();
	return {
		status: response.statusCode,
		headers: response.headers,
		body: text ? JSON.parse(text) : undefined,
	};
}

/** Starts a sandbox for the test file (frozen clock unless told otherwise) and resets it before each test. */
export function useSandbox(options: SandboxOptions = {}): () => Sandbox {
	return useSharedSandbox({ frozenClock: true, ...options });
}

/** Account API client using one key, in the Bearer header by default. */
export function accountApi(
	sandbox: Sandbox,
	key: string,
	scheme: 'bearer' | 'x-api-key' = 'bearer',
) {
	const headers: Record<string, string> =
		scheme === 'bearer' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key };
	const url = (path: string, query: Record<string, string | number> = {}): string => {
		const search = new URLSearchParams(
			Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
		).toString();
		return `${sandbox.accountBaseUrl}${path}${search ? `?${search}` : ''}`;
	};
	return {
		get: (path: string, query?: Record<string, string | number>) =>
			http('GET', url(path, query), { headers }),
		post: (path: string, json: unknown) => http('POST', url(path), { headers, json }),
	};
}

export function unifiedApi(sandbox: Sandbox, key: string | undefined) {
	return (service: string, action: string, data: unknown, extra: Record<string, unknown> = {}) =>
		http('POST', sandbox.unifiedUrl, {
			json: { service, action, data, ...(key === undefined ? {} : { api_key: key }), ...extra },
		});
}

export function controlApi(sandbox: Sandbox) {
	return {
		get: (path: string) => http('GET', `${sandbox.url}/_sandbox${path}`),
		post: (path: string, json: unknown = {}) =>
			http('POST', `${sandbox.url}/_sandbox${path}`, { json }),
		delete: (path: string) => http('DELETE', `${sandbox.url}/_sandbox${path}`),
	};
}
