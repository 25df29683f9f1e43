import {
	ACCOUNT_KEYS,
	CARRIER_REJECT_CODE,
	PHONE_DOC_IDS,
	TEST_NUMBERS,
	startSandbox,
} from '../../sandbox';
import { accountApi, controlApi, http, useSandbox } from '../support/sandbox';

const sandbox = useSandbox({ frozenClock: true });
const api = () => accountApi(sandbox(), ACCOUNT_KEYS.unrestricted);
const main = PHONE_DOC_IDS.main;
const peer = TEST_NUMBERS.customer;

const send = (body: Record<string, unknown>) =>
	api().post('/v1/sms', { phoneDocId: main, to: peer, message: 'Hello', ...body });
const at = (iso: string, seconds: number) =>
	new Date(Date.parse(iso) + seconds * 1000).toISOString();
const ids = (res: { body: { messages: { messageId: string }[] } }) =>
	res.body.messages.map((m) => m.messageId);

describe('POST /v1/sms', () => {
	it('sends from the paired SMS sender and returns the send result', async () => {
		const res = await send({});
		expect(res.status).toBe(201);
		expect(res.body).toEqual({
			success: true,
			messageId: expect.any(String),
			status: 'sent',
			from: '+447700900001',
			to: peer,
			phoneDocId: main,
			segmentsUsed: 1,
		});
	});

	it('counts 160-character segments and charges one SMS credit per segment', async () => {
		const cases: [number, number][] = [
			[1, 1],
			[160, 1],
			[161, 2],
			[320, 2],
			[321, 3],
			[1600, 10],
		];
		let credits = 1200;
		for (const [length, segments] of cases) {
			const res = await send({ message: 'x'.repeat(length) });
			expect(res.body.segmentsUsed).toBe(segments);
			credits -= segments;
		}
		const { smsCredits } = sandbox().control.balances();
		expect(smsCredits.subscription + smsCredits.topUp).toBe(credits);
	});

	it('counts characters as code points, not UTF-16 units', async () => {
		const res = await send({ message: '😀'.repeat(160) });
		expect(res.status).toBe(201);
		expect(res.body.segmentsUsed).toBe(1);
	});

	it('gives 400 message_too_long above 1600 characters', async () => {
		const res = await send({ message: 'x'.repeat(1601) });
		expect(res.status).toBe(400);
		expect(res.body).toMatchObject({
			success: false,
			error: 'message_too_long',
			length: 1601,
			maxLength: 1600,
		});
	});

	it('gives every documented error for the target number and fields', async () => {
		const cases: [Record<string, unknown>, number, string][] = [
			[{ phoneDocId: undefined }, 400, 'missing_field'],
			[{ to: undefined }, 400, 'missing_field'],
			[{ message: '' }, 400, 'missing_field'],
			[{ message: 42 }, 400, 'missing_field'],
			[{ to: '447700900123' }, 400, 'invalid_number'],
			[{ to: '+44 7700 900123' }, 400, 'invalid_number'],
			[{ phoneDocId: PHONE_DOC_IDS.noSms }, 400, 'phoneDoc_sms_not_configured'],
			[{ phoneDocId: PHONE_DOC_IDS.smsDisabled }, 400, 'phoneDoc_sms_disabled'],
			[{ phoneDocId: 'pdoc_nope' }, 404, 'phoneDoc_not_found'],
		];
		for (const [body, status, error] of cases) {
			const res = await send(body);
			expect({ body, status: res.status, error: res.body.error }).toEqual({ body, status, error });
		}
		const restricted = await accountApi(sandbox(), ACCOUNT_KEYS.restricted).post('/v1/sms', {
			phoneDocId: PHONE_DOC_IDS.smsDisabled,
			to: peer,
			message: 'x',
		});
		expect(restricted.status).toBe(403);
		expect(restricted.body.error).toBe('phoneDocId_not_permitted');
	});

	it('gives 402 insufficient_sms_credits when the credits cannot cover the segments', async () => {
		sandbox().control.setBalances({ smsCredits: { subscription: 0, topUp: 1 } });
		const long = await send({ message: 'x'.repeat(200) });
		expect(long.status).toBe(402);
		expect(long.body).toMatchObject({
			error: 'insufficient_sms_credits',
			availableCredits: 1,
			requiredCredits: 2,
		});
		expect((await send({})).status).toBe(201);
		expect(sandbox().control.balances().smsCredits).toEqual({ subscription: 0, topUp: 0 });
		const empty = await send({});
		expect(empty.status).toBe(402);
		expect((await api().get('/v1/sms')).status).toBe(200);
	});

	it('draws the subscription bucket first', async () => {
		sandbox().control.setBalances({ smsCredits: { subscription: 1, topUp: 5 } });
		await send({ message: 'x'.repeat(300) });
		expect(sandbox().control.balances().smsCredits).toEqual({ subscription: 0, topUp: 4 });
	});

	it('gives 502 carrier_rejected with the carrier code, without charging or recording', async () => {
		const before = sandbox().control.balances().smsCredits;
		const res = await send({ to: TEST_NUMBERS.carrierRejects });
		expect(res.status).toBe(502);
		expect(res.body).toMatchObject({ error: 'carrier_rejected', carrierCode: CARRIER_REJECT_CODE });
		expect(sandbox().control.balances().smsCredits).toEqual(before);
		expect((await api().get('/v1/sms', { peer: TEST_NUMBERS.carrierRejects })).body.count).toBe(0);
	});

	it('records the message with source account-api, sent then delivered after 10 sandbox seconds', async () => {
		const { messageId } = (await send({ message: 'Your table is ready' })).body;
		const read = async () => (await api().get('/v1/sms', { messageId })).body.messages[0];
		const sent = await read();
		expect(sent).toMatchObject({
			messageId,
			direction: 'sent',
			fromNumber: '+447700900001',
			toNumber: peer,
			body: 'Your table is ready',
			status: 'sent',
			source: 'account-api',
			businessName: 'Sandbox Trading - Main line',
			segments: 1,
		});
		expect(typeof sent.id).toBe('string');
		expect(sent.sentAt).toBe(sent.createdAt);
		await sandbox().control.advanceClock(9);
		expect((await read()).status).toBe('sent');
		await sandbox().control.advanceClock(1);
		const delivered = await read();
		expect(delivered.status).toBe('delivered');
		expect(delivered.deliveredAt).toBe(at(sent.sentAt, 10));
	});

	it('ends messages to the delivery-failure number as failed', async () => {
		const { messageId } = (await send({ to: TEST_NUMBERS.deliveryFails })).body;
		await sandbox().control.advanceClock(10);
		const res = await api().get('/v1/sms', { messageId });
		expect(res.body.messages[0]).toMatchObject({ status: 'failed', deliveredAt: null });
	});
});

describe('GET /v1/sms', () => {
	it('returns both directions by default with the envelope fields', async () => {
		const res = await api().get('/v1/sms');
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({ success: true, count: 3 });
		expect(new Set(res.body.messages.map((m: { direction: string }) => m.direction))).toEqual(
			new Set(['sent', 'received']),
		);
	});

	it('looks up one message by messageId, overriding every other filter', async () => {
		const { messageId } = (await send({})).body;
		const res = await api().get('/v1/sms', {
			messageId,
			direction: 'received',
			peer: '+447700900999',
			limit: 1,
		});
		expect(ids(res)).toEqual([messageId]);
		expect(res.body.count).toBe(1);
		expect(res.body.nextSince).toBe(res.body.messages[0].sentAt);
	});

	it('gives 404 message_not_found for an unknown messageId, or one outside a restricted key', async () => {
		const res = await api().get('/v1/sms', { messageId: 'SMnope' });
		expect(res.status).toBe(404);
		expect(res.body).toMatchObject({ success: false, error: 'message_not_found' });
		const [elsewhere] = sandbox().control.injectInboundSms({
			phoneDocId: PHONE_DOC_IDS.smsDisabled,
		});
		const restricted = accountApi(sandbox(), ACCOUNT_KEYS.restricted);
		expect(
			(await restricted.get('/v1/sms', { messageId: elsewhere.messageId as string })).status,
		).toBe(404);
		expect((await api().get('/v1/sms', { messageId: elsewhere.messageId as string })).status).toBe(
			200,
		);
	});

	it('filters by direction, phoneDocId and peer (conversation view)', async () => {
		await send({ message: 'to customer' });
		sandbox().control.injectInboundSms({ from: peer, body: 'from customer' });
		sandbox().control.injectInboundSms({ from: '+447700900888', body: 'from someone else' });
		const received = await api().get('/v1/sms', { direction: 'received' });
		expect(
			received.body.messages.every((m: { direction: string }) => m.direction === 'received'),
		).toBe(true);
		expect(received.body.count).toBe(4);
		const sent = await api().get('/v1/sms', { direction: 'sent' });
		expect(sent.body.count).toBe(2);
		const conversation = await api().get('/v1/sms', { peer });
		expect(conversation.body.messages.map((m: { body: string }) => m.body).sort()).toEqual([
			'from customer',
			'to customer',
		]);
		const receivedFromPeer = await api().get('/v1/sms', { peer, direction: 'received' });
		expect(receivedFromPeer.body.messages.map((m: { body: string }) => m.body)).toEqual([
			'from customer',
		]);
		const byNumber = await api().get('/v1/sms', { phoneDocId: main });
		expect(byNumber.body.count).toBe(6);
		expect((await api().get('/v1/sms', { phoneDocId: PHONE_DOC_IDS.noSms })).body.count).toBe(0);
	});

	it('rejects a malformed direction, peer, since or limit and an unknown phoneDocId', async () => {
		expect((await api().get('/v1/sms', { direction: 'both' })).body).toMatchObject({
			error: 'invalid_field',
			field: 'direction',
		});
		expect((await api().get('/v1/sms', { limit: 0 })).body).toMatchObject({
			error: 'invalid_field',
			field: 'limit',
		});
		expect((await api().get('/v1/sms', { since: 'not a date' })).body).toMatchObject({
			error: 'invalid_field',
			field: 'since',
		});
		expect((await api().get('/v1/sms', { phoneDocId: 'pdoc_nope' })).body.error).toBe(
			'phoneDoc_not_found',
		);
		const unencoded = await http('GET', `${sandbox().url}/v1/sms?peer=+447700900123`, {
			headers: { 'x-api-key': ACCOUNT_KEYS.unrestricted },
		});
		expect(unencoded.status).toBe(400);
		expect(unencoded.body.error).toBe('invalid_number');
		expect(unencoded.body.message).toContain('%2B');
	});

	it('treats since as an inclusive lower bound on sentAt', async () => {
		const base = sandbox().control.clock().now;
		sandbox().control.injectInboundSms({ sentAts: [at(base, -1), base, at(base, 1)] });
		const res = await api().get('/v1/sms', { direction: 'received', since: base });
		expect(res.body.messages.map((m: { sentAt: string }) => m.sentAt).sort()).toEqual([
			base,
			at(base, 1),
		]);
	});

	it('keeps a restricted key to its own numbers', async () => {
		const res = await accountApi(sandbox(), ACCOUNT_KEYS.restricted).get('/v1/sms');
		expect(res.body.messages.every((m: { phoneDocId: string }) => m.phoneDocId === main)).toBe(
			true,
		);
	});
});

describe('SMS order, limit and nextSince', () => {
	async function burst(count: number, sentAt: string, intervalSeconds = 1) {
		return sandbox().control.injectInboundSms({ count, sentAt, intervalSeconds, body: 'burst' });
	}

	it('newestFirst (default): limit takes the newest, nextSince is the oldest returned', async () => {
		const base = at(sandbox().control.clock().now, -100);
		const messages = await burst(5, base);
		const res = await api().get('/v1/sms', { direction: 'received', since: base, limit: 3 });
		expect(ids(res)).toEqual([messages[4], messages[3], messages[2]].map((m) => m.messageId));
		expect(res.body.nextSince).toBe(at(base, 2));
		// Passing nextSince back as the inclusive lower bound returns the same newest page.
		const again = await api().get('/v1/sms', {
			direction: 'received',
			since: res.body.nextSince,
			limit: 3,
		});
		expect(ids(again)).toEqual(ids(res));
	});

	it('oldestFirst: limit takes the oldest, nextSince is the first (oldest) returned', async () => {
		sandbox().control.setSmsOrder('oldestFirst');
		const base = at(sandbox().control.clock().now, -100);
		const messages = await burst(5, base);
		const res = await api().get('/v1/sms', { direction: 'received', since: base, limit: 3 });
		expect(ids(res)).toEqual(messages.slice(0, 3).map((m) => m.messageId));
		expect(res.body.nextSince).toBe(base);
		// Forward paging uses the newest sentAt returned, inclusive, dropping ids already seen.
		const next = await api().get('/v1/sms', {
			direction: 'received',
			since: at(base, 2),
			limit: 3,
		});
		expect(ids(next)).toEqual(messages.slice(2, 5).map((m) => m.messageId));
	});

	it('switches order over HTTP control and with the smsOrder option', async () => {
		await controlApi(sandbox()).post('/settings', { smsOrder: 'oldestFirst' });
		const bodies = (res: { body: { messages: { body: string }[] } }) =>
			res.body.messages.map((m) => m.body);
		const oldestFirst = ['Hi, is my order ready?', 'Yes, it is ready for collection.', 'Thanks!'];
		expect(bodies(await api().get('/v1/sms'))).toEqual(oldestFirst);
		sandbox().reset();
		expect(bodies(await api().get('/v1/sms'))).toEqual([...oldestFirst].reverse());
		const other = await startSandbox({ port: 0, smsOrder: 'oldestFirst' });
		try {
			expect(bodies(await accountApi(other, ACCOUNT_KEYS.unrestricted).get('/v1/sms'))).toEqual(
				oldestFirst,
			);
			other.reset();
			expect(other.control.settings().smsOrder).toBe('oldestFirst');
		} finally {
			await other.stop();
		}
	});

	it('orders equal sentAt values by arrival, in both orders', async () => {
		const sentAt = sandbox().control.clock().now;
		const messages = sandbox().control.injectInboundSms({ count: 3, sentAt });
		const newest = await api().get('/v1/sms', { since: sentAt });
		expect(ids(newest)).toEqual(messages.map((m) => m.messageId).reverse());
		sandbox().control.setSmsOrder('oldestFirst');
		const oldest = await api().get('/v1/sms', { since: sentAt });
		expect(ids(oldest)).toEqual(messages.map((m) => m.messageId));
		expect(oldest.body.nextSince).toBe(sentAt);
	});

	it('places a late arrival by its sentAt, before messages that arrived earlier', async () => {
		const now = sandbox().control.clock().now;
		const [early] = sandbox().control.injectInboundSms({ sentAt: now, body: 'on time' });
		await sandbox().control.advanceClock(30);
		const [late] = sandbox().control.injectInboundSms({ sentAt: at(now, -60), body: 'late' });
		expect(late.createdAt).toBe(at(now, 30));
		const res = await api().get('/v1/sms', { direction: 'received', since: at(now, -60) });
		expect(ids(res)).toEqual([early.messageId, late.messageId]);
		expect(res.body.nextSince).toBe(at(now, -60));
	});

	it('returns nextSince null when nothing matches', async () => {
		const res = await api().get('/v1/sms', { since: at(sandbox().control.clock().now, 3600) });
		expect(res.body).toEqual({ success: true, messages: [], count: 0, nextSince: null });
	});

	it('pages with limit: default 50, above 200 clamped to 200', async () => {
		sandbox().control.injectInboundSms({ count: 250 });
		expect((await api().get('/v1/sms')).body.count).toBe(50);
		expect((await api().get('/v1/sms', { limit: 1000 })).body.count).toBe(200);
		expect((await api().get('/v1/sms', { limit: 10 })).body.count).toBe(10);
	});
});
