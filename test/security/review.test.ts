/**
 * What a security review found holding, kept holding: no key or webhook secret in
 * any error, item or log line whatever a careless server answers; redirects to another host are
 * not followed, by the nodes or the credential tests; and every forged, tampered, truncated,
 * re-serialised or non-hex signature gets 401 without the trigger throwing.
 * (The thorough versions live beside the features: test/workflows/errors.test.ts,
 * wrongAddress.test.ts and unifiedTrigger.test.ts.)
 */
import { runCredentialTest, runWorkflow } from '../../harness';
import { forgetCredentials } from '../../nodes/CommsUnified/trigger/credentialCache';
import { recentEvents } from '../../nodes/CommsUnified/trigger/replay';
import { captureLogs } from '../support/logs';
import { PROBE_TYPE, TransportProbe } from '../support/probeNode';
import { type Reply, useStubServer } from '../support/stubServer';
import { hmacHex, lonelyTrigger } from '../support/unifiedTrigger';
import { singleNodeWorkflow } from '../support/workflows';

const ACCOUNT_KEY = 'acc_REVIEW_account_0123456789';
const UNIFIED_KEY = 'key_live_REVIEW_unified_0123456789';
const WEBHOOK_SECRET = 'whsec_REVIEW_secret_0123456789';
const SECRETS = [ACCOUNT_KEY, UNIFIED_KEY, WEBHOOK_SECRET, 'REVIEW_'];

const stub = useStubServer();
let logs: string[];
beforeAll(() => {
	logs = captureLogs();
});
afterAll(forgetCredentials);
beforeEach(() => {
	recentEvents.clear();
	forgetCredentials();
});

const credentials = () => ({
	commsAccountApi: { apiKey: ACCOUNT_KEY, baseUrl: stub().url },
	commsUnifiedApi: {
		apiKey: UNIFIED_KEY,
		endpointUrl: `${stub().url}/unified`,
		webhookSecret: WEBHOOK_SECRET,
	},
});

/**
 * What a careless server repeats back: every secret it could know (the Account API knows its
 * key; the Unified API its key and the webhook secret), and a key of the other kind, which must
 * be masked by its shape alone.
 */
const echoOf = (api: 'account' | 'unified') =>
	`keys ${ACCOUNT_KEY} ${UNIFIED_KEY}${api === 'unified' ? ` secret ${WEBHOOK_SECRET}` : ''}`;
const echoJson = (api: 'account' | 'unified') => ({
	success: false,
	error: 'x',
	code: 'X',
	message: echoOf(api),
	api_key: UNIFIED_KEY,
});

describe('no key or secret anywhere, whatever the server answers', () => {
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

	it.each(replies)('%s', async (_what, reply) => {
		for (const api of ['account', 'unified'] as const) {
			for (const continueOnFail of [false, true]) {
				stub().reply(reply(api));
				const result = await runWorkflow(
					singleNodeWorkflow(
						PROBE_TYPE,
						api === 'account'
							? { api, method: 'POST', path: '/v1/sms', body: '{"to":"+447700900123"}' }
							: { api, service: 'sms', action: 'send', body: '{"to":"+447700900123"}' },
						{ continueOnFail },
					),
					{ credentials: credentials(), nodeTypes: { [PROBE_TYPE]: new TransportProbe() } },
				);
				const seen = [
					JSON.stringify(result.run),
					JSON.stringify(result.error ?? null),
					String(result.error?.stack ?? ''),
					String((result.error as { description?: unknown })?.description ?? ''),
					...logs,
				].join('\n');
				for (const secret of SECRETS) expect(seen).not.toContain(secret);
			}
		}
	});
});

describe('redirects to another host are not followed', () => {
	const elsewhere = useStubServer();

	it.each([301, 302, 307, 308])('%i: by a node and by both credential tests', async (status) => {
		stub().reply({ status, body: '', headers: { location: `${elsewhere().url}/v1/numbers` } });
		await runWorkflow(
			singleNodeWorkflow('n8n-nodes-comms-api.commsAccount', {
				resource: 'number',
				operation: 'getAll',
				returnAll: true,
			}),
			{ credentials: credentials() },
		);
		expect((await runCredentialTest('commsAccountApi', credentials().commsAccountApi)).status).toBe(
			'Error',
		);
		expect((await runCredentialTest('commsUnifiedApi', credentials().commsUnifiedApi)).status).toBe(
			'Error',
		);
		expect(elsewhere().received).toEqual([]);
	});
});

describe('signature forms', () => {
	const body = () =>
		JSON.stringify({
			event: 'call.completed',
			timestamp: new Date().toISOString(),
			data: { call_id: `ucall_${Math.random()}` },
		});
	const hmac = (text: string, secret = WEBHOOK_SECRET) => hmacHex(text, secret);
	const harness = () => lonelyTrigger(credentials(), `wf-review-${Math.random()}`);

	it.each<[string, (text: string) => { body: string; signature: unknown }]>([
		['forged with another secret', (t) => ({ body: t, signature: hmac(t, 'guess') })],
		['tampered body', (t) => ({ body: t.replace('completed', 'failed'), signature: hmac(t) })],
		['truncated signature', (t) => ({ body: t, signature: hmac(t).slice(0, 63) })],
		[
			're-serialised body',
			(t) => ({ body: JSON.stringify(JSON.parse(t), null, 2), signature: hmac(t) }),
		],
		['non-hex signature', (t) => ({ body: t, signature: 'z'.repeat(64) })],
		[
			'base64 signature',
			(t) => ({ body: t, signature: Buffer.from(hmac(t), 'hex').toString('base64') }),
		],
		['two signature headers', (t) => ({ body: t, signature: [hmac(t), hmac(t)] })],
		['an empty signature', (t) => ({ body: t, signature: '' })],
		['no signature', (t) => ({ body: t, signature: undefined })],
	])('%s: 401, nothing starts, nothing thrown', async (_what, make) => {
		const { body: sent, signature } = make(body());
		const call = await harness().deliver({
			headers: {
				'content-type': 'application/json',
				...(signature === undefined ? {} : { 'x-signature': signature as string }),
			},
			body: sent,
		});
		expect(call.error).toBeUndefined();
		expect(call.reply.status).toBe(401);
		expect(call.execution).toBeUndefined();
		expect([call.reply.text, ...logs].join('\n')).not.toContain(WEBHOOK_SECRET);
	});

	it.each<[string, (hex: string) => string]>([
		['lower-case hex', (hex) => hex],
		['upper-case hex', (hex) => hex.toUpperCase()],
		['a sha256= prefix', (hex) => `sha256=${hex}`],
	])('%s over the raw bytes: taken', async (_what, form) => {
		const sent = body();
		const call = await harness().deliver({
			headers: { 'content-type': 'application/json', 'x-signature': form(hmac(sent)) },
			body: sent,
		});
		expect(call.reply.status).toBe(200);
		expect(call.execution).toBeDefined();
		await call.execution;
	});
});
