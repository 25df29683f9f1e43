/**
 * The Comms Account Trigger's events on records in progress (Call Ended, SMS Delivered), run as n8n runs a polling trigger (n8n-core's
 * PollContext, see harness/poll.ts) against the sandbox: "Call Ended" (manual and AI calls,
 * once each when final) and "SMS Delivered" (once per delivered message), their filters and
 * Fetch Test Event. The tracker's edge cases (a day in progress, more than 200 calls, a wider
 * window) are in test/unit/inProgressPoll.test.ts.
 */
import type { INodeParameters } from 'n8n-workflow';

import { CREDENTIAL_REFS, PollHarness, type PollRun, type WorkflowJson } from '../../harness';
import { ACCOUNT_KEYS, PHONE_DOC_IDS, TEST_NUMBERS } from '../../sandbox';
import { captureLogs } from '../support/logs';
import { accountApi, accountCredentials, useSandbox } from '../support/sandbox';

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

async function messageIdOf(id: string): Promise<string> {
	return (await sandbox().control.get(id)).id;
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

/**
 * What is in progress never holds back the rest: a sent SMS without a receipt and a call that
 * never ends are tracked by id, looked up by id once the window no longer returns them, and the
 * list is read from the newest record seen. The Late Arrival Window is 0 here, so a record
 * leaves it as soon as a newer one is seen.
 */
describe('records in progress hold nothing back', () => {
	const control = () => sandbox().control;
	/** Requests of `path` the trigger made with `key` set to `value`. */
	const asked = (path: string, key: string, value: string) =>
		sandbox()
			.requests()
			.filter((r) => r.method === 'GET' && r.path === path && r.query[key] === value).length;
	/** A look-up is due a second after a record was last seen, at the soonest. */
	const lookUpDue = () => new Promise((resolve) => setTimeout(resolve, 1100));

	it.each([undefined, 'durable'] as const)(
		'SMS Delivered: an SMS that never gets a receipt is looked up by messageId, and the others are emitted as they are delivered (cursors: %s)',
		async (cursors) => {
			const harness = trigger({ event: 'smsDelivered', options: { lookBackMinutes: 0 } }, cursors);
			expect((await harness.activate()).error).toBeUndefined();
			const stuck = await sms(TEST_NUMBERS.noReceipt);
			const stuckMessageId = await messageIdOf(stuck);
			expect((await harness.poll()).items).toBeNull();
			const emitted: unknown[] = [];
			const delivered: string[] = [];
			for (let round = 0; round < 3; round++) {
				const next = await sms(TEST_NUMBERS.customer);
				delivered.push(next);
				await control().advance(next, { untilFinal: true });
				const run = await harness.poll();
				expect(run.error).toBeUndefined();
				emitted.push(...ids(run));
			}
			const before = asked('/v1/sms', 'messageId', stuckMessageId);
			await lookUpDue();
			expect((await harness.poll()).items).toBeNull();
			// Every delivered SMS once, as it was delivered; the one without a receipt never, and
			// it was looked up by its messageId once the list no longer returned it.
			expect(emitted).toEqual(delivered);
			expect(asked('/v1/sms', 'messageId', stuckMessageId)).toBeGreaterThan(before);
			const pending = (harness.nodeStaticData().deliveryOutcomes as { pending: unknown[][] })
				.pending;
			expect(pending.map((entry) => entry[0])).toEqual([stuck]);
		},
	);

	it('Call Ended: a call that never ends is looked up by callId on its number, and the calls after it are emitted when they end', async () => {
		const harness = trigger({
			event: 'callEnded',
			callMode: 'manual',
			options: { lookBackMinutes: 0 },
		});
		expect((await harness.activate()).error).toBeUndefined();
		const endless = await call({ to: TEST_NUMBERS.customerNeverHangsUp });
		// A later millisecond: a call created at the same one as `busy` is at the cursor, which
		// `since` includes, so the list keeps returning it and it is never looked up.
		await new Promise((resolve) => setTimeout(resolve, 5));
		const busy = await call({ to: TEST_NUMBERS.customerBusy });
		expect((await harness.poll()).items).toBeNull();
		await control().advance(busy, { untilFinal: true });
		expect(ids(await harness.poll())).toEqual([busy]);
		await lookUpDue();
		const early = await call({ to: TEST_NUMBERS.customerHangsUpEarly });
		await control().advance(early, { untilFinal: true });
		expect(ids(await harness.poll())).toEqual([early]);
		expect(asked('/v1/calls', 'callId', endless)).toBeGreaterThan(0);
		const pending = (harness.nodeStaticData().callOutcomes as { pending: unknown[][] }).pending;
		expect(pending.map((entry) => entry[0])).toEqual([endless]);
	});
});

describe('SMS Delivered past a page', () => {
	async function sendMany(count: number): Promise<string[]> {
		const sent: string[] = [];
		for (let i = 0; i < count; i++) {
			const res = await api().post('/v1/sms', {
				phoneDocId: PHONE_DOC_IDS.main,
				to: TEST_NUMBERS.customer,
				message: `Bulk ${i}`,
			});
			expect(res.status).toBe(201);
			sent.push((res.body as { messageId: string }).messageId);
		}
		return sent;
	}
	const messageIds = (run: PollRun) => (run.items ?? []).map((item) => item.json.messageId);

	it('results oldest first: 250 SMS delivered between two polls, each once, in one poll', async () => {
		sandbox().control.setSmsOrder('oldestFirst');
		const harness = trigger({ event: 'smsDelivered' });
		await harness.activate();
		const sent = await sendMany(250);
		await advance(15);
		const run = await harness.poll();
		expect(messageIds(run)).toEqual(sent);
		expect((await harness.poll()).items).toBeNull();
	});

	it('results newest first: the newest 200 once each, and a warning that the older ones could not be read (a documented limit)', async () => {
		const logs = captureLogs();
		sandbox().control.setSmsOrder('newestFirst');
		const harness = trigger({ event: 'smsDelivered' });
		await harness.activate();
		const sent = await sendMany(250);
		await advance(15);
		const run = await harness.poll();
		expect(messageIds(run)).toEqual(sent.slice(50));
		expect(
			logs.some(
				(line) => line.startsWith('warn') && /more sent SMS arrived since the last poll/.test(line),
			),
		).toBe(true);
		expect((await harness.poll()).items).toBeNull();
	});
});

describe('state saved by the previous version', () => {
	it('SMS Delivered: the pending list it kept is carried over, and what was pending is emitted once when delivered', async () => {
		const harness = trigger({ event: 'smsDelivered' });
		await harness.activate();
		const pendingId = await sms(TEST_NUMBERS.customer);
		expect((await harness.poll()).items).toBeNull();
		// The same state as the previous version stored it (since held at the oldest pending one).
		const current = harness.nodeStaticData().deliveryOutcomes as {
			fp: string;
			window: { cursor: number; floor: number };
			pending: Array<[string, number, string]>;
		};
		const v1 = {
			v: 1,
			kind: 'smsDelivered',
			floor: current.window.floor,
			cursor: current.window.cursor,
			pending: current.pending.map(([id, at, status]) => [id, at, status]),
			done: [],
			fp: current.fp,
		};
		harness.restore({
			...harness.storedStaticData,
			'node:Trigger': { deliveryOutcomes: v1 },
		});
		await advance(15);
		const run = await harness.poll();
		expect(ids(run)).toEqual([pendingId]);
		expect(harness.nodeStaticData().deliveryOutcomes).toMatchObject({ v: 2 });
		expect((await harness.poll()).items).toBeNull();
	});
});
