/**
 * Every error the Unified API can answer, through the Comms Unified node run by n8n's engine:
 * against the sandbox with each code under its own HTTP status and under 200 (the spec does not
 * say which status comes with which code), and against a server that echoes the key back. No
 * key or webhook secret appears in any output, error or log line.
 */
import type { INodeParameters, IRun } from 'n8n-workflow';

import { runWorkflow } from '../../harness';
import { UNIFIED_KEYS, WEBHOOK_SECRET } from '../../sandbox';
import { captureLogs } from '../support/logs';
import { unifiedCredentials, unifiedRequests, useSandbox } from '../support/sandbox';
import { useStubServer } from '../support/stubServer';
import { items, singleNodeWorkflow } from '../support/workflows';

const UNIFIED = 'n8n-nodes-comms-api.commsUnified';
const sandbox = useSandbox();

let logLines: string[] = [];
beforeAll(() => {
	logLines = captureLogs();
});

/** Every run of this file, to search for secrets at the end. */
const runs: IRun[] = [];
const errors: unknown[] = [];

async function run(
	parameters: INodeParameters,
	{
		input = items(1),
		continueOnFail = false,
		credentials,
	}: {
		input?: ReturnType<typeof items>;
		continueOnFail?: boolean;
		credentials?: ReturnType<typeof unifiedCredentials>;
	} = {},
) {
	const result = await runWorkflow(singleNodeWorkflow(UNIFIED, parameters, { continueOnFail }), {
		credentials: credentials ?? unifiedCredentials(sandbox()),
		input,
	});
	runs.push(result.run);
	if (result.error) errors.push(result.error);
	return result;
}

const posts = () => unifiedRequests(sandbox());
const sms: INodeParameters = {
	resource: 'sms',
	operation: 'send',
	to: '+447700900123',
	message: 'Hello',
};

interface ErrorCase {
	code: string;
	status: number;
	arrange(): void;
	parameters?: INodeParameters;
	key?: string;
	message: RegExp;
	/** What the error's description must also say (the API's own words). */
	description?: RegExp;
	/** Requests a run of three items makes. */
	requests: number;
}

const CASES: ErrorCase[] = [
	{
		code: 'INVALID_API_KEY',
		status: 401,
		arrange: () => undefined,
		key: UNIFIED_KEYS.revoked,
		message: /did not accept the API key: it is invalid or has been revoked/,
		requests: 1,
	},
	{
		code: 'INSUFFICIENT_CREDITS',
		status: 402,
		arrange: () => sandbox().control.setBalances({ unifiedCreditsPence: 2 }),
		message:
			/^Not enough credits for this request\. Your balance is 2p and this request needs 3p\. Top up your credits at http:\/\/127\.0\.0\.1:\d+\/_sandbox\/top-up, then run again only the items that were not sent\.$/,
		requests: 1,
	},
	{
		code: 'SERVICE_UNAVAILABLE',
		status: 503,
		arrange: () => sandbox().control.setServiceAvailable('sms', false),
		message: /not available for your account/,
		requests: 1,
	},
	// Unknown outcome: each item is tried once and never again.
	{
		code: 'INTERNAL_ERROR',
		status: 500,
		arrange: () => sandbox().control.injectFailure({ status: 500, api: 'unified', count: 10 }),
		message:
			/unknown whether the sms request was carried out\. It was sent once, and was not sent again/,
		requests: 3,
	},
	// A code the API's documentation does not list (the sandbox's for a bad field) is not proof
	// that nothing was done: unknown too, with the API's own words in the description.
	{
		code: 'INVALID_PARAMETERS',
		status: 400,
		arrange: () => undefined,
		parameters: {
			resource: 'ai',
			operation: 'chat',
			messages: { values: [{ role: 'user', content: 'Hi' }] },
			model: 'no-such-model',
		},
		message:
			/^The Comms Unified API answered HTTP (400|200) with code INVALID_PARAMETERS, which its documentation does not give as a refusal, so it is unknown whether the ai request was carried out\. It was sent once, and was not sent again/,
		description: /The API said: data\.model must be one of: model-capable, model-fast/,
		requests: 3,
	},
];

describe.each(['http', 'always200'] as const)(
	'every code, with unifiedErrorStatus %s',
	(unifiedErrorStatus) => {
		beforeEach(() => sandbox().control.setUnifiedErrorStatus(unifiedErrorStatus));

		it.each(CASES)(
			'$code',
			async ({ code, status, arrange, parameters, key, message, description, requests }) => {
				arrange();
				const credentials = unifiedCredentials(sandbox(), key);
				const failed = await run(parameters ?? sms, { credentials });
				expect(failed.error?.message).toMatch(message);
				const error = failed.error as unknown as {
					httpCode: string;
					description: string;
					context: Record<string, unknown>;
				};
				expect(error.context.apiCode).toBe(code);
				expect(error.httpCode).toBe(String(unifiedErrorStatus === 'http' ? status : 200));
				expect(error.description).toContain(`code ${code}`);
				if (description) expect(error.description).toMatch(description);
				expect(posts()).toHaveLength(1);

				sandbox().control.clearRequests();
				const continued = await run(parameters ?? sms, {
					credentials,
					input: items(3),
					continueOnFail: true,
				});
				const output = continued.output('Node');
				expect(output).toHaveLength(3);
				for (const [i, item] of output.entries()) {
					expect(item.json.error).toMatch(message);
					expect(item.json.apiCode).toBe(code);
					expect(item.pairedItem).toEqual({ item: i });
				}
				expect(posts()).toHaveLength(requests);
			},
		);

		it('CARRIER_ERROR (a sandbox code the spec does not list) is an error, and the SMS is not sent again', async () => {
			sandbox().control.injectFailure({ status: 502, api: 'unified', count: 5 });
			const result = await run(sms, { continueOnFail: true });
			const [item] = result.output('Node');
			expect(item.json.apiCode).toBe('CARRIER_ERROR');
			expect(typeof item.json.error).toBe('string');
			expect(posts()).toHaveLength(1);
		});

		it('RATE_LIMITED (always 429) is waited out, and the item succeeds once', async () => {
			sandbox().control.injectFailure({
				status: 429,
				api: 'unified',
				count: 1,
				retryAfterSeconds: 1,
			});
			const result = await run(sms);
			expect(result.error).toBeUndefined();
			expect(result.output('Node')[0].json.status).toBe('sent');
			expect(posts().map((r) => r.status)).toEqual([429, 200]);
		});
	},
);

describe('against a server that echoes the key', () => {
	const stub = useStubServer();
	const KEY = 'key_live_ECHOED_unified_0123456789';
	const SECRET = 'whsec_ECHOED_secret_0123456789';
	const credentials = () => ({
		commsUnifiedApi: { apiKey: KEY, endpointUrl: `${stub().url}/unified`, webhookSecret: SECRET },
	});
	const echo = { api_key: KEY, note: `key ${KEY} secret ${SECRET}` };

	it('a success that carries the key in its result and billing: the output has none of it', async () => {
		stub().reply({
			status: 200,
			body: {
				success: true,
				result: { message_id: 'm1', status: 'sent', ...echo },
				billing: {
					cost: 3,
					costFormatted: '3p',
					isLive: true,
					creditsRemaining: 10,
					creditsRemainingFormatted: '£0.10',
					debug: KEY,
				},
				timestamp: '2026-01-01T00:00:00Z',
			},
		});
		const result = await run(sms, { credentials: credentials() });
		expect(result.error).toBeUndefined();
		expect(result.output('Node')[0].json.message_id).toBe('m1');
		expect(JSON.parse(stub().received[0].body).api_key).toBe(KEY); // it did travel in the body
		expect(JSON.stringify(result.run)).not.toMatch(/ECHOED/);
	});

	it.each([
		[401, 'MISSING_API_KEY', /No API key reached/],
		[401, 'INVALID_API_KEY', /invalid or has been revoked/],
		[402, 'INSUFFICIENT_CREDITS', /Not enough credits/],
		[503, 'SERVICE_UNAVAILABLE', /not available/],
		[500, 'INTERNAL_ERROR', /unknown whether/],
	])(
		'%i %s, and the same under 200: the error and the items have none of it',
		async (status, code, message) => {
			for (const answer of [status, 200]) {
				const body = {
					success: false,
					code,
					error: `failed for ${KEY}`,
					message: `failed for ${KEY} (${SECRET})`,
					topUpUrl: `https://example.com/top-up?key=${KEY}`,
					...echo,
				};
				stub().reply({ status: answer, body });
				const failed = await run(sms, { credentials: credentials() });
				expect(failed.error?.message).toMatch(message);
				expect(
					(failed.error as unknown as { context: Record<string, unknown> }).context.apiCode,
				).toBe(code);
				stub().reply({ status: answer, body });
				const continued = await run(sms, {
					credentials: credentials(),
					input: items(3),
					continueOnFail: true,
				});
				expect(continued.output('Node')).toHaveLength(3);
				for (const result of [failed, continued]) {
					expect(JSON.stringify(result.run)).not.toMatch(/ECHOED/);
					if (result.error) expect(String((result.error as Error).stack)).not.toMatch(/ECHOED/);
				}
			}
		},
	);

	it('a connection dropped after sending: not sent again, and nothing leaks', async () => {
		stub().reply({ drop: true });
		const result = await run(sms, { credentials: credentials(), continueOnFail: true });
		expect(result.output('Node')[0].json.error).toMatch(
			/unknown whether the sms request was carried out/,
		);
		expect(stub().received).toHaveLength(1);
		expect(JSON.stringify(result.run)).not.toMatch(/ECHOED/);
	});
});

afterAll(() => {
	const secrets = [
		UNIFIED_KEYS.live,
		UNIFIED_KEYS.test,
		UNIFIED_KEYS.revoked,
		WEBHOOK_SECRET,
		'ECHOED',
	];
	expect(runs.length).toBeGreaterThan(20);
	for (const value of [
		...runs,
		...errors.map((error) => ({
			message: (error as Error).message,
			stack: (error as Error).stack,
			error,
		})),
	]) {
		const text = JSON.stringify(value);
		for (const secret of secrets) expect(text).not.toContain(secret);
	}
	// The transport logs its retries (the 429 above); no line carries a key.
	expect(logLines.some((line) => line.includes('retrying'))).toBe(true);
	for (const line of logLines) for (const secret of secrets) expect(line).not.toContain(secret);
});
