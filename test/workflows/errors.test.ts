/**
 * Every error code of both API documents, answered by a server over HTTP and run through
 * n8n's engine: each becomes a clear NodeApiError with the status and the API's code, and
 * no key or webhook secret survives anywhere in the run, even when the server echoes them.
 */
import { runWorkflow } from '../../harness';
import { captureLogs } from '../support/logs';
import { PROBE_TYPE, TransportProbe } from '../support/probeNode';
import { type Reply, startStubServer, useStubServer } from '../support/stubServer';
import { singleNodeWorkflow } from '../support/workflows';

const ACCOUNT_KEY = 'acc_REDACTME_account_0123456789';
const UNIFIED_KEY = 'key_live_REDACTME_unified_0123456789';
const WEBHOOK_SECRET = 'whsec_REDACTME_secret_0123456789';
const SECRETS = [ACCOUNT_KEY, UNIFIED_KEY, WEBHOOK_SECRET, 'REDACTME'];

/** Every line n8n's loggers receive during these runs (our transport's included), whatever the level. */
let logLines: string[] = [];

const stub = useStubServer();
beforeAll(() => {
	logLines = captureLogs();
});

afterAll(() => {
	// The retries above log; none of those lines may carry a secret.
	expect(logLines.some((line) => line.includes('retrying'))).toBe(true);
	for (const line of logLines) for (const secret of SECRETS) expect(line).not.toContain(secret);
});

const nodeTypes = { [PROBE_TYPE]: new TransportProbe() };

function credentials() {
	return {
		commsAccountApi: { apiKey: ACCOUNT_KEY, baseUrl: stub().url },
		commsUnifiedApi: {
			apiKey: UNIFIED_KEY,
			endpointUrl: `${stub().url}/unified`,
			webhookSecret: WEBHOOK_SECRET,
		},
	};
}

/**
 * An error body that repeats every secret the server could know, the way a careless server
 * might: the Account API knows its key; the Unified API its key and the webhook secret. Each
 * also quotes a key of the other kind, which must be masked by its shape alone.
 */
function echoing(body: Record<string, unknown>): Record<string, unknown> {
	return {
		...body,
		echoedKey: ACCOUNT_KEY,
		request: { api_key: UNIFIED_KEY, secret: WEBHOOK_SECRET },
		hint: `key ${ACCOUNT_KEY} / ${UNIFIED_KEY}`,
	};
}

async function runBoth(api: 'account' | 'unified', replies: Reply[], method = 'POST') {
	const parameters =
		api === 'account'
			? { api, method, path: '/v1/sms', body: '{"to":"+447700900123"}' }
			: { api, service: 'sms', action: 'send', body: '{"to":"+447700900123"}' };
	stub().reply(...replies);
	const failed = await runWorkflow(singleNodeWorkflow(PROBE_TYPE, parameters), {
		credentials: credentials(),
		nodeTypes,
	});
	stub().reply(...replies);
	const continued = await runWorkflow(
		singleNodeWorkflow(PROBE_TYPE, parameters, { continueOnFail: true }),
		{ credentials: credentials(), nodeTypes },
	);
	return { failed, continued };
}

/** For Account runs, the webhook secret is not the server's to know, so it is left out of what it echoes. */
function accountEcho(body: Record<string, unknown>): Record<string, unknown> {
	const echoed = echoing(body);
	return { ...echoed, request: { api_key: UNIFIED_KEY } };
}

function expectNoSecret(value: unknown): void {
	const text = JSON.stringify(value);
	for (const secret of SECRETS) expect(text).not.toContain(secret);
	// Also the error object itself, with its non-enumerable fields.
	if (value && typeof value === 'object' && 'stack' in value) {
		for (const secret of SECRETS) expect(String((value as Error).stack)).not.toContain(secret);
	}
}

const ACCOUNT_CODES: Array<[number, string, RegExp]> = [
	[401, 'missing_api_key', /No API key/],
	[401, 'invalid_api_key', /unknown, revoked or has been rotated/],
	[401, 'key_disabled', /disabled by an administrator/],
	[402, 'account_suspended', /suspended/],
	[402, 'insufficient_minutes', /No call minutes left/],
	[402, 'insufficient_ai_minutes', /No AI minutes left/],
	[400, 'missing_field', /required field was missing/],
	[400, 'missing_agent_phone', /agent phone/],
	[400, 'invalid_mode', /"manual" or "ai"/],
	[400, 'agent_phone_is_tc_number', /own service numbers/],
	[400, 'invalid_number', /phone number was not accepted/],
	[400, 'message_too_long', /1600 characters/],
	[400, 'phoneDoc_sms_not_configured', /no SMS sender paired/],
	[400, 'phoneDoc_sms_disabled', /SMS sending is disabled/],
	[403, 'phoneDocId_not_permitted', /restricted to other numbers/],
	[404, 'call_not_found', /No call with that ID/],
	[404, 'phoneDoc_not_found', /No number with that ID/],
	[404, 'message_not_found', /No SMS with that message ID/],
];

describe('Account API error codes', () => {
	it.each(ACCOUNT_CODES)('HTTP %i %s', async (status, code, message) => {
		const { failed, continued } = await runBoth('account', [
			{
				status,
				body: accountEcho({ success: false, error: code, message: `server text for ${code}` }),
			},
		]);
		const error = failed.error as unknown as {
			message: string;
			description: string;
			httpCode: string;
			context: Record<string, unknown>;
		};
		expect(error.message).toMatch(message);
		expect(error.httpCode).toBe(String(status));
		expect(error.context.apiCode).toBe(code);
		expect(error.description).toContain(`code ${code}`);
		expect(error.description).toContain(`server text for ${code}`);
		const [item] = continued.output('Node');
		expect(item.json.error).toMatch(message);
		expect(item.pairedItem).toEqual({ item: 0 });
		expectNoSecret(failed.run);
		expectNoSecret(continued.run);
		expectNoSecret(failed.error);
	});

	it('a 402 with an undocumented code (no SMS credits) says what may have run out', async () => {
		const { failed } = await runBoth('account', [
			{
				status: 402,
				body: accountEcho({
					success: false,
					error: 'insufficient_sms_credits',
					message: 'No SMS credits',
				}),
			},
		]);
		expect(failed.error?.message).toMatch(/SMS credits/);
		expectNoSecret(failed.run);
	});

	it('a 502 carries the carrier code', async () => {
		const { failed } = await runBoth('account', [
			{
				status: 502,
				body: accountEcho({
					success: false,
					error: 'carrier_rejected',
					message: 'Carrier said no',
					carrierCode: '30007',
				}),
			},
		]);
		expect(failed.error?.message).toMatch(/carrier rejected.*30007/);
		expect(
			(failed.error as unknown as { context: Record<string, unknown> }).context.carrierCode,
		).toBe('30007');
		expectNoSecret(failed.run);
	});

	it('a 405 explains the mismatch', async () => {
		const { failed } = await runBoth('account', [
			{
				status: 405,
				body: accountEcho({ success: false, error: 'method_not_allowed', message: 'no' }),
			},
		]);
		expect(failed.error?.message).toMatch(/does not allow this method/);
		expectNoSecret(failed.run);
	});

	it('429 that never clears, after bounded retries', async () => {
		const { failed } = await runBoth('account', [
			{
				status: 429,
				body: accountEcho({ success: false, error: 'rate_limited', message: 'slow down' }),
				headers: { 'retry-after': '0' },
			},
		]);
		expect(failed.error?.message).toMatch(/rate limit was still exceeded/);
		expectNoSecret(failed.run);
	});

	it('500 that never clears a read, after bounded retries', async () => {
		const { failed } = await runBoth(
			'account',
			[
				{
					status: 500,
					body: accountEcho({ success: false, error: 'internal', message: 'oops' }),
					headers: { 'retry-after': '0' },
				},
			],
			'GET',
		);
		expect(failed.error?.message).toMatch(/unexpected failure/);
		expect(stub().received.length).toBe(12); // 6 attempts, in each of the two runs
		expectNoSecret(failed.run);
	});

	it('500 answering a write that cannot be looked up: not sent again, and the error says its outcome is unknown', async () => {
		const { failed, continued } = await runBoth('account', [
			{
				status: 500,
				body: accountEcho({ success: false, error: 'internal', message: 'oops' }),
				headers: { 'retry-after': '0' },
			},
		]);
		expect(failed.error?.message).toMatch(/unexpected failure.*unknown whether.*not sent again/);
		expect(continued.output('Node')[0].json.error).toMatch(/unknown whether/);
		expect(stub().received.length).toBe(2); // one attempt in each of the two runs
		expectNoSecret(failed.run);
		expectNoSecret(continued.run);
		expectNoSecret(failed.error);
	});

	it('a body that is not JSON', async () => {
		const { failed } = await runBoth('account', [
			{ status: 500, body: `Internal error for ${ACCOUNT_KEY}`, headers: { 'retry-after': '0' } },
		]);
		expect(failed.error?.message).toMatch(/unexpected failure/);
		expectNoSecret(failed.run);
	});

	it('a connection dropped after sending', async () => {
		const { failed, continued } = await runBoth('account', [{ drop: true }]);
		expect(failed.error?.message).toMatch(/unknown whether/);
		expect(continued.output('Node')[0].json.error).toMatch(/unknown whether/);
		expectNoSecret(failed.run);
		expectNoSecret(continued.run);
	});
});

const UNIFIED_CODES: Array<[number, string, RegExp]> = [
	[401, 'MISSING_API_KEY', /No API key/],
	[401, 'INVALID_API_KEY', /invalid or has been revoked/],
	[402, 'INSUFFICIENT_CREDITS', /Not enough credits/],
	[503, 'SERVICE_UNAVAILABLE', /not available for your account/],
	[500, 'INTERNAL_ERROR', /internal error/],
];

describe('Unified API error codes', () => {
	it.each(UNIFIED_CODES)('HTTP %i %s', async (status, code, message) => {
		const { failed, continued } = await runBoth('unified', [
			{
				status,
				body: echoing({
					success: false,
					code,
					error: `text for ${code}`,
					message: `text for ${code}`,
				}),
			},
		]);
		expect(failed.error?.message).toMatch(message);
		const error = failed.error as unknown as { httpCode: string; context: Record<string, unknown> };
		expect(error.httpCode).toBe(String(status));
		expect(error.context.apiCode).toBe(code);
		expect(continued.output('Node')[0].json.error).toMatch(message);
		expectNoSecret(failed.run);
		expectNoSecret(continued.run);
	});

	it.each(UNIFIED_CODES)(
		'the same code under HTTP 200 with success: false (%i %s)',
		async (_status, code, message) => {
			const { failed } = await runBoth('unified', [
				{ status: 200, body: echoing({ success: false, code, error: 'x', message: 'x' }) },
			]);
			expect(failed.error?.message).toMatch(message);
			expectNoSecret(failed.run);
		},
	);

	it('INSUFFICIENT_CREDITS carries the top-up URL and the balance message', async () => {
		const { failed, continued } = await runBoth('unified', [
			{
				status: 402,
				body: echoing({
					success: false,
					code: 'INSUFFICIENT_CREDITS',
					message: 'Balance 2p, required 3p',
					topUpUrl: 'https://example.com/top-up',
				}),
			},
		]);
		expect(failed.error?.message).toBe(
			'Not enough credits for this request. Your balance is 2p and this request needs 3p. Top up your credits at https://example.com/top-up, then run again only the items that were not sent.',
		);
		expect((failed.error as unknown as { context: Record<string, unknown> }).context.topUpUrl).toBe(
			'https://example.com/top-up',
		);
		expect(continued.output('Node')[0].json.context).toMatchObject({
			topUpUrl: 'https://example.com/top-up',
		});
		expectNoSecret(failed.run);
	});

	it('429 per service that never clears', async () => {
		const { failed } = await runBoth('unified', [
			{
				status: 429,
				body: echoing({ success: false, code: 'RATE_LIMITED', message: 'too many' }),
				headers: { 'retry-after': '0' },
			},
		]);
		expect(failed.error?.message).toMatch(/rate limit/);
		expectNoSecret(failed.run);
	});

	it('a connection dropped after sending', async () => {
		const { failed } = await runBoth('unified', [{ drop: true }]);
		expect(failed.error?.message).toMatch(/unknown whether the sms request was carried out/);
		expectNoSecret(failed.run);
	});
});

describe('success bodies are cleared of secrets too', () => {
	it('an Account success body echoing the key reaches no output', async () => {
		const { failed, continued } = await runBoth(
			'account',
			[
				{
					status: 200,
					body: accountEcho({ success: true, numbers: [{ label: `key ${ACCOUNT_KEY}` }] }),
				},
			],
			'GET',
		);
		expect(failed.error).toBeUndefined();
		const [item] = failed.output('Node');
		expect(item.json.numbers).toEqual([{ label: 'key ****' }]);
		expectNoSecret(failed.run);
		expectNoSecret(continued.run);
	});

	it('a Unified success envelope echoing the key and the webhook secret reaches no output', async () => {
		const { failed } = await runBoth('unified', [
			{
				status: 200,
				body: echoing({
					success: true,
					result: { message_id: 'm1', echo: UNIFIED_KEY },
					billing: { cost: 3 },
				}),
			},
		]);
		expect(failed.error).toBeUndefined();
		expect(failed.output('Node')[0].json.result).toEqual({ message_id: 'm1', echo: '****' });
		expectNoSecret(failed.run);
	});
});

describe('no key or secret anywhere, whatever the server answers', () => {
	/** The Account API knows its key, the Unified API its key and the webhook secret. */
	const echoOf = (api: 'account' | 'unified') =>
		`keys ${ACCOUNT_KEY} ${UNIFIED_KEY}${api === 'unified' ? ` secret ${WEBHOOK_SECRET}` : ''}`;
	const echoJson = (api: 'account' | 'unified') => ({
		success: false,
		error: 'x',
		code: 'X',
		message: echoOf(api),
		api_key: UNIFIED_KEY,
	});
	const replies: Array<[string, (api: 'account' | 'unified') => Reply]> = [
		['401 echoing the keys', (api) => ({ status: 401, body: echoJson(api) })],
		[
			'429 echoing the keys',
			(api) => ({ status: 429, body: echoJson(api), headers: { 'retry-after': '0' } }),
		],
		[
			'500 echoing the keys',
			(api) => ({ status: 500, body: echoJson(api), headers: { 'retry-after': '0' } }),
		],
		[
			'an HTML page echoing them',
			(api) => ({ status: 502, body: `<html><body>${echoOf(api)}</body></html>` }),
		],
		['plain text echoing them', (api) => ({ status: 400, body: echoOf(api) })],
		[
			'a success echoing them',
			(api) => ({ status: 200, body: { ...echoJson(api), success: true } }),
		],
		['a dropped connection', () => ({ drop: true })],
	];

	it.each(replies)(
		'%s: not in the run, the error, its stack or description, or a log line',
		async (_what, reply) => {
			for (const api of ['account', 'unified'] as const) {
				const { failed, continued } = await runBoth(api, [reply(api)]);
				for (const result of [failed, continued]) {
					const seen = [
						JSON.stringify(result.run),
						JSON.stringify(result.error ?? null),
						String(result.error?.stack ?? ''),
						String((result.error as { description?: unknown })?.description ?? ''),
						...logLines,
					].join('\n');
					for (const secret of SECRETS) expect(seen).not.toContain(secret);
				}
			}
		},
	);
});

const PROXY_PAGE = (status: number) =>
	`<html><head><title>${status}</title></head><body><center><h1>${status} Gateway</h1></center><hr><center>nginx</center><!-- ${ACCOUNT_KEY} --></body></html>`;

describe('a gateway or proxy in front of the API (HTML 502, 503, 504)', () => {
	it.each([502, 503, 504])(
		'HTTP %i from a proxy is retried for a read, and not blamed on the carrier',
		async (status) => {
			const { failed } = await runBoth(
				'account',
				[
					{
						status,
						body: PROXY_PAGE(status),
						headers: { 'content-type': 'text/html', 'retry-after': '0' },
					},
				],
				'GET',
			);
			expect(stub().received.length).toBe(12); // 6 attempts, in each of the two runs
			expect(failed.error?.message).not.toMatch(/carrier/);
			expect(failed.error?.message).toMatch(status === 503 ? /unavailable/ : /gateway or proxy/);
			expectNoSecret(failed.run);
		},
	);

	it.each([502, 503, 504])(
		'HTTP %i from a proxy answering a write: its outcome is unknown, so it is not sent again',
		async (status) => {
			const { failed, continued } = await runBoth('account', [
				{ status, body: PROXY_PAGE(status), headers: { 'content-type': 'text/html' } },
			]);
			expect(stub().received.length).toBe(2); // one attempt in each run
			expect(failed.error?.message).toMatch(
				new RegExp(
					`gateway or proxy in front of the Comms Account API answered HTTP ${status}.*unknown whether`,
				),
			);
			expect(failed.error?.message).not.toMatch(/carrier/);
			expect(continued.output('Node')[0].json.error).toMatch(/unknown whether/);
			expectNoSecret(failed.run);
			expectNoSecret(continued.run);
		},
	);

	it("only the API's own 502 is the carrier's, and it is not retried", async () => {
		const { failed } = await runBoth(
			'account',
			[
				{
					status: 502,
					body: accountEcho({
						success: false,
						error: 'carrier_rejected',
						message: 'no',
						carrierCode: '30003',
					}),
				},
			],
			'GET',
		);
		expect(failed.error?.message).toMatch(/carrier rejected the request \(carrier code 30003\)/);
		expect(stub().received.length).toBe(2);
	});

	it('the Unified API behind a failing proxy: a write whose outcome is unknown is never sent again', async () => {
		const { failed } = await runBoth('unified', [
			{ status: 504, body: PROXY_PAGE(504), headers: { 'content-type': 'text/html' } },
		]);
		expect(stub().received.length).toBe(2);
		expect(failed.error?.message).toMatch(
			/answered HTTP 504.*unknown whether the sms request was carried out/,
		);
		expectNoSecret(failed.run);
	});
});

describe('connection refused', () => {
	it('names the address, retries (nothing was sent) and leaks nothing', async () => {
		const closed = await startStubServer();
		const url = closed.url;
		await closed.close();
		const result = await runWorkflow(
			singleNodeWorkflow(PROBE_TYPE, {
				api: 'account',
				method: 'POST',
				path: '/v1/sms',
				body: '{}',
			}),
			{
				credentials: { commsAccountApi: { apiKey: ACCOUNT_KEY, baseUrl: url } },
				nodeTypes,
			},
		);
		expect(result.error?.message).toContain(
			`Could not reach the Comms Account API at ${url} (ECONNREFUSED)`,
		);
		expectNoSecret(result.run);
	}, 60_000);
});
