import { ACCOUNT_KEYS, PHONE_DOC_IDS } from '../../sandbox';
import { accountApi, controlApi, http, useSandbox } from '../support/sandbox';

const sandbox = useSandbox({ frozenClock: true });

describe('Account API authentication', () => {
	it('accepts the key in Authorization: Bearer', async () => {
		const res = await accountApi(sandbox(), ACCOUNT_KEYS.unrestricted, 'bearer').get('/v1/numbers');
		expect(res.status).toBe(200);
		expect(res.body.success).toBe(true);
	});

	it('accepts the key in X-API-Key', async () => {
		const res = await accountApi(sandbox(), ACCOUNT_KEYS.unrestricted, 'x-api-key').get(
			'/v1/numbers',
		);
		expect(res.status).toBe(200);
		expect(res.body.count).toBe(3);
	});

	it('refuses both headers at once with 400 ambiguous_credentials', async () => {
		const key = ACCOUNT_KEYS.unrestricted;
		const res = await http('GET', `${sandbox().url}/v1/numbers`, {
			headers: { authorization: `Bearer ${key}`, 'x-api-key': key },
		});
		expect(res.status).toBe(400);
		expect(res.body).toMatchObject({ success: false, error: 'ambiguous_credentials' });
	});

	it('gives 401 missing_api_key without credentials, or with an empty Bearer', async () => {
		const none = await http('GET', `${sandbox().url}/v1/numbers`);
		expect(none.status).toBe(401);
		expect(none.body).toMatchObject({ success: false, error: 'missing_api_key' });
		expect(typeof none.body.message).toBe('string');
		const empty = await http('GET', `${sandbox().url}/v1/numbers`, {
			headers: { authorization: 'Bearer ' },
		});
		expect(empty.status).toBe(401);
		expect(empty.body.error).toBe('missing_api_key');
	});

	it('gives 401 invalid_api_key for a wrong prefix, an unknown key, a rotated key and a non-Bearer scheme', async () => {
		for (const key of [
			'key_live_sbx_7a3f9c1e5b2d',
			'acc_sbx_unknown_000000',
			ACCOUNT_KEYS.revoked,
		]) {
			const res = await accountApi(sandbox(), key).get('/v1/numbers');
			expect(res.status).toBe(401);
			expect(res.body.error).toBe('invalid_api_key');
		}
		const basic = await http('GET', `${sandbox().url}/v1/numbers`, {
			headers: { authorization: 'Basic abc' },
		});
		expect(basic.status).toBe(401);
		expect(basic.body.error).toBe('invalid_api_key');
	});

	it('gives 401 key_disabled for a disabled key', async () => {
		const res = await accountApi(sandbox(), ACCOUNT_KEYS.disabled).get('/v1/numbers');
		expect(res.status).toBe(401);
		expect(res.body.error).toBe('key_disabled');
	});

	it('gives 402 account_suspended on every request of a suspended account, reads included', async () => {
		const api = accountApi(sandbox(), ACCOUNT_KEYS.suspended);
		const responses = [
			await api.get('/v1/numbers'),
			await api.get('/v1/calls'),
			await api.get('/v1/sms'),
			await api.post('/v1/sms', {
				phoneDocId: PHONE_DOC_IDS.suspended,
				to: '+447700900123',
				message: 'x',
			}),
			await api.post('/v1/calls', { phoneDocId: PHONE_DOC_IDS.suspended, to: '+447700900123' }),
		];
		for (const res of responses) {
			expect(res.status).toBe(402);
			expect(res.body.error).toBe('account_suspended');
		}
	});

	it('suspends and restores the main account through control', async () => {
		const api = accountApi(sandbox(), ACCOUNT_KEYS.unrestricted);
		await controlApi(sandbox()).post('/account', { suspended: true });
		expect((await api.get('/v1/numbers')).body.error).toBe('account_suspended');
		sandbox().control.setAccountSuspended(false);
		expect((await api.get('/v1/numbers')).status).toBe(200);
	});

	it('gives 404 for an unknown path and 405 with Allow for a wrong verb', async () => {
		const api = accountApi(sandbox(), ACCOUNT_KEYS.unrestricted);
		const unknown = await api.get('/v1/nothing');
		expect(unknown.status).toBe(404);
		expect(unknown.body).toMatchObject({ success: false, error: 'not_found' });
		const outside = await http('GET', `${sandbox().url}/v2/numbers`);
		expect(outside.status).toBe(404);
		const wrongVerb = await api.post('/v1/numbers', {});
		expect(wrongVerb.status).toBe(405);
		expect(wrongVerb.body.error).toBe('method_not_allowed');
		expect(wrongVerb.headers.allow).toBe('GET');
		const del = await http('DELETE', `${sandbox().url}/v1/sms`, {
			headers: { 'x-api-key': ACCOUNT_KEYS.unrestricted },
		});
		expect(del.status).toBe(405);
		expect(del.headers.allow).toBe('GET, POST');
	});

	it('gives 400 invalid_json for a body that is not a JSON object', async () => {
		const headers = { 'x-api-key': ACCOUNT_KEYS.unrestricted };
		const broken = await http('POST', `${sandbox().url}/v1/sms`, { headers, raw: '{not json' });
		expect(broken.status).toBe(400);
		expect(broken.body.error).toBe('invalid_json');
		const array = await http('POST', `${sandbox().url}/v1/sms`, { headers, raw: '[1,2]' });
		expect(array.status).toBe(400);
		expect(array.body.error).toBe('invalid_json');
	});

	it('counts requests and last use per key, shown masked in the state', async () => {
		await accountApi(sandbox(), ACCOUNT_KEYS.unrestricted).get('/v1/numbers');
		await accountApi(sandbox(), ACCOUNT_KEYS.unrestricted).get('/v1/sms');
		const state = (await controlApi(sandbox()).get('/state')).body;
		const entry = state.accountKeys.find((k: { key: string }) => k.key === 'acc_sbx_****7e1b');
		expect(entry).toMatchObject({ requestCount: 2, state: 'active' });
		expect(entry.lastUsedAt).toBe(state.clock.now);
		expect(JSON.stringify(state)).not.toContain(ACCOUNT_KEYS.unrestricted);
	});
});

describe('GET /v1/numbers and key scoping', () => {
	it('lists the three seeded numbers with every field for an unrestricted key', async () => {
		const res = await accountApi(sandbox(), ACCOUNT_KEYS.unrestricted).get('/v1/numbers');
		expect(res.body.scoping).toEqual({ unrestricted: true, allowedPhoneDocIds: [] });
		const byId = Object.fromEntries(
			res.body.numbers.map((n: { phoneDocId: string }) => [n.phoneDocId, n]),
		);
		expect(byId[PHONE_DOC_IDS.main]).toEqual({
			phoneDocId: PHONE_DOC_IDS.main,
			label: 'Sandbox Trading - Main line',
			voiceNumber: '+441632960001',
			smsNumber: '+447700900001',
			smsEnabled: true,
			status: 'active',
		});
		expect(byId[PHONE_DOC_IDS.noSms]).toMatchObject({ smsNumber: null, smsEnabled: false });
		expect(byId[PHONE_DOC_IDS.smsDisabled]).toMatchObject({
			smsNumber: '+447700900003',
			smsEnabled: false,
		});
		expect(sandbox().numbers).toEqual({
			main: PHONE_DOC_IDS.main,
			noSms: PHONE_DOC_IDS.noSms,
			smsDisabled: PHONE_DOC_IDS.smsDisabled,
		});
	});

	it('shows a restricted key only its numbers, with its allow-list in scoping', async () => {
		const res = await accountApi(sandbox(), ACCOUNT_KEYS.restricted).get('/v1/numbers');
		expect(res.body.scoping).toEqual({
			unrestricted: false,
			allowedPhoneDocIds: [PHONE_DOC_IDS.main],
		});
		expect(res.body.numbers.map((n: { phoneDocId: string }) => n.phoneDocId)).toEqual([
			PHONE_DOC_IDS.main,
		]);
		expect(res.body.count).toBe(1);
	});

	it('gives 403 phoneDocId_not_permitted when a restricted key targets another number, reads included', async () => {
		const api = accountApi(sandbox(), ACCOUNT_KEYS.restricted);
		const other = PHONE_DOC_IDS.noSms;
		const responses = [
			await api.post('/v1/calls', {
				phoneDocId: other,
				to: '+447700900123',
				agentPhone: '+447700900100',
			}),
			await api.post('/v1/sms', { phoneDocId: other, to: '+447700900123', message: 'hi' }),
			await api.get('/v1/sms', { phoneDocId: other }),
			await api.get('/v1/calls', { phoneDocId: other }),
		];
		for (const res of responses) {
			expect(res.status).toBe(403);
			expect(res.body).toMatchObject({
				success: false,
				error: 'phoneDocId_not_permitted',
				phoneDocId: other,
			});
		}
	});

	it('lets a restricted key use its own number', async () => {
		const res = await accountApi(sandbox(), ACCOUNT_KEYS.restricted).post('/v1/sms', {
			phoneDocId: PHONE_DOC_IDS.main,
			to: '+447700900123',
			message: 'hello',
		});
		expect(res.status).toBe(201);
	});
});
