/**
 * The shared transport and both credentials, run by n8n's engine over real HTTP: how each
 * key travels, what is refused before any request, and that retries wait out 429s.
 */
import { runWorkflow } from '../../harness';
import { ACCOUNT_LIMIT } from '../../nodes/CommsAccount/api/accountApi';
import { setSharedLimit } from '../../nodes/shared/transport/pacing';
import { limiterScope } from '../../nodes/shared/transport';
import { PROBE_TYPE, TransportProbe } from '../support/probeNode';
import { useRequestTimeout } from '../support/sandbox';
import { useStubServer } from '../support/stubServer';
import { startTricklingServer } from '../support/tricklingServer';
import { items, singleNodeWorkflow } from '../support/workflows';

const ACCOUNT_KEY = 'acc_transport_test_9f8e7d6c5b4a';
const LIVE_KEY = 'key_live_transport_test_1a2b3c4d';

const stub = useStubServer({ reply: { status: 200, body: { success: true, numbers: [] } } });

const nodeTypes = { [PROBE_TYPE]: new TransportProbe() };

function run(
	parameters: Record<string, string>,
	credentials: Record<string, Record<string, string>>,
	continueOnFail = false,
) {
	return runWorkflow(singleNodeWorkflow(PROBE_TYPE, parameters, { continueOnFail }), {
		credentials,
		nodeTypes,
	});
}

const account = (overrides: Record<string, string> = {}) => ({
	commsAccountApi: { apiKey: ACCOUNT_KEY, baseUrl: stub().url, ...overrides },
});
const unified = (overrides: Record<string, string> = {}) => ({
	commsUnifiedApi: {
		apiKey: LIVE_KEY,
		endpointUrl: `${stub().url}/unified`,
		webhookSecret: 'whsec_transport_secret',
		...overrides,
	},
});

describe('Account credential', () => {
	it('sends the key in exactly one header, as a Bearer token', async () => {
		const result = await run({ api: 'account', method: 'GET', path: '/v1/numbers' }, account());
		expect(result.error).toBeUndefined();
		expect(result.output('Node')).toEqual([
			{ json: { success: true, numbers: [] }, pairedItem: { item: 0 } },
		]);
		expect(stub().received).toHaveLength(1);
		const [request] = stub().received;
		expect(request.url).toBe('/v1/numbers');
		expect(request.headers.authorization).toBe(`Bearer ${ACCOUNT_KEY}`);
		expect(request.headers['x-api-key']).toBeUndefined();
		expect(request.body).toBe('');
	});

	it('refuses a key with the wrong prefix before any request, naming the expected prefix', async () => {
		const result = await run({ api: 'account' }, account({ apiKey: 'key_live_wrong_api_123456' }));
		expect(result.error?.message).toMatch(/start with "acc_"/);
		expect(stub().received).toHaveLength(0);
	});

	it('refuses plain http to a host that is not this machine, before any request', async () => {
		const result = await run({ api: 'account' }, account({ baseUrl: 'http://api.example.com' }));
		expect(result.error?.message).toMatch(/plain http:\/\//);
		expect(result.error?.message).toContain('http://api.example.com');
		expect(stub().received).toHaveLength(0);
	});

	it('accepts plain http to localhost', async () => {
		const result = await run(
			{ api: 'account' },
			account({ baseUrl: stub().url.replace('127.0.0.1', 'localhost') }),
		);
		expect(result.error).toBeUndefined();
		expect(stub().received).toHaveLength(1);
	});
});

describe('Unified credential', () => {
	it('puts the key in the body envelope and in no header', async () => {
		stub().reply({
			status: 200,
			body: { success: true, result: { message_id: 'm1' }, billing: { cost: 3 } },
		});
		const result = await run(
			{
				api: 'unified',
				service: 'sms',
				action: 'send',
				body: '{"to":"+447700900123","message":"hi"}',
			},
			unified(),
		);
		expect(result.error).toBeUndefined();
		const [request] = stub().received;
		expect(request.url).toBe('/unified');
		expect(request.method).toBe('POST');
		expect(JSON.parse(request.body)).toEqual({
			service: 'sms',
			action: 'send',
			data: { to: '+447700900123', message: 'hi' },
			api_key: LIVE_KEY,
		});
		expect(request.headers.authorization).toBeUndefined();
		expect(request.headers['x-api-key']).toBeUndefined();
	});

	it('refuses an Account key in the Unified credential, naming both prefixes', async () => {
		const result = await run({ api: 'unified' }, unified({ apiKey: ACCOUNT_KEY }));
		expect(result.error?.message).toMatch(/"key_live_".*"key_test_"/);
		expect(stub().received).toHaveLength(0);
	});
});

describe('retries', () => {
	it('waits out a 429 (honouring Retry-After) and returns the eventual answer', async () => {
		stub().reply(
			{
				status: 429,
				body: { success: false, error: 'rate_limited' },
				headers: { 'retry-after': '0' },
			},
			{ status: 200, body: { success: true, numbers: [] } },
		);
		const result = await run({ api: 'account' }, account());
		expect(result.error).toBeUndefined();
		expect(stub().received).toHaveLength(2);
	});

	it('retries a read answered with the Account API 500 the spec calls retryable', async () => {
		stub().reply(
			{ status: 500, body: { success: false, error: 'internal' }, headers: { 'retry-after': '0' } },
			{ status: 200, body: { success: true, numbers: [] } },
		);
		const result = await run({ api: 'account' }, account());
		expect(result.error).toBeUndefined();
		expect(stub().received).toHaveLength(2);
	});

	it('does not send a write answered 500 again blindly (without a look-up it is never sent again)', async () => {
		stub().reply(
			{ status: 500, body: { success: false, error: 'internal' }, headers: { 'retry-after': '0' } },
			{ status: 201, body: { success: true, messageId: 'SM1' } },
		);
		const result = await run(
			{ api: 'account', method: 'POST', path: '/v1/sms', body: '{"to":"+447700900123"}' },
			account(),
		);
		expect(stub().received).toHaveLength(1);
		expect(result.error?.message).toMatch(/HTTP 500.*unknown whether.*not sent again/);
	});

	it('does not send a POST again when the connection dropped after it was sent', async () => {
		stub().reply({ drop: true });
		const result = await run(
			{ api: 'account', method: 'POST', path: '/v1/sms', body: '{"to":"+447700900123"}' },
			account(),
		);
		expect(stub().received).toHaveLength(1);
		expect(result.error?.message).toMatch(/unknown whether/);
		expect(result.error?.message).toMatch(/not sent again/);
	});

	it('does send a GET again when the connection dropped', async () => {
		stub().reply({ drop: true }, { status: 200, body: { success: true, numbers: [] } });
		const result = await run({ api: 'account' }, account());
		expect(result.error).toBeUndefined();
		expect(stub().received).toHaveLength(2);
	});

	it('does not retry a Unified INTERNAL_ERROR, whose retry safety the spec does not state', async () => {
		stub().reply({
			status: 500,
			body: { success: false, code: 'INTERNAL_ERROR', error: 'boom', message: 'boom' },
		});
		const result = await run({ api: 'unified' }, unified());
		expect(stub().received).toHaveLength(1);
		expect(result.error?.message).toMatch(/internal error/);
	});
});

describe('429: one answer cannot stall every execution on a key', () => {
	const rateLimited = { success: false, error: 'rate_limited', message: 'slow down' };

	it('fails at once, saying how long the server asked for, when Retry-After is beyond the 120 s cap', async () => {
		stub().reply(
			{ status: 429, body: rateLimited, headers: { 'retry-after': '600' } },
			{ status: 200, body: { success: true, numbers: [] } },
		);
		const started = Date.now();
		const result = await run({ api: 'account' }, account());
		expect(Date.now() - started).toBeLessThan(5_000);
		expect(stub().received).toHaveLength(1);
		expect(result.error?.message).toMatch(/asked to wait 10 minutes/);
		expect(result.error?.message).toMatch(/longer than the 2 minutes the node waits/);
		expect((result.error as unknown as { httpCode: string }).httpCode).toBe('429');
	});

	it('Retry-After: 99999999 fails just as fast, and the next execution on the key is not held back', async () => {
		stub().reply(
			{ status: 429, body: rateLimited, headers: { 'retry-after': '99999999' } },
			{ status: 200, body: { success: true, numbers: [] } },
		);
		const started = Date.now();
		const first = await run({ api: 'account' }, account());
		expect(first.error?.message).toMatch(/asked to wait 1157 days/);
		const second = await run({ api: 'account' }, account());
		expect(second.error).toBeUndefined();
		expect(Date.now() - started).toBeLessThan(5_000);
		expect(stub().received).toHaveLength(2);
	});

	it('a Retry-After within the cap holds every execution on the key until it ends', async () => {
		stub().reply(
			{ status: 429, body: rateLimited, headers: { 'retry-after': '2' } },
			{ status: 200, body: { success: true, numbers: [] } },
		);
		const first = run({ api: 'account' }, account());
		while (stub().received.length < 1) await new Promise((resolve) => setTimeout(resolve, 10));
		await new Promise((resolve) => setTimeout(resolve, 100));
		const second = run({ api: 'account' }, account());
		expect((await first).error).toBeUndefined();
		expect((await second).error).toBeUndefined();
		const [refused, ...later] = stub().received;
		for (const request of later) expect(request.at - refused.at).toBeGreaterThanOrEqual(1_950);
	});

	describe('without Retry-After (the API documents no header)', () => {
		const scope = () => limiterScope('account', ACCOUNT_KEY, stub().url);
		afterEach(() => setSharedLimit(scope(), ACCOUNT_LIMIT));

		it("holds the key's other requests back after a refusal with nothing of ours in the window (another client filled it), and sends them one at a time", async () => {
			setSharedLimit(scope(), { perWindow: 100, windowMs: 6_000, concurrency: 10 });
			stub().reply(
				{ status: 429, body: rateLimited },
				{ status: 200, body: { success: true, numbers: [] } },
			);
			const first = run({ api: 'account' }, account());
			while (stub().received.length < 1) await new Promise((resolve) => setTimeout(resolve, 10));
			const second = run({ api: 'account' }, account());
			expect((await first).error).toBeUndefined();
			expect((await second).error).toBeUndefined();
			expect(stub().received).toHaveLength(3);
			const [refused, ...later] = stub().received;
			// The key pauses a sixtieth of the documented window (100 ms of 6 s), then the refused
			// request goes first, alone.
			for (const request of later) expect(request.at - refused.at).toBeGreaterThanOrEqual(90);
		});

		it('a Retry-After it cannot read is taken as none: the key holds as after any 429 without one, instead of a retry at once', async () => {
			setSharedLimit(scope(), { perWindow: 100, windowMs: 6_000, concurrency: 10 });
			stub().reply(
				{ status: 429, body: rateLimited, headers: { 'retry-after': 'soon' } },
				{ status: 200, body: { success: true, numbers: [] } },
			);
			const result = await run({ api: 'account' }, account());
			expect(result.error).toBeUndefined();
			expect(stub().received).toHaveLength(2);
			const [refused, retried] = stub().received;
			// A sixtieth of the documented window (100 ms of 6 s); taken as a wait asked for, the
			// limiter held nothing and the retry went at once (a 429 a round trip for 4 minutes).
			expect(retried.at - refused.at).toBeGreaterThanOrEqual(90);
		});

		it('never fails a request while the key has had something accepted lately; fails it after its attempts once nothing was for two of the longest windows', async () => {
			// The longest window the limiter may learn is two documented ones: 6 s here, so 12 s.
			setSharedLimit(scope(), { perWindow: 100, windowMs: 3_000, concurrency: 10 });
			stub().reply({ status: 429, body: rateLimited });
			const started = Date.now();
			const result = await run({ api: 'account' }, account());
			expect(result.error?.message).toMatch(/rate limit was still exceeded/);
			expect(stub().received.length).toBeGreaterThanOrEqual(6);
			expect(Date.now() - started).toBeGreaterThanOrEqual(12_000);
		}, 60_000);
	});

	it('keys the limiter by the canonical address: a different spelling of the same address shares its limit', async () => {
		const spelled = stub().url.replace('http://127.0.0.1', 'HTTP://LocalHost');
		const canonical = limiterScope(
			'account',
			ACCOUNT_KEY,
			stub().url.replace('127.0.0.1', 'localhost'),
		);
		setSharedLimit(canonical, { perWindow: 1, windowMs: 1_500, concurrency: 1 });
		try {
			const result = await runWorkflow(singleNodeWorkflow(PROBE_TYPE, { api: 'account' }), {
				credentials: account({ baseUrl: `${spelled}/` }),
				nodeTypes,
				input: items(2),
			});
			expect(result.error).toBeUndefined();
			expect(stub().received).toHaveLength(2);
			expect(stub().received[1].at - stub().received[0].at).toBeGreaterThanOrEqual(1_400);
		} finally {
			setSharedLimit(canonical, ACCOUNT_LIMIT);
		}
	});
});

describe('the request timeout bounds the whole request, not only an idle socket', () => {
	useRequestTimeout(1_500);

	it('an answer whose body trickles in is cut off at the timeout; a write is then not sent again', async () => {
		const slow = await startTricklingServer({
			status: 201,
			body: { success: true, messageId: 'SM1' },
			everyMs: 100,
			totalMs: 8_000,
		});
		try {
			const started = Date.now();
			const result = await run(
				{ api: 'account', method: 'POST', path: '/v1/sms', body: '{"to":"+447700900123"}' },
				account({ baseUrl: slow.url }),
			);
			expect(Date.now() - started).toBeLessThan(4_000);
			expect(slow.received).toHaveLength(1);
			expect(result.error?.message).toMatch(
				/did not answer within 1.5 seconds, so it is unknown whether/,
			);
		} finally {
			await slow.close();
		}
	});

	it('a read cut off at the timeout is sent again', async () => {
		const slow = await startTricklingServer({
			body: { success: true, numbers: [] },
			everyMs: 100,
			totalMs: 8_000,
			trickle: 1,
		});
		try {
			const started = Date.now();
			const result = await run({ api: 'account' }, account({ baseUrl: slow.url }));
			expect(result.error).toBeUndefined();
			expect(slow.received).toHaveLength(2);
			expect(Date.now() - started).toBeLessThan(4_000);
		} finally {
			await slow.close();
		}
	});
});
