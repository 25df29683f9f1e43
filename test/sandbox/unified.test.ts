import { setTimeout as delay } from 'node:timers/promises';

import { TEST_NUMBERS, UNIFIED_DEFAULT_FROM, UNIFIED_KEYS } from '../../sandbox';
import { controlApi, http, unifiedApi, useSandbox } from '../support/sandbox';

const sandbox = useSandbox({ frozenClock: true });
const live = () => unifiedApi(sandbox(), UNIFIED_KEYS.live);
const test = () => unifiedApi(sandbox(), UNIFIED_KEYS.test);

const voiceData = { to: TEST_NUMBERS.customer, message: 'Remind the customer about tomorrow.' };
const smsData = { to: TEST_NUMBERS.customer, message: 'Your code is 1234' };
const emailData = { to: 'someone@example.com', subject: 'Hello', html: '<p>Hi</p>' };
const aiData = { messages: [{ role: 'user', content: 'What are your opening hours?' }] };

function expectError(
	res: { status: number; body: Record<string, unknown> },
	status: number,
	code: string,
	service: unknown,
	action: unknown,
) {
	expect(res.status).toBe(status);
	expect(res.body).toMatchObject({ success: false, code, service, action });
	expect(res.body.error).toBe(res.body.message);
	expect(typeof res.body.message).toBe('string');
	expect(Number.isNaN(Date.parse(res.body.timestamp as string))).toBe(false);
}

describe('Unified API: services and billing', () => {
	it('voice make_call: result, 7p per estimated minute charged at creation', async () => {
		const res = await live()('voice', 'make_call', voiceData);
		expect(res.status).toBe(200);
		expect(res.body).toEqual({
			success: true,
			result: {
				call_id: expect.any(String),
				status: 'initiated',
				to: TEST_NUMBERS.customer,
				from: UNIFIED_DEFAULT_FROM.voice,
				estimated_duration: 60,
				voice: 'Voice.Amy',
			},
			billing: {
				cost: 7,
				costFormatted: '7p',
				service: 'voice',
				action: 'make_call',
				isLive: true,
				creditsRemaining: 1993,
				creditsRemainingFormatted: '£19.93',
			},
			timestamp: sandbox().control.clock().now,
			nodeVersion: process.version,
		});
		const longer = await live()('voice', 'make_call', {
			...voiceData,
			message: 'x'.repeat(501),
			from: '+441632960001',
		});
		expect(longer.body.result).toMatchObject({ estimated_duration: 120, from: '+441632960001' });
		expect(longer.body.billing).toMatchObject({ cost: 14, creditsRemaining: 1979 });
	});

	it('voice accepts each of the five voices and refuses others', async () => {
		for (const voice of [
			'Voice.Amy',
			'Voice.Brian',
			'Voice.Emma',
			'Voice.Joanna',
			'Voice.Matthew',
		]) {
			const res = await test()('voice', 'make_call', { ...voiceData, voice });
			expect(res.body.result.voice).toBe(voice);
		}
		expectError(
			await test()('voice', 'make_call', { ...voiceData, voice: 'Voice.Hal' }),
			400,
			'INVALID_PARAMETERS',
			'voice',
			'make_call',
		);
	});

	it('sms send: 3p per 160-character message', async () => {
		const res = await live()('sms', 'send', smsData);
		expect(res.body.result).toEqual({
			message_id: expect.any(String),
			status: 'sent',
			to: TEST_NUMBERS.customer,
			from: UNIFIED_DEFAULT_FROM.sms,
			segments: 1,
		});
		expect(res.body.billing).toMatchObject({
			cost: 3,
			costFormatted: '3p',
			service: 'sms',
			action: 'send',
			creditsRemaining: 1997,
		});
		const two = await live()('sms', 'send', {
			...smsData,
			message: 'y'.repeat(161),
			from: '+447700900001',
		});
		expect(two.body.result).toMatchObject({ segments: 2, from: '+447700900001' });
		expect(two.body.billing.cost).toBe(6);
	});

	it('email send: 0.15p, fractional credits kept exactly', async () => {
		const first = await live()('email', 'send', { ...emailData, from_name: 'Sandbox Trading' });
		expect(first.body.result).toEqual({
			message_id: expect.any(String),
			status: 'sent',
			to: 'someone@example.com',
			subject: 'Hello',
		});
		expect(first.body.billing).toMatchObject({
			cost: 0.15,
			costFormatted: '0.15p',
			creditsRemaining: 1999.85,
			creditsRemainingFormatted: '£19.9985',
		});
		for (let i = 0; i < 19; i += 1) await live()('email', 'send', emailData);
		expect(sandbox().control.balances().unifiedCreditsPence).toBe(1997);
	});

	it('ai chat: 15p, deterministic answers per messages and model', async () => {
		const first = await live()('ai', 'chat', aiData);
		expect(first.body.result).toEqual({
			response: expect.any(String),
			model: 'model-capable',
			tokens_used: expect.any(Number),
		});
		expect(first.body.result.response).toContain('What are your opening hours?');
		expect(first.body.billing).toMatchObject({
			cost: 15,
			costFormatted: '15p',
			service: 'ai',
			action: 'chat',
		});
		const again = await live()('ai', 'chat', aiData);
		expect(again.body.result).toEqual(first.body.result);
		const fast = await live()('ai', 'chat', { ...aiData, model: 'model-fast' });
		expect(fast.body.result.model).toBe('model-fast');
		expect(fast.body.result.response).not.toBe(first.body.result.response);
		const system = await live()('ai', 'chat', {
			messages: [{ role: 'system', content: 'Answer as a pirate.' }, ...aiData.messages],
		});
		expect(system.body.result.response).toContain('Answer as a pirate.');
		expect(system.body.result.tokens_used).toBeGreaterThan(first.body.result.tokens_used);
	});

	it('test keys never charge and say isLive false', async () => {
		sandbox().control.setBalances({ unifiedCreditsPence: 0 });
		for (const [service, action, data] of [
			['voice', 'make_call', voiceData],
			['sms', 'send', smsData],
			['email', 'send', emailData],
			['ai', 'chat', aiData],
		] as const) {
			const res = await test()(service, action, data);
			expect(res.status).toBe(200);
			expect(res.body.billing).toMatchObject({
				cost: 0,
				costFormatted: '0p',
				isLive: false,
				creditsRemaining: 0,
				creditsRemainingFormatted: '£0.00',
			});
		}
	});
});

describe('Unified API: errors', () => {
	it('MISSING_API_KEY (401) when api_key is absent or empty', async () => {
		expectError(
			await unifiedApi(sandbox(), undefined)('sms', 'send', smsData),
			401,
			'MISSING_API_KEY',
			'sms',
			'send',
		);
		expectError(
			await unifiedApi(sandbox(), '')('sms', 'send', smsData),
			401,
			'MISSING_API_KEY',
			'sms',
			'send',
		);
	});

	it('INVALID_API_KEY (401) for a wrong prefix, an unknown or revoked key, or a non-string', async () => {
		for (const key of [
			'acc_sbx_unrestricted_4f9c2a7e1b',
			'key_live_unknown_000',
			UNIFIED_KEYS.revoked,
		]) {
			expectError(
				await unifiedApi(sandbox(), key)('sms', 'send', smsData),
				401,
				'INVALID_API_KEY',
				'sms',
				'send',
			);
		}
		const numeric = await http('POST', sandbox().unifiedUrl, {
			json: { service: 'sms', action: 'send', data: smsData, api_key: 42 },
		});
		expectError(numeric, 401, 'INVALID_API_KEY', 'sms', 'send');
	});

	it('INSUFFICIENT_CREDITS (402) states balance and required amount, with topUpUrl, and charges nothing', async () => {
		sandbox().control.setBalances({ unifiedCreditsPence: 2 });
		const res = await live()('sms', 'send', smsData);
		expectError(res, 402, 'INSUFFICIENT_CREDITS', 'sms', 'send');
		expect(res.body.message).toContain('2p');
		expect(res.body.message).toContain('3p');
		expect(res.body.topUpUrl).toBe(`${sandbox().url}/_sandbox/top-up`);
		expect(sandbox().control.balances().unifiedCreditsPence).toBe(2);
		expect((await live()('email', 'send', emailData)).status).toBe(200);
		const topUp = await http('POST', res.body.topUpUrl, { json: { pence: 500 } });
		expect(topUp.body.balances.unifiedCreditsPence).toBe(501.85);
		expect((await live()('sms', 'send', smsData)).status).toBe(200);
	});

	it('SERVICE_UNAVAILABLE (503) per service, switched through control', async () => {
		sandbox().control.setServiceAvailable('ai', false);
		expectError(await live()('ai', 'chat', aiData), 503, 'SERVICE_UNAVAILABLE', 'ai', 'chat');
		expect((await live()('sms', 'send', smsData)).status).toBe(200);
		await controlApi(sandbox()).post('/settings', { services: { ai: true } });
		expect((await live()('ai', 'chat', aiData)).status).toBe(200);
	});

	it('INTERNAL_ERROR (500) and CARRIER_ERROR (502) by injection, optionally per service, without effect', async () => {
		sandbox().control.injectFailure({ status: 500, service: 'email' });
		expect((await live()('sms', 'send', smsData)).status).toBe(200);
		const credits = sandbox().control.balances().unifiedCreditsPence;
		expectError(await live()('email', 'send', emailData), 500, 'INTERNAL_ERROR', 'email', 'send');
		expect(sandbox().control.balances().unifiedCreditsPence).toBe(credits);
		sandbox().control.injectFailure({ status: 502, api: 'unified', carrierCode: '4711' });
		const carrier = await live()('sms', 'send', smsData);
		expectError(carrier, 502, 'CARRIER_ERROR', 'sms', 'send');
		expect(carrier.body.carrierCode).toBe('4711');
		sandbox().control.injectFailure({ status: 503, api: 'unified' });
		expectError(await live()('sms', 'send', smsData), 503, 'SERVICE_UNAVAILABLE', 'sms', 'send');
		sandbox().control.injectFailure({ status: 429, api: 'unified', retryAfterSeconds: 3 });
		const limited = await live()('sms', 'send', smsData);
		expectError(limited, 429, 'RATE_LIMITED', 'sms', 'send');
		expect(limited.headers['retry-after']).toBe('3');
	});

	it('INVALID_PARAMETERS (400) for the envelope and each service, checked after auth and before any charge', async () => {
		const cases: [string, string, unknown][] = [
			['fax', 'send', {}],
			['sms', 'make_call', smsData],
			['sms', 'send', 'not an object'],
			['voice', 'make_call', { message: 'hi' }],
			['voice', 'make_call', { ...voiceData, to: '07700900123' }],
			['voice', 'make_call', { ...voiceData, message: '' }],
			['voice', 'make_call', { ...voiceData, message: 'x'.repeat(4001) }],
			['voice', 'make_call', { ...voiceData, from: 'me' }],
			['voice', 'make_call', { ...voiceData, webhook_url: 'not a url' }],
			['sms', 'send', { to: TEST_NUMBERS.customer }],
			['sms', 'send', { ...smsData, message: 'x'.repeat(1601) }],
			['sms', 'send', { ...smsData, from: 7 }],
			['email', 'send', { ...emailData, to: 'nobody' }],
			['email', 'send', { ...emailData, subject: '' }],
			['email', 'send', { ...emailData, html: undefined }],
			['ai', 'chat', { messages: [] }],
			['ai', 'chat', { messages: [{ role: 'system', content: 'Only instructions' }] }],
			['ai', 'chat', { messages: [{ role: 'robot', content: 'x' }] }],
			['ai', 'chat', { messages: [{ role: 'user', content: 5 }] }],
			['ai', 'chat', { ...aiData, model: 'model-huge' }],
		];
		for (const [service, action, data] of cases) {
			const res = await live()(service, action, data);
			expect({ service, data, code: res.body.code, status: res.status }).toEqual({
				service,
				data,
				code: 'INVALID_PARAMETERS',
				status: 400,
			});
		}
		expect(sandbox().control.balances().unifiedCreditsPence).toBe(2000);
		expectError(
			await unifiedApi(sandbox(), 'key_live_nope')('voice', 'make_call', {}),
			401,
			'INVALID_API_KEY',
			'voice',
			'make_call',
		);
		const broken = await http('POST', sandbox().unifiedUrl, { raw: '{"service":' });
		expectError(broken, 400, 'INVALID_PARAMETERS', null, null);
	});

	it('answers a wrong verb with 405 METHOD_NOT_ALLOWED', async () => {
		const res = await http('GET', sandbox().unifiedUrl);
		expectError(res, 405, 'METHOD_NOT_ALLOWED', null, null);
		expect(res.headers.allow).toBe('POST');
	});

	it('can answer every error except 429 with HTTP 200 (unifiedErrorStatus always200)', async () => {
		await controlApi(sandbox()).post('/settings', {
			unifiedErrorStatus: 'always200',
			unifiedLimits: { sms: { perMinute: 1 } },
		});
		sandbox().control.setBalances({ unifiedCreditsPence: 0 });
		expectError(
			await unifiedApi(sandbox(), undefined)('sms', 'send', smsData),
			200,
			'MISSING_API_KEY',
			'sms',
			'send',
		);
		expectError(
			await unifiedApi(sandbox(), 'key_test_x')('sms', 'send', smsData),
			200,
			'INVALID_API_KEY',
			'sms',
			'send',
		);
		expectError(
			await live()('voice', 'make_call', voiceData),
			200,
			'INSUFFICIENT_CREDITS',
			'voice',
			'make_call',
		);
		expectError(
			await live()('voice', 'make_call', {}),
			200,
			'INVALID_PARAMETERS',
			'voice',
			'make_call',
		);
		await live()('sms', 'send', smsData);
		expectError(await live()('sms', 'send', smsData), 429, 'RATE_LIMITED', 'sms', 'send');
		sandbox().control.setUnifiedErrorStatus('http');
		expectError(
			await live()('voice', 'make_call', voiceData),
			402,
			'INSUFFICIENT_CREDITS',
			'voice',
			'make_call',
		);
	});
});

describe('Unified API: rate limits and concurrency', () => {
	it('allows 10 voice calls a minute per key, then 429 with Retry-After; other services and keys are separate', async () => {
		for (let i = 0; i < 10; i += 1)
			expect((await test()('voice', 'make_call', voiceData)).status).toBe(200);
		const limited = await test()('voice', 'make_call', voiceData);
		expectError(limited, 429, 'RATE_LIMITED', 'voice', 'make_call');
		expect(limited.headers['retry-after']).toBe('60');
		expect((await test()('sms', 'send', smsData)).status).toBe(200);
		expect((await live()('voice', 'make_call', voiceData)).status).toBe(200);
		await sandbox().control.advanceClock(60);
		expect((await test()('voice', 'make_call', voiceData)).status).toBe(200);
	});

	it('runs the per-service limits on a shorter window when rateWindowSeconds is set', async () => {
		sandbox().control.updateSettings({
			rateWindowSeconds: 6,
			unifiedLimits: { voice: { perMinute: 1 } },
		});
		expect((await test()('voice', 'make_call', voiceData)).status).toBe(200);
		const limited = await test()('voice', 'make_call', voiceData);
		expectError(limited, 429, 'RATE_LIMITED', 'voice', 'make_call');
		expect(limited.headers['retry-after']).toBe('6');
		await sandbox().control.advanceClock(6);
		expect((await test()('voice', 'make_call', voiceData)).status).toBe(200);
	});

	it('answers a 429 without Retry-After, and counts with a token bucket, as settings ask', async () => {
		sandbox().control.updateSettings({
			retryAfter: false,
			rateAlgorithm: 'tokenBucket',
			unifiedLimits: { voice: { perMinute: 2 } },
		});
		expect((await test()('voice', 'make_call', voiceData)).status).toBe(200);
		expect((await test()('voice', 'make_call', voiceData)).status).toBe(200);
		const limited = await test()('voice', 'make_call', voiceData);
		expectError(limited, 429, 'RATE_LIMITED', 'voice', 'make_call');
		expect(limited.headers['retry-after']).toBeUndefined();
		expect(limited.body.message).not.toMatch(/retry after/);
		// One token comes back every 30 s.
		await sandbox().control.advanceClock(30);
		expect((await test()('voice', 'make_call', voiceData)).status).toBe(200);
		expect((await test()('voice', 'make_call', voiceData)).status).toBe(429);
	});

	it.each([
		['sms', 100, 'send', smsData],
		['email', 200, 'send', emailData],
		['ai', 30, 'chat', aiData],
	] as const)(
		'%s allows its documented %d requests a minute',
		async (service, perMinute, action, data) => {
			expect(sandbox().control.settings().unifiedLimits[service].perMinute).toBe(perMinute);
			for (let i = 0; i < perMinute; i += 1) {
				const res = await test()(service, action, data);
				if (res.status !== 200) throw new Error(`request ${i} got ${res.status}`);
			}
			expect((await test()(service, action, data)).status).toBe(429);
		},
	);

	it('uses the documented concurrency caps by default and lets control change rate and cap', async () => {
		expect(sandbox().control.settings().unifiedLimits).toEqual({
			voice: { perMinute: 10, concurrent: 5 },
			sms: { perMinute: 100, concurrent: 50 },
			email: { perMinute: 200, concurrent: 100 },
			ai: { perMinute: 30, concurrent: 10 },
		});
		sandbox().control.setUnifiedLimit('email', { perMinute: 2 });
		await test()('email', 'send', emailData);
		await sandbox().control.advanceClock(15);
		await test()('email', 'send', emailData);
		const limited = await test()('email', 'send', emailData);
		expect(limited.status).toBe(429);
		expect(limited.headers['retry-after']).toBe('45');
	});

	it('refuses requests above the concurrency cap while others are held by latencyMs', async () => {
		sandbox().control.updateSettings({
			latencyMs: 1500,
			unifiedLimits: { voice: { concurrent: 1 } },
		});
		const first = test()('voice', 'make_call', voiceData);
		for (let i = 0; i < 200 && Object.keys(sandbox().control.inFlight()).length === 0; i += 1)
			await delay(5);
		expect(sandbox().control.inFlight()).toEqual({ 'key_test****9a4c:voice': 1 });
		const second = await test()('voice', 'make_call', voiceData);
		expectError(second, 429, 'RATE_LIMITED', 'voice', 'make_call');
		expect(second.body.message).toContain('concurrent');
		expect(second.headers['retry-after']).toBe('1');
		expect((await first).status).toBe(200);
		expect(sandbox().control.inFlight()).toEqual({});
	});
});
