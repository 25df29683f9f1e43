import { setTimeout as delay } from 'node:timers/promises';

import {
	ACCOUNT_KEYS,
	PHONE_DOC_IDS,
	TEST_NUMBERS,
	UNIFIED_KEYS,
	WEBHOOK_SECRET,
	startSandbox,
} from '../../sandbox';
import { accountApi, controlApi, http, unifiedApi, useSandbox } from '../support/sandbox';

const sandbox = useSandbox({ frozenClock: true });
const control = () => controlApi(sandbox());
const api = () => accountApi(sandbox(), ACCOUNT_KEYS.unrestricted);
const at = (iso: string, seconds: number) =>
	new Date(Date.parse(iso) + seconds * 1000).toISOString();

async function expectControlError(
	promise: Promise<{ status: number; body: { success: boolean; error: string } }>,
	status: number,
) {
	const res = await promise;
	expect(res.status).toBe(status);
	expect(res.body.success).toBe(false);
	expect(res.body.error).toBe(
		{ 400: 'invalid_request', 404: 'not_found', 405: 'method_not_allowed', 409: 'conflict' }[
			status
		],
	);
}

describe('control index, state and routing', () => {
	it('GET /_sandbox lists credentials, URLs, test values and every endpoint', async () => {
		const res = await control().get('');
		expect(res.status).toBe(200);
		expect(res.body.accountBaseUrl).toBe(sandbox().accountBaseUrl);
		expect(res.body.unifiedUrl).toBe(sandbox().unifiedUrl);
		expect(res.body.controlUrl).toBe(sandbox().controlUrl);
		expect(res.body.accountKeys.unrestricted.key).toBe(ACCOUNT_KEYS.unrestricted);
		expect(res.body.unifiedKeys).toEqual({ live: UNIFIED_KEYS.live, test: UNIFIED_KEYS.test });
		expect(res.body.webhookSecret).toBe(WEBHOOK_SECRET);
		expect(res.body.webhookSignatureHeader).toBe('x-signature');
		expect(res.body.testNumbers).toEqual(TEST_NUMBERS);
		const endpoints = res.body.endpoints.map(
			(e: { method: string; path: string }) => `${e.method} ${e.path}`,
		);
		expect(endpoints).toEqual(
			expect.arrayContaining([
				'POST /_sandbox/reset',
				'POST /_sandbox/sms/inbound',
				'POST /_sandbox/advance',
				'POST /_sandbox/outcome',
				'POST /_sandbox/clock/advance',
				'POST /_sandbox/balances',
				'POST /_sandbox/settings',
				'POST /_sandbox/failures',
				'GET /_sandbox/requests',
				'GET /_sandbox/webhooks',
			]),
		);
	});

	it('exposes the credentials and URLs on the Sandbox object', () => {
		const s = sandbox();
		expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		expect(s.accountBaseUrl).toBe(s.url);
		expect(s.unifiedUrl).toBe(`${s.url}/unified`);
		expect(s.credentials).toEqual({
			account: ACCOUNT_KEYS,
			unified: { live: UNIFIED_KEYS.live, test: UNIFIED_KEYS.test },
			webhookSecret: WEBHOOK_SECRET,
		});
	});

	it('GET /_sandbox/state summarises the sandbox', async () => {
		const res = await control().get('/state');
		expect(res.body).toMatchObject({
			success: true,
			accountSuspended: false,
			counts: { manualCalls: 1, aiCalls: 1, sms: 3, unifiedCalls: 0, requests: 0 },
		});
		expect(res.body.balances.minutes).toEqual({ subscription: 500, topUp: 100 });
		expect(res.body.accountKeys).toHaveLength(5);
	});

	it('answers unknown control paths with 404, wrong verbs with 405, bad JSON with 400', async () => {
		await expectControlError(control().get('/nothing'), 404);
		await expectControlError(control().get('/reset'), 405);
		await expectControlError(
			http('POST', `${sandbox().url}/_sandbox/balances`, { raw: '{oops' }),
			400,
		);
		await expectControlError(
			http('POST', `${sandbox().url}/_sandbox/balances`, { raw: '[1]' }),
			400,
		);
	});
});

describe('unknown or misspelt fields', () => {
	interface Endpoint {
		method: string;
		path: string;
		fields: string[];
		query: string[];
	}

	/**
	 * For every control endpoint: a request that would otherwise be valid (and, for POSTs,
	 * change something), plus a misspelt field. Keyed by "METHOD /path" as the index lists it.
	 */
	const misspelt: Record<
		string,
		(id: string) => { body?: Record<string, unknown>; query?: string; unknown: string[] }
	> = {
		'GET /_sandbox': () => ({ body: { verbose: true }, unknown: ['verbose'] }),
		'GET /_sandbox/state': () => ({ body: { detail: 'all' }, unknown: ['detail'] }),
		'POST /_sandbox/reset': () => ({ body: { hard: true }, unknown: ['hard'] }),
		'GET /_sandbox/clock': () => ({ body: { tz: 'UTC' }, unknown: ['tz'] }),
		'POST /_sandbox/clock/advance': () => ({
			body: { seconds: 600, secnds: 600 },
			unknown: ['secnds'],
		}),
		'POST /_sandbox/clock/skew': () => ({ body: { seconds: -3, secs: -3 }, unknown: ['secs'] }),
		'POST /_sandbox/clock/freeze': () => ({ body: { frozen: true }, unknown: ['frozen'] }),
		'POST /_sandbox/clock/unfreeze': () => ({ body: { frozen: false }, unknown: ['frozen'] }),
		'POST /_sandbox/sms/inbound': () => ({
			body: { body: 'hi', text: 'hi', cuont: 2 },
			unknown: ['text', 'cuont'],
		}),
		'GET /_sandbox/items/:id': () => ({ body: { id: 'x' }, unknown: ['id'] }),
		'POST /_sandbox/advance': (id) => ({ body: { id, untilfinal: true }, unknown: ['untilfinal'] }),
		'POST /_sandbox/outcome': (id) => ({
			body: { id, outcome: 'busy', outcom: 'busy' },
			unknown: ['outcom'],
		}),
		'GET /_sandbox/unified': () => ({ body: { kind: 'sms' }, unknown: ['kind'] }),
		'GET /_sandbox/balances': () => ({ body: { minutes: 1 }, unknown: ['minutes'] }),
		'POST /_sandbox/balances': () => ({
			body: { minutes: { subscription: 1 }, smsCredit: { topUp: 1 } },
			unknown: ['smsCredit'],
		}),
		'GET /_sandbox/top-up': () => ({ body: { pence: 500 }, unknown: ['pence'] }),
		'POST /_sandbox/top-up': () => ({ body: { pence: 500, pennies: 500 }, unknown: ['pennies'] }),
		'POST /_sandbox/account': () => ({
			body: { suspended: true, suspend: true },
			unknown: ['suspend'],
		}),
		'GET /_sandbox/settings': () => ({ body: { smsOrder: 'oldestFirst' }, unknown: ['smsOrder'] }),
		'POST /_sandbox/settings': () => ({
			body: { latencyMs: 5, smsorder: 'oldestFirst' },
			unknown: ['smsorder'],
		}),
		'GET /_sandbox/failures': () => ({ body: { status: 500 }, unknown: ['status'] }),
		'POST /_sandbox/failures': () => ({ body: { status: 500, cout: 3 }, unknown: ['cout'] }),
		'DELETE /_sandbox/failures': () => ({ body: { all: true }, unknown: ['all'] }),
		'GET /_sandbox/requests': () => ({ query: 'api=account&limt=1', unknown: ['limt'] }),
		'DELETE /_sandbox/requests': () => ({ body: { before: 3 }, unknown: ['before'] }),
		'GET /_sandbox/webhooks': () => ({ body: { event: 'sms.delivered' }, unknown: ['event'] }),
		'POST /_sandbox/webhooks/flush': () => ({ body: { timeoutMs: 10 }, unknown: ['timeoutMs'] }),
		'GET /_sandbox/recordings/:id': () => ({ body: { format: 'mp3' }, unknown: ['format'] }),
	};

	/** Everything a control request could change, read in-process (reads change nothing). */
	async function everything(id: string) {
		const s = sandbox();
		// offsetSeconds is sandbox time minus real time: with the clock frozen it drifts by itself.
		const { clock, ...snapshot } = await s.control.snapshot();
		const { offsetSeconds: _drifting, ...frozenClock } = clock as ReturnType<
			typeof s.control.clock
		>;
		return {
			snapshot: { ...snapshot, clock: frozenClock },
			item: await s.control.get(id),
			unified: await s.control.unifiedRecords(),
			requests: s.control.requests(),
			deliveries: s.control.deliveries(),
		};
	}

	/** A state unlike the seeded one, so that a reset, a top-up or an unfreeze would show. */
	async function changedState(): Promise<string> {
		const { callId } = (
			await api().post('/v1/calls', { phoneDocId: PHONE_DOC_IDS.main, to: TEST_NUMBERS.customer })
		).body;
		await unifiedApi(sandbox(), UNIFIED_KEYS.live)('email', 'send', {
			to: 'a@example.com',
			subject: 's',
			html: 'h',
		});
		sandbox().control.setBalances({ minutes: { subscription: 7 }, unifiedCreditsPence: 1234 });
		sandbox().control.injectFailure({ status: 500, path: '/v1/nowhere' });
		await sandbox().control.advanceClock(20);
		return callId;
	}

	async function endpoints(): Promise<Endpoint[]> {
		return (await control().get('')).body.endpoints;
	}

	it('has a misspelt request below for every endpoint the index lists', async () => {
		const listed = (await endpoints()).map((e) => `${e.method} ${e.path}`);
		expect(listed.sort()).toEqual(Object.keys(misspelt).sort());
	});

	it('refuses a misspelt field on every endpoint, naming it and the accepted ones, and changes nothing', async () => {
		const id = await changedState();
		const before = await everything(id);
		for (const endpoint of await endpoints()) {
			const key = `${endpoint.method} ${endpoint.path}`;
			const { body, query, unknown } = misspelt[key](id);
			const url = `${sandbox().url}${endpoint.path.replace(':id', id)}${query ? `?${query}` : ''}`;
			const res = await http(endpoint.method, url, body === undefined ? {} : { json: body });
			const [noun, accepted] = query
				? ['query parameter', endpoint.query]
				: ['field', endpoint.fields];
			const expected =
				accepted.length === 0 ? `it takes no ${noun}s` : `expected ${accepted.join(', ')}`;
			expect({ key, status: res.status, body: res.body }).toEqual({
				key,
				status: 400,
				body: {
					success: false,
					error: 'invalid_request',
					message: `${key}: unknown ${noun}(s) ${unknown.join(', ')}; ${expected}.`,
				},
			});
			expect({ key, state: await everything(id) }).toEqual({ key, state: before });
		}
	});

	it('lists the accepted fields of each endpoint in the index', async () => {
		const byKey = Object.fromEntries((await endpoints()).map((e) => [`${e.method} ${e.path}`, e]));
		expect(byKey['POST /_sandbox/clock/advance']).toMatchObject({ fields: ['seconds'], query: [] });
		expect(byKey['POST /_sandbox/advance'].fields).toEqual(['id', 'untilFinal']);
		expect(byKey['POST /_sandbox/outcome'].fields).toEqual(['id', 'outcome']);
		expect(byKey['POST /_sandbox/top-up'].fields).toEqual(['pence']);
		expect(byKey['POST /_sandbox/account'].fields).toEqual(['suspended']);
		expect(byKey['POST /_sandbox/reset'].fields).toEqual([]);
		expect(byKey['POST /_sandbox/balances'].fields).toEqual([
			'minutes',
			'aiMinutes',
			'smsCredits',
			'unifiedCreditsPence',
		]);
		expect(byKey['GET /_sandbox/requests']).toMatchObject({
			fields: [],
			query: ['api', 'path', 'limit'],
		});
	});

	it('still accepts every declared field', async () => {
		const { callId: id } = (
			await api().post('/v1/calls', { phoneDocId: PHONE_DOC_IDS.main, to: TEST_NUMBERS.customer })
		).body;
		expect((await control().post('/outcome', { id, outcome: 'busy' })).status).toBe(200);
		expect((await control().post('/advance', { id, untilFinal: true })).body.item.status).toBe(
			'busy',
		);
		expect((await control().post('/clock/advance', { seconds: 1 })).status).toBe(200);
		expect((await control().post('/top-up', { pence: 500 })).status).toBe(200);
		expect((await control().post('/account', { suspended: false })).status).toBe(200);
		expect((await control().get('/requests?api=account&path=/v1/calls&limit=1')).body.count).toBe(
			1,
		);
		expect((await control().post('/reset', {})).status).toBe(200);
	});

	it('refuses the same in process, and a non-boolean untilFinal', async () => {
		const id = await changedState();
		await expect(
			sandbox().control.advance(id, { untilFinal: true, untilfinal: true } as never),
		).rejects.toThrow('advance options: unknown field(s) untilfinal; expected untilFinal.');
		await expect(sandbox().control.advance(id, { untilFinal: 'yes' } as never)).rejects.toThrow(
			'untilFinal must be true or false.',
		);
		await expectControlError(control().post('/advance', { id, untilFinal: 'yes' }), 400);
		expect(() =>
			sandbox().control.setBalances({ minutes: { subscription: 1 }, credits: 5 } as never),
		).toThrow(
			'balances: unknown field(s) credits; expected minutes, aiMinutes, smsCredits, unifiedCreditsPence.',
		);
		expect((await sandbox().control.get(id)).status).toBe('in-progress');
		expect(sandbox().control.balances().minutes.subscription).toBe(7);
	});

	it('refuses invalid request-log filters', async () => {
		await expectControlError(control().get('/requests?api=acount'), 400);
		await expectControlError(control().get('/requests?limit=lots'), 400);
		await expectControlError(control().get('/requests?limit=-1'), 400);
	});
});

describe('reset', () => {
	it('returns to the seeded state: data, balances, settings, limits, failures, logs, clock', async () => {
		await api().post('/v1/sms', {
			phoneDocId: PHONE_DOC_IDS.main,
			to: TEST_NUMBERS.customer,
			message: 'x',
		});
		await unifiedApi(sandbox(), UNIFIED_KEYS.live)('ai', 'chat', {
			messages: [{ role: 'user', content: 'q' }],
		});
		sandbox().control.setBalances({ minutes: { subscription: 1 } });
		sandbox().control.updateSettings({
			smsOrder: 'oldestFirst',
			latencyMs: 5,
			accountRequestsPerMinute: 1,
		});
		sandbox().control.injectFailure({ status: 500 });
		await sandbox().control.advanceClock(3600);
		const res = await control().post('/reset');
		expect(res.body).toEqual({ success: true, reset: true });
		const state = (await control().get('/state')).body;
		expect(state.clock.advancedSeconds).toBe(0);
		expect(Math.abs(state.clock.offsetSeconds)).toBeLessThan(5);
		expect(state.balances).toMatchObject({
			minutes: { subscription: 500, topUp: 100 },
			unifiedCreditsPence: 2000,
		});
		expect(state.settings).toMatchObject({
			smsOrder: 'newestFirst',
			latencyMs: 0,
			accountRequestsPerMinute: 600,
		});
		expect(state.failures).toEqual([]);
		expect(state.counts).toMatchObject({ sms: 3, requests: 0 });
		expect(sandbox().requests()).toEqual([]);
		expect((await api().get('/v1/numbers')).status).toBe(200);
	});
});

describe('clock', () => {
	it('fast-forwards by N seconds, refusing negative values', async () => {
		const before = (await control().get('/clock')).body.clock;
		expect(before.frozen).toBe(true);
		const after = (await control().post('/clock/advance', { seconds: 90 })).body.clock;
		expect(after.now).toBe(at(before.now, 90));
		expect(after.advancedSeconds).toBe(90);
		await expectControlError(control().post('/clock/advance', { seconds: -1 }), 400);
		await expectControlError(control().post('/clock/advance', {}), 400);
	});

	it("skews the clock either way (an API whose clock is off n8n's): every time it stamps, its own Date header included, until a reset", async () => {
		const before = (await control().get('/clock')).body.clock;
		const behind = (await control().post('/clock/skew', { seconds: -1.2 })).body.clock;
		expect(behind.now).toBe(at(before.now, -1.2));
		expect(behind.skewSeconds).toBe(-1.2);
		const ahead = (await control().post('/clock/skew', { seconds: 8 })).body.clock;
		expect(ahead.now).toBe(at(before.now, 8));
		const [sms] = sandbox().control.injectInboundSms({});
		expect(sms.sentAt).toBe(ahead.now);
		const answer = await api().get('/v1/numbers');
		expect(answer.headers.date).toBe(new Date(ahead.now).toUTCString());
		await expectControlError(control().post('/clock/skew', {}), 400);
		await expectControlError(control().post('/clock/skew', { seconds: 'soon' }), 400);
		await control().post('/reset');
		expect((await control().get('/clock')).body.clock.skewSeconds).toBe(0);
	});

	it('starts skewed when asked to, and stays so after a reset', async () => {
		const skewed = await startSandbox({ port: 0, frozenClock: true, clockSkewSeconds: -300 });
		try {
			expect(skewed.control.clock().skewSeconds).toBe(-300);
			skewed.reset();
			expect(skewed.control.clock().skewSeconds).toBe(-300);
		} finally {
			await skewed.stop();
		}
	});

	it('freezes and unfreezes', async () => {
		const thawed = (await control().post('/clock/unfreeze')).body.clock;
		expect(thawed.frozen).toBe(false);
		const frozen = (await control().post('/clock/freeze')).body.clock;
		expect(frozen.frozen).toBe(true);
		expect((await control().get('/clock')).body.clock.now).toBe(frozen.now);
	});

	it('runs on real time plus the offset when not frozen', async () => {
		const live = await startSandbox({ port: 0 });
		try {
			const start = Date.now();
			const view = await live.control.advanceClock(3600);
			expect(view.frozen).toBe(false);
			expect(view.advancedSeconds).toBe(3600);
			expect(view.offsetSeconds).toBeGreaterThan(3599);
			const nowMs = Date.parse(view.now);
			expect(nowMs).toBeGreaterThanOrEqual(start + 3_600_000);
			expect(nowMs).toBeLessThan(Date.now() + 3_600_000 + 1);
		} finally {
			await live.stop();
		}
	});
});

describe('inbound SMS', () => {
	it('injects one message to the main number from the seeded peer by default', async () => {
		const res = await control().post('/sms/inbound', { body: 'Is the shop open?' });
		expect(res.body.count).toBe(1);
		const [message] = res.body.messages;
		expect(message).toMatchObject({
			direction: 'received',
			fromNumber: TEST_NUMBERS.seededPeer,
			toNumber: '+447700900001',
			body: 'Is the shop open?',
			status: 'received',
			source: 'inbound',
			phoneDocId: PHONE_DOC_IDS.main,
			sentAt: sandbox().control.clock().now,
		});
		const inbox = await api().get('/v1/sms', { direction: 'received', since: message.sentAt });
		expect(inbox.body.messages.map((m: { messageId: string }) => m.messageId)).toEqual([
			message.messageId,
		]);
	});

	it('injects a burst with equal, spaced or explicit sentAt values', async () => {
		const now = sandbox().control.clock().now;
		const equal = (await control().post('/sms/inbound', { count: 4, from: TEST_NUMBERS.customer }))
			.body.messages;
		expect(equal.map((m: { sentAt: string }) => m.sentAt)).toEqual([now, now, now, now]);
		expect(equal.map((m: { body: string }) => m.body)).toEqual(
			[1, 2, 3, 4].map((i) => `Inbound message (${i}/4)`),
		);
		const spaced = (
			await control().post('/sms/inbound', { count: 3, sentAt: at(now, -30), intervalSeconds: 10 })
		).body.messages;
		expect(spaced.map((m: { sentAt: string }) => m.sentAt)).toEqual([
			at(now, -30),
			at(now, -20),
			at(now, -10),
		]);
		const explicit = (await control().post('/sms/inbound', { sentAts: [at(now, -600), now] })).body
			.messages;
		expect(explicit.map((m: { sentAt: string }) => m.sentAt)).toEqual([at(now, -600), now]);
		expect(explicit[0].createdAt).toBe(now);
	});

	it('delivers to a number whose sending is disabled, and refuses bad input', async () => {
		expect(
			(await control().post('/sms/inbound', { phoneDocId: PHONE_DOC_IDS.smsDisabled })).status,
		).toBe(200);
		await expectControlError(control().post('/sms/inbound', { phoneDocId: 'pdoc_nope' }), 404);
		await expectControlError(
			control().post('/sms/inbound', { phoneDocId: PHONE_DOC_IDS.noSms }),
			400,
		);
		await expectControlError(control().post('/sms/inbound', { from: '07700' }), 400);
		await expectControlError(control().post('/sms/inbound', { sentAt: 'soon' }), 400);
		await expectControlError(control().post('/sms/inbound', { count: 0 }), 400);
		await expectControlError(control().post('/sms/inbound', { count: 1001 }), 400);
		await expectControlError(control().post('/sms/inbound', { sentAts: [] }), 400);
		await expectControlError(control().post('/sms/inbound', { text: 'typo' }), 400);
	});
});

describe('advance and outcome', () => {
	async function manualCall(body: Record<string, unknown> = {}) {
		return (
			await api().post('/v1/calls', {
				phoneDocId: PHONE_DOC_IDS.main,
				to: TEST_NUMBERS.customer,
				...body,
			})
		).body;
	}

	it('moves a manual call to its next status, one step at a time, then refuses at the end', async () => {
		const { callId } = await manualCall();
		const statuses: string[] = [];
		for (let i = 0; i < 3; i += 1)
			statuses.push((await control().post('/advance', { id: callId })).body.item.status);
		expect(statuses).toEqual(['ringing-customer', 'in-progress', 'completed']);
		const item = (await control().get(`/items/${callId}`)).body.item;
		expect(item).toMatchObject({ kind: 'manualCall', final: true, outcome: 'normal' });
		expect(item.history.map((h: { status: string }) => h.status)).toEqual([
			'ringing-agent',
			'ringing-customer',
			'in-progress',
			'completed',
		]);
		expect(item.record).toMatchObject({ callId, durationSeconds: 0, billedMinutes: 0 });
		await expectControlError(control().post('/advance', { id: callId }), 409);
	});

	it('keeps later durations when a step is skipped', async () => {
		const { callId } = await manualCall();
		await sandbox().control.advance(callId);
		await sandbox().control.advanceClock(186);
		const call = (await api().get('/v1/calls', { phoneDocId: PHONE_DOC_IDS.main, callId })).body
			.calls[0];
		expect(call).toMatchObject({ status: 'completed', durationSeconds: 186, billedMinutes: 4 });
	});

	it('chooses the outcome of a live manual call while it is still possible', async () => {
		const busy = await manualCall();
		expect(
			(await control().post('/outcome', { id: busy.callId, outcome: 'busy' })).body.item.outcome,
		).toBe('busy');
		const done = (await control().post('/advance', { id: busy.callId, untilFinal: true })).body
			.item;
		expect(done.status).toBe('busy');
		const answered = await manualCall();
		await sandbox().control.advance(answered.callId);
		await expectControlError(
			control().post('/outcome', { id: answered.callId, outcome: 'agent-no-answer' }),
			409,
		);
		expect((await sandbox().control.setOutcome(answered.callId, 'voicemail')).outcome).toBe(
			'voicemail',
		);
		await expectControlError(
			control().post('/outcome', { id: answered.callId, outcome: 'exploded' }),
			400,
		);
	});

	it('moves an Account SMS to delivered, or chooses failed, and an AI call to completed', async () => {
		const send = () =>
			api().post('/v1/sms', {
				phoneDocId: PHONE_DOC_IDS.main,
				to: TEST_NUMBERS.customer,
				message: 'x',
			});
		const first = (await send()).body.messageId;
		expect((await sandbox().control.advance(first)).status).toBe('delivered');
		const second = (await send()).body.messageId;
		await sandbox().control.setOutcome(second, 'failed');
		expect((await sandbox().control.advance(second)).status).toBe('failed');
		const ai = (
			await api().post('/v1/calls', {
				phoneDocId: PHONE_DOC_IDS.main,
				to: TEST_NUMBERS.customer,
				mode: 'ai',
			})
		).body;
		const view = await sandbox().control.advance(ai.callSid, { untilFinal: true });
		expect(view).toMatchObject({ kind: 'aiCall', status: 'completed', final: true });
		expect(sandbox().control.balances().aiMinutes.subscription).toBe(60);
	});

	it('refuses unknown or missing ids, and outcomes for received SMS', async () => {
		await expectControlError(control().post('/advance', { id: 'nope' }), 404);
		await expectControlError(control().post('/advance', {}), 400);
		await expectControlError(control().get('/items/nope'), 404);
		const [inbound] = sandbox().control.injectInboundSms();
		await expectControlError(
			control().post('/outcome', { id: inbound.messageId, outcome: 'delivered' }),
			400,
		);
		await expectControlError(control().post('/advance', { id: inbound.messageId }), 409);
	});

	it('lists Unified records with their status', async () => {
		await unifiedApi(sandbox(), UNIFIED_KEYS.live)('email', 'send', {
			to: 'a@example.com',
			subject: 's',
			html: 'h',
		});
		const items = (await control().get('/unified')).body.items;
		expect(items).toHaveLength(1);
		expect(items[0]).toMatchObject({
			kind: 'unifiedEmail',
			status: 'sent',
			record: { to: 'a@example.com', cost: 0.15, apiKey: 'key_live****5b2d' },
		});
		expect(JSON.stringify(items)).not.toContain(UNIFIED_KEYS.live);
	});
});

describe('balances and top-up', () => {
	it('sets any bucket and the Unified credits, over HTTP', async () => {
		const res = await control().post('/balances', {
			minutes: { subscription: 1 },
			aiMinutes: { topUp: 0 },
			smsCredits: { subscription: 7, topUp: 3 },
			unifiedCreditsPence: 12.5,
		});
		expect(res.body.balances).toEqual({
			minutes: { subscription: 1, topUp: 100 },
			aiMinutes: { subscription: 60, topUp: 0 },
			smsCredits: { subscription: 7, topUp: 3 },
			unifiedCreditsPence: 12.5,
			unifiedCreditsFormatted: '£0.1250',
		});
		expect((await control().get('/balances')).body.balances.minutes).toEqual({
			subscription: 1,
			topUp: 100,
		});
	});

	it('refuses negative, fractional or unknown balances without changing anything', async () => {
		for (const patch of [
			{ minutes: { subscription: -1 } },
			{ minutes: { subscription: 1.5 } },
			{ minutes: 3 },
			{ minutes: { extra: 1 } },
			{ credits: 5 },
			{ minutes: { subscription: 1 }, unifiedCreditsPence: -2 },
		]) {
			await expectControlError(control().post('/balances', patch), 400);
		}
		expect(sandbox().control.balances().minutes).toEqual({ subscription: 500, topUp: 100 });
	});

	it('tops up Unified credits between 500 and 100,000', async () => {
		expect((await control().get('/top-up')).body.balances.unifiedCreditsPence).toBe(2000);
		expect(
			(await control().post('/top-up', { pence: 100_000 })).body.balances.unifiedCreditsPence,
		).toBe(102_000);
		await expectControlError(control().post('/top-up', { pence: 499 }), 400);
		await expectControlError(control().post('/top-up', { pence: 100_001 }), 400);
	});

	it('refuses a non-boolean suspension', async () => {
		await expectControlError(control().post('/account', { suspended: 'yes' }), 400);
	});
});

describe('settings', () => {
	it('reads and updates settings, including latency', async () => {
		const res = await control().post('/settings', {
			latencyMs: 25,
			eventsWebhookUrl: 'http://127.0.0.1:9/x',
		});
		expect(res.body.settings).toMatchObject({
			latencyMs: 25,
			eventsWebhookUrl: 'http://127.0.0.1:9/x',
		});
		expect((await control().get('/settings')).body.settings.latencyMs).toBe(25);
		const started = Date.now();
		expect((await api().get('/v1/numbers')).status).toBe(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(20);
	});

	it('refuses invalid settings as a whole', async () => {
		for (const patch of [
			{ smsOrder: 'random' },
			{ unifiedErrorStatus: 'never' },
			{ eventsWebhookUrl: 'ftp://x' },
			{ latencyMs: 60_001 },
			{ accountRequestsPerMinute: 0 },
			{ unifiedLimits: { fax: { perMinute: 1 } } },
			{ unifiedLimits: { sms: { perMinute: 0 } } },
			{ unifiedLimits: { sms: { burst: 1 } } },
			{ services: { sms: 'off' } },
			{ unlistedStatuses: 'yes' },
			{ smsorder: 'oldestFirst' },
			{ smsOrder: 'oldestFirst', latencyMs: -1 },
		]) {
			await expectControlError(control().post('/settings', patch), 400);
		}
		expect(sandbox().control.settings().smsOrder).toBe('newestFirst');
	});

	it('unlistedStatuses: calls and sent SMS made while it is on pass through statuses nobody listed, and end when they would have', async () => {
		expect(sandbox().control.settings().unlistedStatuses).toBe(false);
		await control().post('/settings', { unlistedStatuses: true });
		const call = await api().post('/v1/calls', {
			phoneDocId: PHONE_DOC_IDS.main,
			to: TEST_NUMBERS.customerHangsUpEarly,
		});
		const ai = await api().post('/v1/calls', {
			phoneDocId: PHONE_DOC_IDS.main,
			to: TEST_NUMBERS.customer,
			mode: 'ai',
		});
		const sent = await api().post('/v1/sms', {
			phoneDocId: PHONE_DOC_IDS.main,
			to: TEST_NUMBERS.customer,
			message: 'Hi',
		});
		const failing = await api().post('/v1/sms', {
			phoneDocId: PHONE_DOC_IDS.main,
			to: TEST_NUMBERS.deliveryFails,
			message: 'Hi',
		});
		await control().post('/clock/advance', { seconds: 120 });
		const path = async (id: string) =>
			(await control().get(`/items/${id}`)).body.item.history.map(
				(t: { status: string }) => t.status,
			);
		expect(await path(call.body.callId)).toEqual([
			'ringing-agent',
			'agent-answered',
			'dialing',
			'ringing-customer',
			'in-progress',
			'completed',
		]);
		expect(await path(ai.body.callSid)).toEqual([
			'initiated',
			'dialing',
			'in-progress',
			'completed',
		]);
		expect(await path(sent.body.messageId)).toEqual(['sent', 'submitted', 'pending', 'delivered']);
		expect(await path(failing.body.messageId)).toEqual([
			'sent',
			'submitted',
			'pending',
			'undelivered',
		]);
		// Billed as before: from the agent's answer to the end (20 s, one minute).
		const record = (await control().get(`/items/${call.body.callId}`)).body.item.record;
		expect(record).toMatchObject({ durationSeconds: 20, billedMinutes: 1 });
		// An outcome chosen later keeps the path; made once the setting is off, the path is the documented one.
		const late = await api().post('/v1/sms', {
			phoneDocId: PHONE_DOC_IDS.main,
			to: TEST_NUMBERS.noReceipt,
			message: 'Hi',
		});
		await control().post('/settings', { unlistedStatuses: false });
		const plain = await api().post('/v1/sms', {
			phoneDocId: PHONE_DOC_IDS.main,
			to: TEST_NUMBERS.customer,
			message: 'Hi',
		});
		await control().post('/outcome', { id: late.body.messageId, outcome: 'delivered' });
		await control().post('/clock/advance', { seconds: 20 });
		expect(await path(late.body.messageId)).toEqual(['sent', 'submitted', 'pending', 'delivered']);
		expect(await path(plain.body.messageId)).toEqual(['sent', 'delivered']);
	});

	it('refuses invalid failure injections', async () => {
		await expectControlError(control().post('/failures', { status: 404 }), 400);
		await expectControlError(control().post('/failures', { status: 500, count: 0 }), 400);
		await expectControlError(control().post('/failures', { status: 500, service: 'fax' }), 400);
		await expectControlError(control().post('/failures', { status: 500, api: 'other' }), 400);
	});
});

describe('request log', () => {
	it('records API requests (not control requests) with method, path, query, body, status and masked key', async () => {
		await api().get('/v1/sms', { direction: 'received', limit: 5 });
		await accountApi(sandbox(), ACCOUNT_KEYS.disabled, 'x-api-key').get('/v1/numbers');
		await unifiedApi(sandbox(), UNIFIED_KEYS.test)('sms', 'send', {
			to: TEST_NUMBERS.customer,
			message: `my key is ${UNIFIED_KEYS.live}`,
		});
		await http('GET', `${sandbox().url}/nowhere`);
		await control().get('/state');
		const log = (await control().get('/requests')).body.requests;
		expect(log).toHaveLength(4);
		expect(log[0]).toEqual({
			seq: 1,
			time: sandbox().control.clock().now,
			api: 'account',
			method: 'GET',
			path: '/v1/sms',
			query: { direction: 'received', limit: '5' },
			body: null,
			status: 200,
			error: null,
			keyMask: 'acc_sbx_****7e1b',
		});
		expect(log[1]).toMatchObject({
			status: 401,
			error: 'key_disabled',
			keyMask: 'acc_sbx_****4a15',
		});
		expect(log[2]).toMatchObject({ api: 'unified', status: 200, keyMask: 'key_test****9a4c' });
		expect(log[2].body).toEqual({
			service: 'sms',
			action: 'send',
			data: { to: TEST_NUMBERS.customer, message: 'my key is key_live****5b2d' },
			api_key: 'key_test****9a4c',
		});
		expect(log[3]).toMatchObject({ api: 'unknown', path: '/nowhere', status: 404, keyMask: null });
		const text = JSON.stringify(log);
		for (const key of [
			...Object.values(ACCOUNT_KEYS),
			...Object.values(UNIFIED_KEYS),
			WEBHOOK_SECRET,
		]) {
			expect(text).not.toContain(key);
		}
		expect(sandbox().requests()).toEqual(log);
	});

	it('masks keys found in query strings and unparsable bodies too', async () => {
		await http('GET', `${sandbox().url}/v1/numbers?api_key=${ACCOUNT_KEYS.unrestricted}`);
		await http('POST', sandbox().unifiedUrl, { raw: `{"api_key":"${UNIFIED_KEYS.live}"` });
		const text = JSON.stringify(sandbox().requests());
		expect(text).not.toContain(ACCOUNT_KEYS.unrestricted);
		expect(text).not.toContain(UNIFIED_KEYS.live);
		expect(text).toContain('acc_sbx_****7e1b');
	});

	it('filters by api, path and limit, and clears', async () => {
		await api().get('/v1/numbers');
		await api().get('/v1/sms');
		await api().get('/v1/sms');
		await unifiedApi(sandbox(), UNIFIED_KEYS.test)('ai', 'chat', {
			messages: [{ role: 'user', content: 'q' }],
		});
		expect((await control().get('/requests?api=unified')).body.count).toBe(1);
		expect((await control().get('/requests?path=/v1/sms')).body.count).toBe(2);
		const last = (await control().get('/requests?limit=1')).body.requests;
		expect(last.map((r: { seq: number }) => r.seq)).toEqual([4]);
		await control().delete('/requests');
		expect(sandbox().requests()).toEqual([]);
	});
});

describe('lifecycle of the server', () => {
	it('stops cleanly, twice, and frees the port', async () => {
		const other = await startSandbox({ port: 0 });
		const lines: string[] = [];
		const logged = await startSandbox({ port: 0, log: (line) => lines.push(line) });
		await accountApi(logged, ACCOUNT_KEYS.unrestricted).get('/v1/numbers');
		expect(lines).toContain('GET /v1/numbers -> 200');
		await logged.stop();
		await other.stop();
		await other.stop();
		await expect(http('GET', `${other.url}/v1/numbers`)).rejects.toThrow();
	});

	it('releases requests held by latency when stopping', async () => {
		const other = await startSandbox({ port: 0 });
		other.control.setLatency(60_000);
		const pending = accountApi(other, ACCOUNT_KEYS.unrestricted)
			.get('/v1/numbers')
			.catch((error: Error) => error);
		for (let i = 0; i < 400 && other.control.heldRequests() === 0; i += 1) await delay(5);
		expect(other.control.heldRequests()).toBe(1);
		const started = Date.now();
		await other.stop();
		await pending;
		expect(Date.now() - started).toBeLessThan(5_000);
	});

	it('refuses a port in use', async () => {
		const port = Number(new URL(sandbox().url).port);
		await expect(startSandbox({ port })).rejects.toThrow(/EADDRINUSE/);
	});
});
