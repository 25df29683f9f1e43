/**
 * Each credential's "Test" button, run through n8n-core's RoutingNode against the sandbox:
 * the verdicts users see, and that the Unified test spends nothing and performs nothing.
 */
import { runCredentialTest } from '../../harness';
import { UNIFIED_KEYS } from '../../sandbox';
import { accountCredentials, unifiedCredentials, useSandbox } from '../support/sandbox';

const sandbox = useSandbox();

describe('Comms Account API credential test', () => {
	const test = (key: string) =>
		runCredentialTest('commsAccountApi', accountCredentials(sandbox(), key).commsAccountApi);

	it('passes with a valid key, with one free GET /v1/numbers', async () => {
		expect(await test(sandbox().credentials.account.unrestricted)).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		expect(
			sandbox()
				.requests()
				.map((r) => `${r.method} ${r.path} ${r.status}`),
		).toEqual(['GET /v1/numbers 200']);
	});

	it('fails a revoked key and a disabled key with the 401 message', async () => {
		for (const key of [
			sandbox().credentials.account.revoked,
			sandbox().credentials.account.disabled,
		]) {
			expect(await test(key)).toEqual({
				status: 'Error',
				message: 'The API key was not accepted: it is unknown, revoked, rotated or disabled.',
			});
		}
	});

	it('says a suspended account is suspended', async () => {
		expect((await test(sandbox().credentials.account.suspended)).message).toMatch(
			/account is suspended/,
		);
	});

	it('fails a key with the wrong prefix before any request, naming acc_', async () => {
		const result = await test('key_live_abc123456');
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/start with "acc_"/);
		expect(sandbox().requests()).toHaveLength(0);
	});

	it('refuses a plain-http address that is not this machine before any request', async () => {
		const result = await runCredentialTest('commsAccountApi', {
			apiKey: sandbox().credentials.account.unrestricted,
			baseUrl: 'http://api.example.com',
		});
		expect(result).toMatchObject({ status: 'Error' });
		expect(result.message).toMatch(/plain http:\/\//);
		expect(sandbox().requests()).toHaveLength(0);
	});
});

describe('Comms Unified API credential test', () => {
	const test = (key: string) =>
		runCredentialTest('commsUnifiedApi', unifiedCredentials(sandbox(), key).commsUnifiedApi);

	it('passes a live key while spending nothing and performing nothing', async () => {
		const before = sandbox().control.balances().unifiedCreditsPence;
		expect(await test(sandbox().credentials.unified.live)).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		expect(sandbox().control.balances().unifiedCreditsPence).toBe(before);
		expect(await sandbox().control.unifiedRecords()).toEqual([]);
		const [request] = sandbox().requests();
		expect(request).toMatchObject({ api: 'unified', error: 'INVALID_PARAMETERS' });
	});

	it('passes a test key too', async () => {
		expect((await test(sandbox().credentials.unified.test)).status).toBe('OK');
	});

	it('fails a revoked key with a clear message', async () => {
		expect(await test(UNIFIED_KEYS.revoked)).toEqual({
			status: 'Error',
			message: 'The API key was not accepted: it is invalid or has been revoked.',
		});
	});

	it('also decides right when the server answers every error with HTTP 200', async () => {
		sandbox().control.setUnifiedErrorStatus('always200');
		expect((await test(sandbox().credentials.unified.live)).status).toBe('OK');
		expect((await test(UNIFIED_KEYS.revoked)).status).toBe('Error');
	});

	it('fails an Account key before any request, naming both prefixes', async () => {
		const result = await test(sandbox().credentials.account.unrestricted);
		expect(result.message).toMatch(/"key_live_".*"key_test_"/);
		expect(sandbox().requests()).toHaveLength(0);
	});
});
