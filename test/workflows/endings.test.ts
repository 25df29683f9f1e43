/**
 * When a call or an SMS has ended, run as n8n runs the Comms Account Trigger (n8n-core's
 * PollContext) against the sandbox with its setting `unlistedStatuses` on: calls and sent SMS pass
 * through statuses the API documents nowhere (a manual call `agent-answered` and `dialing`, an AI
 * call `dialing`, an SMS `submitted` and `pending`; a failed SMS ends `undelivered`). A status is
 * final only if known to be final (nodes/CommsAccount/api/statuses.ts); any other is in progress,
 * and a status never seen before is said once in n8n's log, with a record that had it. The cases
 * reported in issue 36: Call Ended fired early (and the real end never), SMS Delivered never fired.
 */
import type { INodeParameters } from 'n8n-workflow';

import { PollHarness, type PollRun } from '../../harness';
import { ACCOUNT_KEYS, PHONE_DOC_IDS, TEST_NUMBERS } from '../../sandbox';
import { captureLogs } from '../support/logs';
import { accountApi, accountCredentials, useSandbox } from '../support/sandbox';
import { accountTriggerWorkflow } from '../support/workflows';

// A frozen clock: each status lasts exactly what its script says, however slow the machine.
const sandbox = useSandbox({ frozenClock: true });
const api = () => accountApi(sandbox(), ACCOUNT_KEYS.unrestricted);
const advance = (seconds: number) => sandbox().control.advanceClock(seconds);
beforeEach(() => sandbox().control.setUnlistedStatuses(true));

function trigger(parameters: INodeParameters): PollHarness {
	return new PollHarness(accountTriggerWorkflow(parameters), {
		credentials: accountCredentials(sandbox()),
	});
}

const ids = (run: PollRun) => (run.items ?? []).map((item) => item.json.id);
const statuses = (run: PollRun) => (run.items ?? []).map((item) => item.json.status);

async function call(body: Record<string, unknown>): Promise<string> {
	const res = await api().post('/v1/calls', { phoneDocId: PHONE_DOC_IDS.main, ...body });
	expect(res.status).toBe(201);
	const created = res.body as { mode?: string; callId: string; callSid: string };
	return created.mode === 'ai' ? created.callSid : created.callId;
}

async function sms(to: string): Promise<string> {
	const res = await api().post('/v1/sms', { phoneDocId: PHONE_DOC_IDS.main, to, message: 'Hi' });
	expect(res.status).toBe(201);
	return (await sandbox().control.get((res.body as { messageId: string }).messageId)).record
		.id as string;
}

/** Lines of n8n's log at `level` that mention `text`. */
const said = (logs: string[], level: string, text: string) =>
	logs.filter((line) => line.startsWith(level) && line.includes(text));

describe('Call Ended', () => {
	it('a manual call through agent-answered and dialing is emitted once, when it completes; each new status is said once, with a call that had it', async () => {
		const logs = captureLogs();
		const harness = trigger({ event: 'callEnded', callMode: 'manual' });
		expect((await harness.activate()).error).toBeUndefined();
		const first = await call({ to: TEST_NUMBERS.customerHangsUpEarly });
		const second = await call({ to: TEST_NUMBERS.customerBusy });
		const seen: string[] = [];
		// ringing-agent 5 s, agent-answered 1 s, dialing 2 s, then the customer's phone rings.
		for (const seconds of [0, 5.5, 1, 1]) {
			await advance(seconds);
			const run = await harness.poll();
			expect(run.error).toBeUndefined();
			expect(run.items).toBeNull();
			seen.push(String((await sandbox().control.get(first)).status));
		}
		expect(seen).toEqual(['ringing-agent', 'agent-answered', 'dialing', 'dialing']);
		expect(said(logs, 'warn', '"agent-answered"')).toHaveLength(1);
		expect(said(logs, 'warn', '"dialing"')).toHaveLength(1);
		expect(said(logs, 'warn', `"agent-answered"`)[0]).toMatch(
			new RegExp(`call (${first}|${second})`),
		);
		await advance(30);
		const ended = await harness.poll();
		expect(ids(ended)).toEqual([first, second].sort());
		expect(statuses(ended).sort()).toEqual(['busy', 'completed']);
		expect((await harness.poll()).items).toBeNull();
		// Fetch Test Event: the latest call that ended, by the same definition.
		expect(statuses(await harness.fetchTestEvent())[0]).toMatch(/busy|completed/);
	});

	it('an AI call through dialing is emitted once, when it completes', async () => {
		const harness = trigger({
			event: 'callEnded',
			callMode: 'ai',
			phoneDocId: { __rl: true, mode: 'id', value: PHONE_DOC_IDS.main },
		});
		expect((await harness.activate()).error).toBeUndefined();
		const id = await call({ mode: 'ai', to: TEST_NUMBERS.customer, customerName: 'Ada' });
		await advance(8);
		expect((await sandbox().control.get(id)).status).toBe('dialing');
		expect((await harness.poll()).items).toBeNull();
		await advance(90);
		const done = await harness.poll();
		expect(ids(done)).toEqual([id]);
		expect(statuses(done)).toEqual(['completed']);
	});
});

describe('SMS Delivered', () => {
	it('an SMS through submitted and pending is emitted once it is delivered; one that ends undelivered never is, and the log says so', async () => {
		const logs = captureLogs();
		const harness = trigger({ event: 'smsDelivered' });
		expect((await harness.activate()).error).toBeUndefined();
		const delivered = await sms(TEST_NUMBERS.customer);
		const failed = await sms(TEST_NUMBERS.deliveryFails);
		const seen: string[] = [];
		// sent 2 s, submitted 3 s, pending 5 s.
		for (const seconds of [0, 2.5, 3, 1]) {
			await advance(seconds);
			const run = await harness.poll();
			expect(run.error).toBeUndefined();
			expect(run.items).toBeNull();
			seen.push(String((await sandbox().control.get(delivered)).status));
		}
		expect(seen).toEqual(['sent', 'submitted', 'pending', 'pending']);
		expect(said(logs, 'warn', '"submitted"')).toHaveLength(1);
		expect(said(logs, 'warn', '"pending"')).toHaveLength(1);
		await advance(10);
		const run = await harness.poll();
		expect(ids(run)).toEqual([delivered]);
		expect(statuses(run)).toEqual(['delivered']);
		expect((await harness.poll()).items).toBeNull();
		const ended = said(logs, 'info', 'ended without being delivered');
		expect(ended).toHaveLength(1);
		expect(ended[0]).toContain(`${failed} (undelivered)`);
	});
});
