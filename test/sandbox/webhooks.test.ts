import { createHmac, timingSafeEqual } from 'node:crypto';

import {
	TEST_EMAILS,
	TEST_NUMBERS,
	UNIFIED_KEYS,
	UNIFIED_USER_ID,
	WEBHOOK_SECRET,
	startSandbox,
} from '../../sandbox';
import { type Received, startStubServer, useStubServer } from '../support/stubServer';
import { controlApi, unifiedApi, useSandbox } from '../support/sandbox';

const sandbox = useSandbox({ frozenClock: true });
const live = () => unifiedApi(sandbox(), UNIFIED_KEYS.live);
/** What the webhooks reach: answers 200. */
const receiver = useStubServer({ reply: { status: 200 } });

/** What a receiver does: HMAC-SHA256 over the raw bytes, hex, constant-time comparison. */
function verify(webhook: Received, secret = WEBHOOK_SECRET): boolean {
	const expected = Buffer.from(createHmac('sha256', secret).update(webhook.rawBody).digest('hex'));
	const received = Buffer.from(String(webhook.headers['x-signature'] ?? ''));
	return received.length === expected.length && timingSafeEqual(received, expected);
}

const payload = (webhook: Received) => JSON.parse(webhook.rawBody.toString('utf8'));

describe('call events to the call webhook_url', () => {
	it('sends a signed call.completed when the call ends', async () => {
		const res = await live()('voice', 'make_call', {
			to: TEST_NUMBERS.customer,
			message: 'Hello',
			webhook_url: receiver().url,
		});
		const start = sandbox().control.clock().now;
		await sandbox().control.advanceClock(69);
		expect(receiver().received).toHaveLength(0);
		await sandbox().control.advanceClock(1);
		expect(receiver().received).toHaveLength(1);
		const [webhook] = receiver().received;
		expect(verify(webhook)).toBe(true);
		expect(webhook.headers['content-type']).toBe('application/json');
		expect(webhook.headers['x-webhook-event']).toBe('call.completed');
		expect(payload(webhook)).toEqual({
			event: 'call.completed',
			timestamp: new Date(Date.parse(start) + 70_000).toISOString(),
			data: {
				call_id: res.body.result.call_id,
				to: TEST_NUMBERS.customer,
				from: res.body.result.from,
				status: 'completed',
				duration: 60,
				cost: 7,
				user_id: UNIFIED_USER_ID,
				api_key: 'key_live****5b2d',
			},
		});
		expect(webhook.rawBody.toString()).not.toContain(UNIFIED_KEYS.live);
	});

	it('sends call.failed for the failing test number, with the test key cost of 0', async () => {
		await unifiedApi(sandbox(), UNIFIED_KEYS.test)('voice', 'make_call', {
			to: TEST_NUMBERS.deliveryFails,
			message: 'Hello',
			webhook_url: receiver().url,
		});
		await sandbox().control.advanceClock(10);
		const body = payload(receiver().received[0]);
		expect(body.event).toBe('call.failed');
		expect(body.data).toMatchObject({
			status: 'failed',
			duration: 0,
			cost: 0,
			api_key: 'key_test****9a4c',
		});
		expect(typeof body.data.reason).toBe('string');
		expect(verify(receiver().received[0])).toBe(true);
	});

	it('sends nothing for a call without webhook_url', async () => {
		await live()('voice', 'make_call', { to: TEST_NUMBERS.customer, message: 'Hello' });
		await sandbox().control.advanceClock(600);
		expect(receiver().received).toHaveLength(0);
		expect(sandbox().control.deliveries()).toEqual([]);
	});

	it('moves a call along with the advance and outcome controls, delivering before they return', async () => {
		const res = await live()('voice', 'make_call', {
			to: TEST_NUMBERS.customer,
			message: 'Hello',
			webhook_url: receiver().url,
		});
		const id = res.body.result.call_id;
		const control = controlApi(sandbox());
		const advanced = await control.post('/advance', { id });
		expect(advanced.body.item).toMatchObject({
			id,
			kind: 'unifiedCall',
			status: 'in-progress',
			final: false,
		});
		const chosen = await control.post('/outcome', { id, outcome: 'failed' });
		expect(chosen.status).toBe(409);
		expect(chosen.body.error).toBe('conflict');
		const done = await control.post('/advance', { id, untilFinal: true });
		expect(done.body.item).toMatchObject({ status: 'completed', final: true });
		expect(payload(receiver().received[0]).data.duration).toBe(0);
	});
});

describe('sms and email events to the URL set through control', () => {
	beforeEach(() => sandbox().control.setEventsWebhookUrl(receiver().url));

	it('sends sms.delivered and sms.failed', async () => {
		const ok = await live()('sms', 'send', { to: TEST_NUMBERS.customer, message: 'Hi' });
		await live()('sms', 'send', { to: TEST_NUMBERS.deliveryFails, message: 'Hi' });
		await sandbox().control.advanceClock(10);
		const events = receiver().received.map(payload);
		expect(events.map((e) => e.event)).toEqual(['sms.delivered', 'sms.failed']);
		expect(events[0].data).toEqual({
			message_id: ok.body.result.message_id,
			to: TEST_NUMBERS.customer,
			from: ok.body.result.from,
			segments: 1,
			status: 'delivered',
			cost: 3,
			user_id: UNIFIED_USER_ID,
			api_key: 'key_live****5b2d',
		});
		expect(events[1].data).toMatchObject({ status: 'failed', reason: expect.any(String) });
		expect(receiver().received.every((w) => verify(w))).toBe(true);
	});

	it('sends email.delivered and email.bounced', async () => {
		const ok = await live()('email', 'send', {
			to: TEST_EMAILS.delivers,
			subject: 'S',
			html: '<p>x</p>',
		});
		await live()('email', 'send', { to: TEST_EMAILS.bounces, subject: 'S', html: '<p>x</p>' });
		await sandbox().control.advanceClock(10);
		const events = receiver().received.map(payload);
		expect(events.map((e) => e.event)).toEqual(['email.delivered', 'email.bounced']);
		expect(events[0].data).toEqual({
			message_id: ok.body.result.message_id,
			to: TEST_EMAILS.delivers,
			subject: 'S',
			status: 'delivered',
			cost: 0.15,
			user_id: UNIFIED_USER_ID,
			api_key: 'key_live****5b2d',
		});
		expect(receiver().received.every((w) => verify(w))).toBe(true);
	});

	it('lets control choose an SMS outcome', async () => {
		const res = await live()('sms', 'send', { to: TEST_NUMBERS.customer, message: 'Hi' });
		await sandbox().control.setOutcome(res.body.result.message_id, 'failed');
		await sandbox().control.advance(res.body.result.message_id);
		expect(payload(receiver().received[0]).event).toBe('sms.failed');
	});

	it('sends nothing when no URL is set', async () => {
		sandbox().control.setEventsWebhookUrl(null);
		await live()('sms', 'send', { to: TEST_NUMBERS.customer, message: 'Hi' });
		await sandbox().control.advanceClock(60);
		expect(receiver().received).toHaveLength(0);
	});
});

describe('deliveries log', () => {
	it('records each delivery with the exact body, signature and receiver status, over HTTP too', async () => {
		sandbox().control.setEventsWebhookUrl(receiver().url);
		await live()('email', 'send', { to: TEST_EMAILS.delivers, subject: 'S', html: 'x' });
		await sandbox().control.advanceClock(10);
		const [delivery] = (await controlApi(sandbox()).get('/webhooks')).body.deliveries;
		expect(delivery).toMatchObject({
			event: 'email.delivered',
			url: receiver().url,
			responseStatus: 200,
			error: null,
		});
		expect(delivery.body).toBe(receiver().received[0].rawBody.toString('utf8'));
		expect(delivery.signature).toBe(receiver().received[0].headers['x-signature']);
		expect(delivery.headers['x-webhook-id']).toBe(delivery.id);
	});

	it('records a receiver error status and an unreachable receiver', async () => {
		const failing = await startStubServer();
		failing.reply({ status: 500 });
		try {
			sandbox().control.setEventsWebhookUrl(failing.url);
			await live()('sms', 'send', { to: TEST_NUMBERS.customer, message: 'Hi' });
			await sandbox().control.advanceClock(10);
			sandbox().control.setEventsWebhookUrl('http://127.0.0.1:1/unreachable');
			await live()('sms', 'send', { to: TEST_NUMBERS.customer, message: 'Hi' });
			await sandbox().control.advanceClock(10);
			const deliveries = (await controlApi(sandbox()).post('/webhooks/flush')).body.deliveries;
			expect(deliveries[0]).toMatchObject({ responseStatus: 500, error: null });
			expect(deliveries[1]).toMatchObject({ responseStatus: null, error: expect.any(String) });
		} finally {
			await failing.close();
		}
	});

	it('signs with the webhookSecret option when given', async () => {
		const other = await startSandbox({
			port: 0,
			frozenClock: true,
			webhookSecret: 'whsec_custom_secret_123',
		});
		try {
			expect(other.credentials.webhookSecret).toBe('whsec_custom_secret_123');
			other.control.setEventsWebhookUrl(receiver().url);
			await unifiedApi(other, UNIFIED_KEYS.test)('sms', 'send', {
				to: TEST_NUMBERS.customer,
				message: 'Hi',
			});
			await other.control.advanceClock(10);
			expect(verify(receiver().received[0], 'whsec_custom_secret_123')).toBe(true);
			expect(verify(receiver().received[0])).toBe(false);
		} finally {
			await other.stop();
		}
	});
});
