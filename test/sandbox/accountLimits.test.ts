import { ACCOUNT_KEYS, PHONE_DOC_IDS, TEST_NUMBERS } from '../../sandbox';
import { accountApi, controlApi, useSandbox } from '../support/sandbox';

const sandbox = useSandbox({ frozenClock: true });
const api = (key: string = ACCOUNT_KEYS.unrestricted) => accountApi(sandbox(), key);
const sms = { phoneDocId: PHONE_DOC_IDS.main, to: TEST_NUMBERS.customer, message: 'hi' };

describe('Account API rate limit', () => {
	it('allows 600 requests per minute per key by default, then 429 with Retry-After', async () => {
		for (let i = 0; i < 600; i += 1) {
			const res = await api().get(i % 2 ? '/v1/numbers' : '/v1/sms');
			if (res.status !== 200) throw new Error(`request ${i} got ${res.status}`);
		}
		const limited = await api().get('/v1/calls');
		expect(limited.status).toBe(429);
		expect(limited.headers['retry-after']).toBe('60');
		expect(limited.body).toMatchObject({
			success: false,
			error: 'rate_limited',
			retryAfterSeconds: 60,
		});
		expect(limited.body.message).toContain('600');
	});

	it('counts every endpoint of a key together, keys separately, on a sliding window of the sandbox clock', async () => {
		sandbox().control.setAccountRateLimit(3);
		expect((await api().get('/v1/numbers')).status).toBe(200);
		await sandbox().control.advanceClock(20);
		expect((await api().post('/v1/sms', sms)).status).toBe(201);
		expect((await api().get('/v1/calls')).status).toBe(200);
		const limited = await api().get('/v1/sms');
		expect(limited.status).toBe(429);
		expect(limited.headers['retry-after']).toBe('40');
		expect((await api(ACCOUNT_KEYS.restricted).get('/v1/numbers')).status).toBe(200);
		await sandbox().control.advanceClock(39);
		expect((await api().get('/v1/sms')).headers['retry-after']).toBe('1');
		await sandbox().control.advanceClock(1);
		expect((await api().get('/v1/sms')).status).toBe(200);
		const again = await api().get('/v1/sms');
		expect(again.status).toBe(429);
		expect(again.headers['retry-after']).toBe('20');
	});

	it('does not count rejected requests', async () => {
		sandbox().control.setAccountRateLimit(1);
		await api().get('/v1/numbers');
		for (let i = 0; i < 5; i += 1) expect((await api().get('/v1/numbers')).status).toBe(429);
		await sandbox().control.advanceClock(60);
		expect((await api().get('/v1/numbers')).status).toBe(200);
	});

	it('runs the limit on a shorter window when rateWindowSeconds is set', async () => {
		sandbox().control.updateSettings({ accountRequestsPerMinute: 2, rateWindowSeconds: 10 });
		expect((await api().get('/v1/numbers')).status).toBe(200);
		expect((await api().get('/v1/numbers')).status).toBe(200);
		const limited = await api().get('/v1/numbers');
		expect(limited.status).toBe(429);
		expect(limited.headers['retry-after']).toBe('10');
		await sandbox().control.advanceClock(10);
		expect((await api().get('/v1/numbers')).status).toBe(200);
	});

	it('sends no Retry-After, field or wait hint when retryAfter is off', async () => {
		sandbox().control.updateSettings({ accountRequestsPerMinute: 1, retryAfter: false });
		await api().get('/v1/numbers');
		const limited = await api().get('/v1/numbers');
		expect(limited.status).toBe(429);
		expect(limited.headers['retry-after']).toBeUndefined();
		expect(limited.body).toEqual({
			success: false,
			error: 'rate_limited',
			message: 'Rate limit of 1 requests per minute exceeded.',
		});
	});

	it('counts with a token bucket when rateAlgorithm is tokenBucket', async () => {
		sandbox().control.updateSettings({
			accountRequestsPerMinute: 6,
			rateWindowSeconds: 60,
			rateAlgorithm: 'tokenBucket',
		});
		// A full bucket: the burst of 6 goes at once, the 7th waits for a token (one per 10 s).
		for (let i = 0; i < 6; i += 1) expect((await api().get('/v1/numbers')).status).toBe(200);
		const limited = await api().get('/v1/numbers');
		expect(limited.status).toBe(429);
		expect(limited.headers['retry-after']).toBe('10');
		await sandbox().control.advanceClock(10);
		expect((await api().get('/v1/numbers')).status).toBe(200);
		// Unlike a window, a token refilled is spent at once: the next one is 10 s away again.
		expect((await api().get('/v1/numbers')).status).toBe(429);
		await sandbox().control.advanceClock(20);
		expect((await api().get('/v1/numbers')).status).toBe(200);
		expect((await api().get('/v1/numbers')).status).toBe(200);
		expect((await api().get('/v1/numbers')).status).toBe(429);
	});

	it('counts per clock-aligned window when rateAlgorithm is fixedWindow: twice the limit across a turn', async () => {
		sandbox().control.freezeClock();
		sandbox().control.updateSettings({
			accountRequestsPerMinute: 2,
			rateWindowSeconds: 10,
			rateAlgorithm: 'fixedWindow',
		});
		// To 1 s before a turn of the 10-second windows (multiples of 10 s on the sandbox clock).
		const toTurnSeconds = (10_000 - (Date.parse(sandbox().control.clock().now) % 10_000)) / 1000;
		await sandbox().control.advanceClock(
			toTurnSeconds >= 1 ? toTurnSeconds - 1 : toTurnSeconds + 9,
		);
		expect((await api().get('/v1/numbers')).status).toBe(200);
		expect((await api().get('/v1/numbers')).status).toBe(200);
		const limited = await api().get('/v1/numbers');
		expect(limited.status).toBe(429);
		expect(limited.headers['retry-after']).toBe('1');
		// The turn: two more at once, though the first two were a second ago.
		await sandbox().control.advanceClock(1);
		expect((await api().get('/v1/numbers')).status).toBe(200);
		expect((await api().get('/v1/numbers')).status).toBe(200);
		expect((await api().get('/v1/numbers')).status).toBe(429);
	});

	it('a token bucket of its own size when rateBurst is set: a burst of it, then the limit per window', async () => {
		sandbox().control.updateSettings({
			accountRequestsPerMinute: 6,
			rateWindowSeconds: 60,
			rateAlgorithm: 'tokenBucket',
			rateBurst: 2,
		});
		expect((await api().get('/v1/numbers')).status).toBe(200);
		expect((await api().get('/v1/numbers')).status).toBe(200);
		const limited = await api().get('/v1/numbers');
		expect(limited.status).toBe(429);
		expect(limited.headers['retry-after']).toBe('10');
		await sandbox().control.advanceClock(60);
		// A minute refills 6 tokens, but the bucket holds 2.
		expect((await api().get('/v1/numbers')).status).toBe(200);
		expect((await api().get('/v1/numbers')).status).toBe(200);
		expect((await api().get('/v1/numbers')).status).toBe(429);
		expect(sandbox().control.updateSettings({ rateBurst: null }).rateBurst).toBeNull();
		expect(() => sandbox().control.updateSettings({ rateBurst: 0 })).toThrow(/rateBurst/);
	});

	it('refuses an unknown rateAlgorithm and a retryAfter that is not a boolean', () => {
		expect(() =>
			sandbox().control.updateSettings({ rateAlgorithm: 'leaky' as 'tokenBucket' }),
		).toThrow(/rateAlgorithm must be one of: slidingWindow, fixedWindow, tokenBucket/);
		expect(() =>
			sandbox().control.updateSettings({ retryAfter: 'no' as unknown as boolean }),
		).toThrow(/retryAfter must be true or false/);
	});

	it('changes the limit over HTTP control', async () => {
		const res = await controlApi(sandbox()).post('/settings', { accountRequestsPerMinute: 1 });
		expect(res.body.settings.accountRequestsPerMinute).toBe(1);
		await api().get('/v1/numbers');
		expect((await api().get('/v1/numbers')).status).toBe(429);
	});
});

describe('Reads are free', () => {
	it('leaves every balance untouched on reads', async () => {
		const before = sandbox().control.balances();
		await api().get('/v1/numbers');
		await api().get('/v1/calls');
		await api().get('/v1/calls', { mode: 'ai', phoneDocId: PHONE_DOC_IDS.main });
		await api().get('/v1/sms');
		expect(sandbox().control.balances()).toEqual(before);
	});
});

describe('Injected failures on the Account API', () => {
	it('answers the next N matching requests with 500 internal_error, and they have no effect', async () => {
		sandbox().control.injectFailure({ status: 500, count: 2, path: '/v1/sms', method: 'POST' });
		const before = sandbox().control.balances().smsCredits;
		for (let i = 0; i < 2; i += 1) {
			expect((await api().get('/v1/sms')).status).toBe(200);
			const res = await api().post('/v1/sms', sms);
			expect(res.status).toBe(500);
			expect(res.body).toMatchObject({ success: false, error: 'internal_error' });
		}
		expect(sandbox().control.balances().smsCredits).toEqual(before);
		expect((await api().get('/v1/sms', { peer: TEST_NUMBERS.customer })).body.count).toBe(0);
		expect((await api().post('/v1/sms', sms)).status).toBe(201);
		expect(sandbox().control.failures()).toEqual([]);
	});

	it('injects 502 with the carrier code', async () => {
		sandbox().control.injectFailure({ status: 502, carrierCode: '21610' });
		const res = await api().post('/v1/calls', {
			phoneDocId: PHONE_DOC_IDS.main,
			to: TEST_NUMBERS.customer,
		});
		expect(res.status).toBe(502);
		expect(res.body).toMatchObject({
			success: false,
			error: 'carrier_rejected',
			carrierCode: '21610',
		});
	});

	it('injects 429 with Retry-After, and 503', async () => {
		sandbox().control.injectFailure({ status: 429, retryAfterSeconds: 7, api: 'account' });
		sandbox().control.injectFailure({ status: 503, api: 'account' });
		const limited = await api().get('/v1/numbers');
		expect(limited.status).toBe(429);
		expect(limited.headers['retry-after']).toBe('7');
		expect(limited.body.error).toBe('rate_limited');
		const unavailable = await api().get('/v1/numbers');
		expect(unavailable.status).toBe(503);
		expect(unavailable.body.error).toBe('service_unavailable');
		expect((await api().get('/v1/numbers')).status).toBe(200);
	});

	it('lists and clears pending failures over HTTP', async () => {
		const control = controlApi(sandbox());
		const added = await control.post('/failures', { status: 500, count: 3, path: '/v1/calls/' });
		expect(added.body.failures).toEqual([
			expect.objectContaining({
				status: 500,
				remaining: 3,
				path: '/v1/calls',
				api: null,
				service: null,
			}),
		]);
		await api().get('/v1/calls');
		expect((await control.get('/failures')).body.failures[0].remaining).toBe(2);
		await control.delete('/failures');
		expect((await api().get('/v1/calls')).status).toBe(200);
	});
});
