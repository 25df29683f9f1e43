/**
 * The shared transport and both credentials, run by n8n's engine over real HTTP: how each
 * key travels, what is refused before any request, and that retries wait out 429s.
 */
import { runWorkflow } from '../../harness';
import { PROBE_TYPE, TransportProbe } from '../support/probeNode';
import { startStubServer, type StubServer } from '../support/stubServer';
import { singleNodeWorkflow } from '../support/workflows';

const ACCOUNT_KEY = 'acc_transport_test_9f8e7d6c5b4a';
const LIVE_KEY = 'key_live_transport_test_1a2b3c4d';

let stub: StubServer;
beforeAll(async () => {
	stub = await startStubServer();
});
afterAll(() => stub.close());
beforeEach(() => {
	stub.received.length = 0;
	stub.reply({ status: 200, body: { success: true, numbers: [] } });
});

const nodeTypes = { [PROBE_TYPE]: new TransportProbe() };

function run(parameters: Record<string, string>, credentials: Record<string, Record<string, string>>, continueOnFail = false) {
	return runWorkflow(singleNodeWorkflow(PROBE_TYPE, parameters, { continueOnFail }), { credentials, nodeTypes });
}

const account = (overrides: Record<string, string> = {}) => ({ commsAccountApi: { apiKey: ACCOUNT_KEY, baseUrl: stub.url, ...overrides } });
const unified = (overrides: Record<string, string> = {}) => ({
	commsUnifiedApi: { apiKey: LIVE_KEY, endpointUrl: `${stub.url}/unified`, webhookSecret: 'whsec_transport_secret', ...overrides },
});

describe('Account credential', () => {
	it('sends the key in exactly one header, as a Bearer token', async () => {
		const result = await run({ api: 'account', method: 'GET', path: '/v1/numbers' }, account());
		expect(result.error).toBeUndefined();
		expect(result.output('Node')).toEqual([{ json: { success: true, numbers: [] }, pairedItem: { item: 0 } }]);
		expect(stub.received).toHaveLength(1);
		const [request] = stub.received;
		expect(request.url).toBe('/v1/numbers');
		expect(request.headers.authorization).toBe(`Bearer ${ACCOUNT_KEY}`);
		expect(request.headers['x-api-key']).toBeUndefined();
		expect(request.body).toBe('');
	});

	it('refuses a key with the wrong prefix before any request, naming the expected prefix', async () => {
		const result = await run({ api: 'account' }, account({ apiKey: 'key_live_wrong_api_123456' }));
		expect(result.error?.message).toMatch(/start with "acc_"/);
		expect(stub.received).toHaveLength(0);
	});

	it('refuses plain http to a host that is not this machine, before any request', async () => {
		const result = await run({ api: 'account' }, account({ baseUrl: 'http://api.example.com' }));
		expect(result.error?.message).toMatch(/plain http:\/\//);
		expect(result.error?.message).toContain('http://api.example.com');
		expect(stub.received).toHaveLength(0);
	});

	it('accepts plain http to localhost', async () => {
		const result = await run({ api: 'account' }, account({ baseUrl: stub.url.replace('127.0.0.1', 'localhost') }));
		expect(result.error).toBeUndefined();
		expect(stub.received).toHaveLength(1);
	});
});

describe('Unified credential', () => {
	it('puts the key in the body envelope and in no header', async () => {
		stub.reply({ status: 200, body: { success: true, result: { message_id: 'm1' }, billing: { cost: 3 } } });
		const result = await run({ api: 'unified', service: 'sms', action: 'send', body: '{"to":"+447700900123","message":"hi"}' }, unified());
		expect(result.error).toBeUndefined();
		const [request] = stub.received;
		expect(request.url).toBe('/unified');
		expect(request.method).toBe('POST');
		expect(JSON.parse(request.body)).toEqual({ service: 'sms', action: 'send', data: { to: '+447700900123', message: 'hi' }, api_key: LIVE_KEY });
		expect(request.headers.authorization).toBeUndefined();
		expect(request.headers['x-api-key']).toBeUndefined();
	});

	it('refuses an Account key in the Unified credential, naming both prefixes', async () => {
		const result = await run({ api: 'unified' }, unified({ apiKey: ACCOUNT_KEY }));
		expect(result.error?.message).toMatch(/"key_live_".*"key_test_"/);
		expect(stub.received).toHaveLength(0);
	});
});

describe('retries', () => {
	it('waits out a 429 (honouring Retry-After) and returns the eventual answer', async () => {
		stub.reply({ status: 429, body: { success: false, error: 'rate_limited' }, headers: { 'retry-after': '0' } }, { status: 200, body: { success: true, numbers: [] } });
		const result = await run({ api: 'account' }, account());
		expect(result.error).toBeUndefined();
		expect(stub.received).toHaveLength(2);
	});

	it('retries the Account API 500 the spec calls retryable', async () => {
		stub.reply({ status: 500, body: { success: false, error: 'internal' }, headers: { 'retry-after': '0' } }, { status: 201, body: { success: true, messageId: 'SM1' } });
		const result = await run({ api: 'account', method: 'POST', path: '/v1/sms', body: '{"to":"+447700900123"}' }, account());
		expect(result.error).toBeUndefined();
		expect(stub.received).toHaveLength(2);
	});

	it('does not send a POST again when the connection dropped after it was sent', async () => {
		stub.reply({ drop: true });
		const result = await run({ api: 'account', method: 'POST', path: '/v1/sms', body: '{"to":"+447700900123"}' }, account());
		expect(stub.received).toHaveLength(1);
		expect(result.error?.message).toMatch(/unknown whether/);
		expect(result.error?.message).toMatch(/not sent again/);
	});

	it('does send a GET again when the connection dropped', async () => {
		stub.reply({ drop: true }, { status: 200, body: { success: true, numbers: [] } });
		const result = await run({ api: 'account' }, account());
		expect(result.error).toBeUndefined();
		expect(stub.received).toHaveLength(2);
	});

	it('does not retry a Unified INTERNAL_ERROR, whose retry safety the spec does not state', async () => {
		stub.reply({ status: 500, body: { success: false, code: 'INTERNAL_ERROR', error: 'boom', message: 'boom' } });
		const result = await run({ api: 'unified' }, unified());
		expect(stub.received).toHaveLength(1);
		expect(result.error?.message).toMatch(/internal error/);
	});
});
