/**
 * The Comms Account Trigger's outcome events, run as n8n runs a polling trigger (n8n-core's
 * PollContext, see harness/poll.ts) against the sandbox: "Call Ended" (manual and AI calls,
 * once each when final) and "SMS Delivered" (once per delivered message), their filters and
 * Fetch Test Event. The tracker's edge cases (a day in progress, more than 200 calls, a wider
 * window) are in test/unit/outcomes.test.ts.
 */
import type { INodeParameters } from 'n8n-workflow';

import { CREDENTIAL_REFS, PollHarness, type PollRun, type WorkflowJson } from '../../harness';
import { ACCOUNT_KEYS, PHONE_DOC_IDS, TEST_NUMBERS } from '../../sandbox';
import { accountApi } from '../sandbox/helpers';
import { accountCredentials, useSandbox } from '../support/sandbox';

const TRIGGER = 'n8n-nodes-comms-api.commsAccountTrigger';
const sandbox = useSandbox();
const api = () => accountApi(sandbox(), ACCOUNT_KEYS.unrestricted);
const advance = (seconds: number) => sandbox().control.advanceClock(seconds);

function trigger(parameters: INodeParameters, cursors?: 'durable'): PollHarness {
	const json: WorkflowJson = {
		nodes: [
			{
				id: 'trigger',
				name: 'Trigger',
				type: TRIGGER,
				typeVersion: 1,
				position: [0, 0],
				parameters,
				credentials: CREDENTIAL_REFS,
			},
		],
		connections: {},
	};
	return new PollHarness(json, { credentials: accountCredentials(sandbox()), cursors });
}

const ids = (run: PollRun) => (run.items ?? []).map((item) => item.json.id);

async function call(body: Record<string, unknown>): Promise<string> {
	const res = await api().post('/v1/calls', { phoneDocId: PHONE_DOC_IDS.main, ...body });
	expect(res.status).toBe(201);
	return (res.body as { mode?: string; callId: string; callSid: string }).mode === 'ai'
		? (res.body as { callSid: string }).callSid
		: (res.body as { callId: string }).callId;
}

async function sms(to: string): Promise<string> {
	const res = await api().post('/v1/sms', { phoneDocId: PHONE_DOC_IDS.main, to, message: 'Hi' });
	expect(res.status).toBe(201);
	const { messageId } = res.body as { messageId: string };
	const found = await api().get('/v1/sms', { messageId });
	return (found.body as { messages: Array<{ id: string }> }).messages[0].id;
}

describe('Call Ended', () => {
	it.each([undefined, 'durable'] as const)(
		'manual calls: each once, when final, with what history gives (cursors: %s)',
		async (cursors) => {
			const harness = trigger({ event: 'callEnded', callMode: 'manual' }, cursors);
			expect((await harness.activate()).error).toBeUndefined();
			const busy = await call({ to: TEST_NUMBERS.customerBusy });
			const early = await call({ to: TEST_NUMBERS.customerHangsUpEarly });
			const first = await harness.poll();
			expect(first.error).toBeUndefined();
			expect(first.items).toBeNull(); // both still ringing
			await advance(12);
			const second = await harness.poll();
			expect(ids(second)).toEqual([busy]);
			expect(second.items?.[0].json).toMatchObject({ status: 'busy' });
			await advance(30);
			const third = await harness.poll();
			expect(ids(third)).toEqual([early]);
			expect(third.items?.[0].json).toMatchObject({
				status: 'completed',
				durationSeconds: expect.any(Number),
				endedAt: expect.any(String),
			});
			expect((await harness.poll()).items).toBeNull();
		},
	);

	it('calls made before publishing are history', async () => {
		await call({ to: TEST_NUMBERS.customerBusy });
		await advance(12);
		const harness = trigger({ event: 'callEnded' });
		expect((await harness.activate()).items).toBeNull();
		expect((await harness.poll()).items).toBeNull();
	});

	it('AI calls need a Phone Number; with one, each AI call once when completed', async () => {
		const without = trigger({ event: 'callEnded', callMode: 'ai' });
		const refused = await without.activate();
		expect(refused.error?.message).toMatch(/Phone Number is required for AI calls/);

		const harness = trigger({
			event: 'callEnded',
			callMode: 'ai',
			phoneDocId: { __rl: true, mode: 'id', value: PHONE_DOC_IDS.main },
		});
		expect((await harness.activate()).error).toBeUndefined();
		const id = await call({ mode: 'ai', to: TEST_NUMBERS.customer, customerName: 'Ada' });
		expect((await harness.poll()).items).toBeNull();
		await advance(100);
		const done = await harness.poll();
		expect(ids(done)).toEqual([id]);
		expect(done.items?.[0].json).toMatchObject({ mode: 'ai', status: 'completed' });
		expect((await harness.poll()).items).toBeNull();
	});

	it('Peer filters by the customer number; Fetch Test Event shows the latest ended call and moves nothing', async () => {
		const harness = trigger({ event: 'callEnded', peer: TEST_NUMBERS.customerBusy });
		await harness.activate();
		const wanted = await call({ to: TEST_NUMBERS.customerBusy });
		await call({ to: TEST_NUMBERS.customerHangsUpEarly });
		await advance(40);
		expect(ids(await harness.poll())).toEqual([wanted]);
		const stored = JSON.stringify(harness.storedStaticData);
		const test = await harness.fetchTestEvent();
		expect(ids(test)).toEqual([wanted]);
		expect(test).toMatchObject({ readStaticData: false, saved: false });
		expect(JSON.stringify(harness.storedStaticData)).toBe(stored);
	});
});

describe('SMS Delivered', () => {
	it('each delivered SMS once; one that fails is never emitted', async () => {
		const harness = trigger({ event: 'smsDelivered' });
		expect((await harness.activate()).error).toBeUndefined();
		const delivered = await sms(TEST_NUMBERS.customer);
		await sms(TEST_NUMBERS.deliveryFails);
		expect((await harness.poll()).items).toBeNull(); // still `sent`
		await advance(15);
		const run = await harness.poll();
		expect(ids(run)).toEqual([delivered]);
		expect(run.items?.[0].json).toMatchObject({ direction: 'sent', status: 'delivered' });
		expect((await harness.poll()).items).toBeNull();
		const test = await harness.fetchTestEvent();
		expect(ids(test)).toEqual([delivered]);
	});
});
