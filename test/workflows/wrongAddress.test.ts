/**
 * A wrong address is not a success. With the Base URL (or Endpoint URL) pointing at something
 * that is not the API, an ordinary web app answering 200 with an HTML page, a login page, a
 * JSON service of another kind, every operation fails with a clear error naming the address,
 * and the credential tests fail too.
 */
import { runCredentialTest, runWorkflow } from '../../harness';
import { PROBE_TYPE, TransportProbe } from '../support/probeNode';
import { useStubServer } from '../support/stubServer';
import { singleNodeWorkflow, smsSendParameters } from '../support/workflows';

const ACCOUNT_KEY = 'acc_wrong_address_0123456789';
const UNIFIED_KEY = 'key_live_wrong_address_0123456789';
const HTML =
	'<!doctype html><html><head><title>Acme</title></head><body><h1>Welcome to Acme</h1></body></html>';
const html = (status = 200) => ({
	status,
	body: HTML,
	headers: { 'content-type': 'text/html; charset=utf-8' },
});

const stub = useStubServer();

const ACCOUNT = 'n8n-nodes-comms-api.commsAccount';
const accountCredentials = () => ({
	commsAccountApi: { apiKey: ACCOUNT_KEY, baseUrl: stub().url },
});
const unifiedCredentials = () => ({
	commsUnifiedApi: { apiKey: UNIFIED_KEY, endpointUrl: `${stub().url}/unified` },
});

function expectWrongAddress(message: string | undefined, api: 'Account' | 'Unified') {
	expect(message).toContain(`The address ${stub().url}`);
	expect(message).toContain(`does not answer like the Comms ${api} API`);
	expect(message).not.toContain(ACCOUNT_KEY);
	expect(message).not.toContain(UNIFIED_KEY);
}

describe('Comms Account node at an address that is not the API', () => {
	const sms = smsSendParameters('pd_1', { to: '+447700900123', message: 'Your code is 1234' });

	it('SMS Send fails clearly instead of "succeeding" with the page cut into characters', async () => {
		stub().reply(html());
		const result = await runWorkflow(singleNodeWorkflow(ACCOUNT, sms), {
			credentials: accountCredentials(),
		});
		expectWrongAddress(result.error?.message, 'Account');
		expect(result.error?.message).toMatch(/HTTP 200 with an HTML page/);
		expect((result.error as unknown as { description: string }).description).toMatch(/Base URL/);
		// A page is no proof that nothing was sent: the outcome is unknown, and the one look-up
		// cannot read a history there either. Never sent again.
		expect(result.error?.message).toMatch(/unknown whether the SMS was sent/);
		expect(stub().received.map((request) => request.method)).toEqual(['POST', 'GET']);
	});

	it('SMS Send with Continue On Fail gives an error item, not a success', async () => {
		stub().reply(html());
		const result = await runWorkflow(singleNodeWorkflow(ACCOUNT, sms, { continueOnFail: true }), {
			credentials: accountCredentials(),
		});
		const [item] = result.output('Node');
		expect(item.json.error).toMatch(/does not answer like the Comms Account API/);
		expect(item.json).not.toHaveProperty('0');
	});

	it('SMS Get Many does not return 0 items as if there were no messages', async () => {
		stub().reply(html());
		const result = await runWorkflow(
			singleNodeWorkflow(ACCOUNT, { resource: 'sms', operation: 'getAll', returnAll: true }),
			{ credentials: accountCredentials() },
		);
		expectWrongAddress(result.error?.message, 'Account');
	});

	it('Number Get Many likewise, and a redirect to a login page too', async () => {
		stub().reply({ status: 302, body: '', headers: { location: 'https://login.example.com/' } });
		const result = await runWorkflow(
			singleNodeWorkflow(ACCOUNT, { resource: 'number', operation: 'getAll', returnAll: true }),
			{ credentials: accountCredentials() },
		);
		expectWrongAddress(result.error?.message, 'Account');
		expect(result.error?.message).toMatch(/HTTP 302/);
	});

	it('a JSON service of another kind is not the API either', async () => {
		stub().reply({ status: 200, body: { status: 'ok', data: [] } });
		const result = await runWorkflow(
			singleNodeWorkflow(ACCOUNT, { resource: 'number', operation: 'getAll', returnAll: true }),
			{ credentials: accountCredentials() },
		);
		expectWrongAddress(result.error?.message, 'Account');
		expect(result.error?.message).toMatch(/JSON that is not in the API's format/);
	});

	it('a 404 page from a web app says the address is wrong, not "not found"', async () => {
		stub().reply(html(404));
		const result = await runWorkflow(singleNodeWorkflow(ACCOUNT, sms), {
			credentials: accountCredentials(),
		});
		expectWrongAddress(result.error?.message, 'Account');
		expect(stub().received.map((request) => request.method)).toEqual(['POST', 'GET']);
	});
});

describe('the Unified API at an address that is not the API', () => {
	const nodeTypes = { [PROBE_TYPE]: new TransportProbe() };
	const probe = {
		api: 'unified',
		service: 'sms',
		action: 'send',
		body: '{"to":"+447700900123","message":"hi"}',
	};

	it.each([
		['an HTML page', html()],
		['JSON without the envelope', { status: 200, body: { ok: true } }],
		['an envelope without a result', { status: 200, body: { success: true } }],
	])('fails on %s with HTTP 200', async (_what, reply) => {
		stub().reply(reply);
		const result = await runWorkflow(singleNodeWorkflow(PROBE_TYPE, probe), {
			credentials: unifiedCredentials(),
			nodeTypes,
		});
		expectWrongAddress(result.error?.message, 'Unified');
		expect((result.error as unknown as { description: string }).description).toMatch(
			/Endpoint URL/,
		);
		expect(stub().received).toHaveLength(1);
	});
});

describe('credential tests at an address that is not the API', () => {
	const account = () => runCredentialTest('commsAccountApi', accountCredentials().commsAccountApi);
	const unified = () => runCredentialTest('commsUnifiedApi', unifiedCredentials().commsUnifiedApi);

	it.each([
		['a 200 HTML page', html()],
		['a 404 HTML page', html(404)],
		['JSON of another service', { status: 200, body: { status: 'ok' } }],
		["the API's envelope without its numbers", { status: 200, body: { success: true } }],
	])('the Account test fails on %s', async (_what, reply) => {
		stub().reply(reply);
		const result = await account();
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/does not answer like the Comms Account API|Base URL/);
	});

	it("the Account test passes on the API's own answer", async () => {
		stub().reply({
			status: 200,
			body: {
				success: true,
				numbers: [],
				count: 0,
				scoping: { unrestricted: true, allowedPhoneDocIds: [] },
			},
		});
		expect(await account()).toEqual({ status: 'OK', message: 'Connection successful!' });
	});

	it.each([
		['a 404 HTML page', html(404), /does not answer like the Comms Unified API/],
		['a 200 HTML page', html(), /does not answer like the Comms Unified API/],
		[
			'a 500 in the API envelope',
			{
				status: 500,
				body: { success: false, code: 'INTERNAL_ERROR', error: 'boom', message: 'boom' },
			},
			/internal error/,
		],
		['a 500 HTML page', html(500), /internal error/],
		[
			'a 429 in the API envelope',
			{
				status: 429,
				body: { success: false, code: 'RATE_LIMITED', error: 'slow', message: 'slow' },
			},
			/rate limiting/,
		],
		['a bare 429', { status: 429, body: 'Too Many Requests' }, /rate limiting/],
		['a 502 from a proxy', html(502), /gateway/],
		['a 504 from a proxy', html(504), /gateway/],
		[
			'a 405',
			{
				status: 405,
				body: { success: false, code: 'METHOD_NOT_ALLOWED', error: 'no', message: 'no' },
			},
			/does not answer like/,
		],
		[
			'an INTERNAL_ERROR under 200',
			{
				status: 200,
				body: { success: false, code: 'INTERNAL_ERROR', error: 'boom', message: 'boom' },
			},
			/internal error/,
		],
		[
			'RATE_LIMITED under 200',
			{
				status: 200,
				body: { success: false, code: 'RATE_LIMITED', error: 'slow', message: 'slow' },
			},
			/rate limiting/,
		],
		[
			'JSON without the envelope',
			{ status: 400, body: { error: 'bad request' } },
			/does not answer like/,
		],
		[
			'an envelope without a code',
			{ status: 400, body: { success: false, error: 'bad request' } },
			/does not answer like/,
		],
		[
			'a success envelope (something was carried out)',
			{ status: 200, body: { success: true, result: {}, billing: { cost: 3 } } },
			/accepted an SMS with no recipient/,
		],
	])(
		'the Unified test fails on %s ("Connection successful!" only when the API shows it accepted the key)',
		async (_what, reply, message) => {
			stub().reply(reply);
			const result = await unified();
			expect(result.status).toBe('Error');
			expect(result.message).toMatch(message);
		},
	);

	describe('a redirect to another host', () => {
		const elsewhere = useStubServer();
		it.each([301, 302, 307, 308])(
			'%i: followed neither by a node nor by either test, so the key is not carried there',
			async (status) => {
				stub().reply({ status, body: '', headers: { location: `${elsewhere().url}/v1/numbers` } });
				await runWorkflow(
					singleNodeWorkflow(ACCOUNT, { resource: 'number', operation: 'getAll', returnAll: true }),
					{ credentials: accountCredentials() },
				);
				expect((await account()).status).toBe('Error');
				expect((await unified()).status).toBe('Error');
				expect(elsewhere().received).toEqual([]);
			},
		);
	});

	it("the Unified test passes on the API's envelope refusing the empty request for its parameters", async () => {
		stub().reply({
			status: 400,
			body: {
				success: false,
				code: 'INVALID_PARAMETERS',
				error: 'to is required',
				message: 'to is required',
			},
		});
		expect(await unified()).toEqual({ status: 'OK', message: 'Connection successful!' });
		stub().reply({
			status: 200,
			body: {
				success: false,
				code: 'INVALID_PARAMETERS',
				error: 'to is required',
				message: 'to is required',
			},
		});
		expect(await unified()).toEqual({ status: 'OK', message: 'Connection successful!' });
	});
});
