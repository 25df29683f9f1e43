/**
 * One sandbox per test file, on a free loopback port, reset before each test; the nodes'
 * credentials for it; and small undici clients that drive its APIs over real HTTP.
 */
import { forgetApiClocks, forgetClaims, setRequestTimeout } from '../../nodes/shared/transport';
import type { INodeParameters } from 'n8n-workflow';
import { request } from 'undici';

import { runWorkflow } from '../../harness';
import { type Sandbox, startSandbox, TEST_NUMBERS } from '../../sandbox';
import { items, singleNodeWorkflow } from './workflows';

export function useSandbox(options: Parameters<typeof startSandbox>[0] = {}): () => Sandbox {
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, ...options });
	});
	afterAll(async () => {
		await sandbox?.stop();
	});
	beforeEach(() => {
		sandbox?.reset();
		// A reset sandbox numbers its messages and calls from the start again: the claims the
		// node keeps (process-wide) of the old ones would hide the new ones; and its clock is set
		// back, which the records the node made and read there would otherwise still show.
		forgetClaims();
		forgetApiClocks();
	});
	return () => {
		if (!sandbox) throw new Error('The sandbox is not running');
		return sandbox;
	};
}

/**
 * The nodes' request timeout is `ms` for the test file (or describe block) and set back after
 * it: the look-ups of an unknown outcome span the request timeout, a second or two here, not 30.
 */
export function useRequestTimeout(ms: number): void {
	let previous: number | undefined;
	beforeAll(() => {
		previous = setRequestTimeout(ms);
	});
	afterAll(() => {
		if (previous !== undefined) setRequestTimeout(previous);
	});
}

/** The Comms Account credential of one of the sandbox's keys, at its address or another (a proxy's). */
export function accountCredentials(
	sandbox: Sandbox,
	key = sandbox.credentials.account.unrestricted,
	baseUrl = sandbox.accountBaseUrl,
) {
	return { commsAccountApi: { apiKey: key, baseUrl } };
}

/** The Comms Unified credential of one of the sandbox's keys, at its address or another. */
export function unifiedCredentials(
	sandbox: Sandbox,
	key = sandbox.credentials.unified.live,
	endpointUrl = sandbox.unifiedUrl,
) {
	return {
		commsUnifiedApi: {
			apiKey: key,
			endpointUrl,
			webhookSecret: sandbox.credentials.webhookSecret,
		},
	};
}

export interface NodeRun {
	input?: ReturnType<typeof items>;
	continueOnFail?: boolean;
	/** Another of the sandbox's keys (by default the unrestricted Account key, the live Unified key). */
	key?: string;
}

/** Start → one Comms Account or Comms Unified node, run by n8n's engine against the sandbox. */
export function runNode(
	sandbox: Sandbox,
	api: 'account' | 'unified',
	parameters: INodeParameters,
	{ input = items(1), continueOnFail = false, key }: NodeRun = {},
) {
	const type = `n8n-nodes-comms-api.comms${api === 'account' ? 'Account' : 'Unified'}`;
	return runWorkflow(singleNodeWorkflow(type, parameters, { continueOnFail }), {
		credentials:
			api === 'account' ? accountCredentials(sandbox, key) : unifiedCredentials(sandbox, key),
		input,
	});
}

/** The requests the sandbox's Unified API received, in order. */
export const unifiedRequests = (sandbox: Sandbox) =>
	sandbox.requests().filter((entry) => entry.api === 'unified');

/**
 * An SMS sent by someone else (another n8n, a worker, the dashboard): straight to the sandbox's
 * API, so nothing in this process made it or claims it. Its `messageId`.
 */
export async function smsSentElsewhere(
	sandbox: Sandbox,
	message: string,
	to: string = TEST_NUMBERS.customer,
): Promise<string> {
	const account = accountApi(sandbox, sandbox.credentials.account.unrestricted);
	const answer = await account.post('/v1/sms', { phoneDocId: sandbox.numbers.main, to, message });
	if (answer.status !== 201) throw new Error(`The sandbox answered ${answer.status} to an SMS`);
	return (answer.body as { messageId: string }).messageId;
}

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
