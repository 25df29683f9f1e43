import {
	ACCOUNT_KEYS,
	AGENT_PHONE,
	CARRIER_REJECT_CODE,
	PHONE_DOC_IDS,
	TEST_NUMBERS,
} from '../../sandbox';
import { accountApi, useSandbox } from '../support/sandbox';

const sandbox = useSandbox({ frozenClock: true });
const api = () => accountApi(sandbox(), ACCOUNT_KEYS.unrestricted);
const main = PHONE_DOC_IDS.main;

async function createManual(body: Record<string, unknown> = {}) {
	const res = await api().post('/v1/calls', {
		phoneDocId: main,
		to: TEST_NUMBERS.customer,
		...body,
	});
	expect(res.status).toBe(201);
	return res.body;
}

async function manualCall(callId: string) {
	const res = await api().get('/v1/calls', { phoneDocId: main, callId });
	expect(res.status).toBe(200);
	expect(res.body.count).toBe(1);
	return res.body.calls[0];
}

const advance = (seconds: number) => sandbox().control.advanceClock(seconds);

describe('POST /v1/calls (manual)', () => {
	it('creates a call ringing the agent, with the documented result fields', async () => {
		const body = await createManual();
		expect(body).toEqual({
			success: true,
			callId: expect.any(String),
			callSid: expect.any(String),
			status: 'ringing-agent',
			phoneDocId: main,
			from: '+441632960001',
			to: TEST_NUMBERS.customer,
			agentPhone: AGENT_PHONE,
			availableMinutesBefore: 600,
		});
	});

	it('uses an explicit agentPhone over the key default', async () => {
		const body = await createManual({ agentPhone: '+447700900777', mode: 'manual' });
		expect(body.agentPhone).toBe('+447700900777');
	});

	const outcomes: [
		string,
		Record<string, string>,
		{ at: number; status: string }[],
		Record<string, unknown>,
	][] = [
		[
			'normal conversation',
			{},
			[
				{ at: 4, status: 'ringing-agent' },
				{ at: 5, status: 'ringing-customer' },
				{ at: 11, status: 'in-progress' },
				{ at: 191, status: 'completed' },
			],
			{ durationSeconds: 186, billedMinutes: 4, endReason: 'completed', recording: true },
		],
		[
			'agent never answers',
			{ agentPhone: TEST_NUMBERS.agentNeverAnswers },
			[
				{ at: 24, status: 'ringing-agent' },
				{ at: 25, status: 'no-answer-agent' },
			],
			{ durationSeconds: 0, billedMinutes: 0, endReason: 'agent-no-answer', recording: false },
		],
		[
			'customer busy',
			{ to: TEST_NUMBERS.customerBusy },
			[
				{ at: 5, status: 'ringing-customer' },
				{ at: 9, status: 'busy' },
			],
			{ durationSeconds: 4, billedMinutes: 1, endReason: 'customer-busy', recording: false },
		],
		[
			'customer does not answer',
			{ to: TEST_NUMBERS.customerNoAnswer },
			[
				{ at: 34, status: 'ringing-customer' },
				{ at: 35, status: 'completed' },
			],
			{ durationSeconds: 30, billedMinutes: 1, endReason: 'customer-no-answer', recording: false },
		],
		[
			'customer hangs up early',
			{ to: TEST_NUMBERS.customerHangsUpEarly },
			[
				{ at: 11, status: 'in-progress' },
				{ at: 25, status: 'completed' },
			],
			{ durationSeconds: 20, billedMinutes: 1, endReason: 'hung-up-early', recording: true },
		],
		[
			'voicemail',
			{ to: TEST_NUMBERS.customerVoicemail },
			[
				{ at: 25, status: 'in-progress' },
				{ at: 70, status: 'completed' },
			],
			{ durationSeconds: 65, billedMinutes: 2, endReason: 'voicemail', recording: true },
		],
	];

	it.each(outcomes)('follows the state table: %s', async (_name, body, steps, end) => {
		const created = await createManual(body);
		let elapsed = 0;
		for (const step of steps) {
			await advance(step.at - elapsed);
			elapsed = step.at;
			expect((await manualCall(created.callId)).status).toBe(step.status);
		}
		const call = await manualCall(created.callId);
		expect(call.durationSeconds).toBe(end.durationSeconds);
		expect(call.billedMinutes).toBe(end.billedMinutes);
		expect(call.endReason).toBe(end.endReason);
		expect(call.recordingUrl === null).toBe(!end.recording);
		expect(call.endedAt).toBe(new Date(Date.parse(call.startedAt) + elapsed * 1000).toISOString());
		expect(sandbox().control.balances().minutes).toEqual({
			subscription: 500 - (end.billedMinutes as number),
			topUp: 100,
		});
	});

	it('bills from the moment the agent answered, in whole minutes rounded up', async () => {
		const created = await createManual();
		await advance(5);
		const ringing = await manualCall(created.callId);
		expect(ringing.agentAnsweredAt).toBe(
			new Date(Date.parse(ringing.startedAt) + 5000).toISOString(),
		);
		expect(ringing.endedAt).toBeNull();
		expect(ringing.durationSeconds).toBeNull();
		expect(ringing.billedMinutes).toBeNull();
		expect(sandbox().control.balances().minutes.subscription).toBe(500);
		await advance(200);
		const ended = await manualCall(created.callId);
		expect(ended.customerAnsweredAt).toBe(
			new Date(Date.parse(ringing.startedAt) + 11000).toISOString(),
		);
		expect(Date.parse(ended.endedAt) - Date.parse(ended.agentAnsweredAt)).toBe(186_000);
		expect(ended.billedMinutes).toBe(Math.ceil(186 / 60));
	});

	it('serves the recording of a bridged call and none for an unanswered one', async () => {
		const answered = await createManual();
		const unanswered = await createManual({ agentPhone: TEST_NUMBERS.agentNeverAnswers });
		await advance(300);
		const call = await manualCall(answered.callId);
		const recording = await fetch(call.recordingUrl);
		expect(recording.status).toBe(200);
		expect(await recording.json()).toMatchObject({ callId: answered.callId, durationSeconds: 186 });
		const none = await fetch(`${sandbox().url}/_sandbox/recordings/${unanswered.callId}`);
		expect(none.status).toBe(404);
	});

	it('checks fields: missing_field, invalid_mode, invalid_number, phoneDoc_not_found', async () => {
		const cases: [Record<string, unknown>, number, string][] = [
			[{ to: TEST_NUMBERS.customer }, 400, 'missing_field'],
			[{ phoneDocId: main }, 400, 'missing_field'],
			[{ phoneDocId: '', to: TEST_NUMBERS.customer }, 400, 'missing_field'],
			[{ phoneDocId: main, to: TEST_NUMBERS.customer, mode: 'robot' }, 400, 'invalid_mode'],
			[{ phoneDocId: main, to: '07700900123' }, 400, 'invalid_number'],
			[{ phoneDocId: main, to: '+0447700900123' }, 400, 'invalid_number'],
			[{ phoneDocId: main, to: TEST_NUMBERS.customer, agentPhone: '12345' }, 400, 'invalid_number'],
			[{ phoneDocId: 'pdoc_nope', to: TEST_NUMBERS.customer }, 404, 'phoneDoc_not_found'],
		];
		for (const [body, status, error] of cases) {
			const res = await api().post('/v1/calls', body);
			expect({ body, status: res.status, error: res.body.error }).toEqual({ body, status, error });
			expect(res.body.success).toBe(false);
		}
	});

	it('names the missing field', async () => {
		const res = await api().post('/v1/calls', { phoneDocId: main });
		expect(res.body).toMatchObject({ error: 'missing_field', field: 'to' });
	});

	it('gives missing_agent_phone when neither agentPhone nor a key default exists', async () => {
		const res = await accountApi(sandbox(), ACCOUNT_KEYS.restricted).post('/v1/calls', {
			phoneDocId: main,
			to: TEST_NUMBERS.customer,
		});
		expect(res.status).toBe(400);
		expect(res.body.error).toBe('missing_agent_phone');
	});

	it('gives agent_phone_is_tc_number for any of the account service numbers', async () => {
		for (const agentPhone of ['+441632960001', '+441632960002', '+447700900003']) {
			const res = await api().post('/v1/calls', {
				phoneDocId: main,
				to: TEST_NUMBERS.customer,
				agentPhone,
			});
			expect(res.status).toBe(400);
			expect(res.body.error).toBe('agent_phone_is_tc_number');
		}
	});

	it('gives 402 insufficient_minutes with zero minutes, and places calls from the top-up bucket alone', async () => {
		sandbox().control.setBalances({ minutes: { subscription: 0, topUp: 0 } });
		const res = await api().post('/v1/calls', { phoneDocId: main, to: TEST_NUMBERS.customer });
		expect(res.status).toBe(402);
		expect(res.body.error).toBe('insufficient_minutes');
		expect((await api().get('/v1/calls')).body.count).toBe(1);
		sandbox().control.setBalances({ minutes: { topUp: 3 } });
		expect((await createManual()).availableMinutesBefore).toBe(3);
	});

	it('draws the subscription bucket first, then top-up, and never below zero', async () => {
		sandbox().control.setBalances({ minutes: { subscription: 2, topUp: 1 } });
		const first = await createManual();
		await advance(300);
		expect((await manualCall(first.callId)).billedMinutes).toBe(4);
		expect(sandbox().control.balances().minutes).toEqual({ subscription: 0, topUp: 0 });
		sandbox().control.setBalances({ minutes: { subscription: 1, topUp: 5 } });
		await createManual({ to: TEST_NUMBERS.customerVoicemail });
		await advance(300);
		expect(sandbox().control.balances().minutes).toEqual({ subscription: 0, topUp: 4 });
	});

	it('gives 502 carrier_rejected with the carrier code for the carrier-reject test number, without charging', async () => {
		const res = await api().post('/v1/calls', {
			phoneDocId: main,
			to: TEST_NUMBERS.carrierRejects,
		});
		expect(res.status).toBe(502);
		expect(res.body).toMatchObject({
			success: false,
			error: 'carrier_rejected',
			carrierCode: CARRIER_REJECT_CODE,
		});
		const ai = await api().post('/v1/calls', {
			phoneDocId: main,
			to: TEST_NUMBERS.carrierRejects,
			mode: 'ai',
		});
		expect(ai.status).toBe(502);
		expect((await api().get('/v1/calls')).body.count).toBe(1);
	});
});

describe('POST /v1/calls (ai)', () => {
	async function createAi(body: Record<string, unknown> = {}) {
		return api().post('/v1/calls', {
			phoneDocId: main,
			to: TEST_NUMBERS.customer,
			mode: 'ai',
			...body,
		});
	}

	it('returns the AI creation result before the conversation, then completes and bills AI minutes', async () => {
		const res = await createAi({ customerName: 'Jo', aiInstructions: 'Be brief.' });
		expect(res.status).toBe(201);
		expect(res.body).toEqual({
			success: true,
			mode: 'ai',
			callId: res.body.callSid,
			callSid: expect.any(String),
			status: 'initiated',
			phoneDocId: main,
			from: '+441632960001',
			to: TEST_NUMBERS.customer,
			voiceUsed: { name: 'Amy', provider: 'sandbox-tts' },
			availableAIMinutesBefore: 90,
		});
		const read = async () =>
			(await api().get('/v1/calls', { mode: 'ai', phoneDocId: main, callId: res.body.callSid }))
				.body.calls[0];
		expect((await read()).status).toBe('initiated');
		await advance(10);
		expect((await read()).status).toBe('in-progress');
		await advance(80);
		const done = await read();
		expect(done).toMatchObject({
			id: res.body.callSid,
			callSid: res.body.callSid,
			mode: 'ai',
			direction: 'outbound',
			from: '+441632960001',
			to: TEST_NUMBERS.customer,
			customerName: 'Jo',
			callPurpose: 'general',
			status: 'completed',
			voiceName: 'Amy',
			phoneDocId: main,
			durationSeconds: 80,
			billedAiMinutes: 2,
		});
		expect(typeof done.createdAt).toBe('string');
		expect(sandbox().control.balances().aiMinutes).toEqual({ subscription: 58, topUp: 30 });
		expect(sandbox().control.balances().minutes).toEqual({ subscription: 500, topUp: 100 });
	});

	it('uses the voice configured on the number', async () => {
		const res = await createAi({ phoneDocId: PHONE_DOC_IDS.noSms });
		expect(res.body.voiceUsed.name).toBe('Brian');
	});

	it('needs no agent phone', async () => {
		const res = await accountApi(sandbox(), ACCOUNT_KEYS.restricted).post('/v1/calls', {
			phoneDocId: main,
			to: TEST_NUMBERS.customer,
			mode: 'ai',
		});
		expect(res.status).toBe(201);
	});

	it('accepts a custom purpose with a reason and refuses one without, or an unknown purpose', async () => {
		const ok = await createAi({
			callPurpose: 'custom',
			customCallReason: 'Confirm the delivery slot',
		});
		expect(ok.status).toBe(201);
		const missing = await createAi({ callPurpose: 'custom' });
		expect(missing.status).toBe(400);
		expect(missing.body).toMatchObject({ error: 'missing_field', field: 'customCallReason' });
		const unknown = await createAi({ callPurpose: 'sales' });
		expect(unknown.status).toBe(400);
		expect(unknown.body).toMatchObject({ error: 'invalid_field', field: 'callPurpose' });
	});

	it('gives 402 insufficient_ai_minutes with zero AI minutes, before any call is placed', async () => {
		sandbox().control.setBalances({ aiMinutes: { subscription: 0, topUp: 0 } });
		const res = await createAi();
		expect(res.status).toBe(402);
		expect(res.body.error).toBe('insufficient_ai_minutes');
		expect((await api().get('/v1/calls', { mode: 'ai', phoneDocId: main })).body.count).toBe(1);
	});

	it('stops AI minutes at zero when a call costs more than is left', async () => {
		sandbox().control.setBalances({ aiMinutes: { subscription: 0, topUp: 1 } });
		await createAi();
		await advance(120);
		expect(sandbox().control.balances().aiMinutes).toEqual({ subscription: 0, topUp: 0 });
	});
});

describe('GET /v1/calls', () => {
	it('returns the manual history by default, most recent first', async () => {
		const first = await createManual();
		await advance(1);
		const second = await createManual({ to: TEST_NUMBERS.customerBusy });
		const res = await api().get('/v1/calls');
		expect(res.body.success).toBe(true);
		expect(res.body.mode).toBe('manual');
		expect(res.body.calls.map((c: { callId: string }) => c.callId).slice(0, 2)).toEqual([
			second.callId,
			first.callId,
		]);
		expect(res.body.count).toBe(3);
		const record = res.body.calls[0];
		for (const field of [
			'agentPhone',
			'durationSeconds',
			'startedAt',
			'agentAnsweredAt',
			'endedAt',
			'recordingUrl',
			'status',
		]) {
			expect(record).toHaveProperty(field);
		}
	});

	it('filters by phoneDocId, peer, since and status', async () => {
		await createManual({ to: TEST_NUMBERS.customerBusy });
		await advance(60);
		const since = sandbox().control.clock().now;
		const other = await createManual({ phoneDocId: PHONE_DOC_IDS.noSms });
		const all = await api().get('/v1/calls');
		expect(all.body.count).toBe(3);
		expect(
			(await api().get('/v1/calls', { phoneDocId: PHONE_DOC_IDS.noSms })).body.calls.map(
				(c: { callId: string }) => c.callId,
			),
		).toEqual([other.callId]);
		const byPeer = await api().get('/v1/calls', { peer: TEST_NUMBERS.customerBusy });
		expect(byPeer.body.calls.map((c: { to: string }) => c.to)).toEqual([TEST_NUMBERS.customerBusy]);
		expect((await api().get('/v1/calls', { since })).body.count).toBe(1);
		expect(
			(await api().get('/v1/calls', { status: 'busy' })).body.calls.map(
				(c: { to: string }) => c.to,
			),
		).toEqual([TEST_NUMBERS.customerBusy]);
		expect((await api().get('/v1/calls', { status: 'ringing-agent' })).body.count).toBe(1);
	});

	it('looks up a single manual call by callId or callSid on its phoneDocId', async () => {
		const created = await createManual();
		for (const callId of [created.callId, created.callSid]) {
			const res = await api().get('/v1/calls', { phoneDocId: main, callId });
			expect(res.body.calls.map((c: { callId: string }) => c.callId)).toEqual([created.callId]);
		}
	});

	it('gives 404 call_not_found for an unknown callId or one on another number', async () => {
		const created = await createManual();
		const queries: Record<string, string>[] = [
			{ phoneDocId: main, callId: 'call_nope' },
			{ phoneDocId: PHONE_DOC_IDS.noSms, callId: created.callId },
			{ mode: 'ai', phoneDocId: main, callId: created.callSid },
		];
		for (const query of queries) {
			const res = await api().get('/v1/calls', query);
			expect(res.status).toBe(404);
			expect(res.body).toMatchObject({ success: false, error: 'call_not_found' });
		}
	});

	it('requires phoneDocId for mode=ai and for callId lookups (400 missing_field)', async () => {
		const queries: Record<string, string>[] = [{ mode: 'ai' }, { callId: 'call_sbx_000001' }];
		for (const query of queries) {
			const res = await api().get('/v1/calls', query);
			expect(res.status).toBe(400);
			expect(res.body).toMatchObject({ error: 'missing_field', field: 'phoneDocId' });
		}
	});

	it('rejects an unknown mode, a malformed peer or since, and an unknown phoneDocId', async () => {
		expect((await api().get('/v1/calls', { mode: 'robot' })).body.error).toBe('invalid_mode');
		expect((await api().get('/v1/calls', { peer: '07700900123' })).body.error).toBe(
			'invalid_number',
		);
		expect((await api().get('/v1/calls', { since: 'yesterday' })).body.error).toBe('invalid_field');
		const missing = await api().get('/v1/calls', { phoneDocId: 'pdoc_nope' });
		expect(missing.status).toBe(404);
		expect(missing.body.error).toBe('phoneDoc_not_found');
	});

	it('returns the AI history separately', async () => {
		const res = await api().get('/v1/calls', { mode: 'ai', phoneDocId: main });
		expect(res.body).toMatchObject({ success: true, mode: 'ai', count: 1 });
		expect(res.body.calls[0]).toMatchObject({
			mode: 'ai',
			customerName: 'Sam Example',
			status: 'completed',
		});
	});

	it('pages with limit: default 50, above 200 clamped to 200, invalid refused', async () => {
		for (let i = 0; i < 205; i += 1) await createManual();
		expect((await api().get('/v1/calls')).body.count).toBe(50);
		expect((await api().get('/v1/calls', { limit: 7 })).body.count).toBe(7);
		expect((await api().get('/v1/calls', { limit: 500 })).body.count).toBe(200);
		for (const limit of ['0', '-1', 'ten', '2.5']) {
			const res = await api().get('/v1/calls', { limit });
			expect(res.status).toBe(400);
			expect(res.body).toMatchObject({ error: 'invalid_field', field: 'limit' });
		}
	});
});
