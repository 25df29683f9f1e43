/**
 * The Comms Account Trigger run as n8n runs a polling trigger (n8n-core's PollContext,
 * static data stored between polls as n8n stores it; see harness/poll.ts) against the
 * sandbox over HTTP: every case of the cursor's property tests end to end, in both orders the
 * sandbox offers, and what n8n users see: first activation, Include Last Minutes, Fetch Test
 * Event, errors for n8n's poll backoff, and the cost in requests.
 */

import type { INodeParameters } from 'n8n-workflow';
import { ACTIONABLE_CAUSES, NodeApiError, NodeOperationError, TIMED_CAUSES } from 'n8n-workflow';

import {
	CREDENTIAL_REFS,
	PollHarness,
	type PollHarnessOptions,
	type PollRun,
	type WorkflowJson,
} from '../../harness';
import type { SmsOrder } from '../../sandbox';
import { startFaultyProxy } from '../support/faultyProxy';
import { captureLogs } from '../support/logs';
import { accountCredentials, useSandbox } from '../support/sandbox';
import { startStubServer } from '../support/stubServer';

const TRIGGER = 'n8n-nodes-comms-api.commsAccountTrigger';
const ACCOUNT = 'n8n-nodes-comms-api.commsAccount';

/** Injects a failure just before the `n`th GET /v1/sms from now is handled. */
let beforeSmsRead: Array<() => void> = [];
const sandbox = useSandbox({
	log: (line) => {
		if (line.startsWith('GET /v1/sms ')) beforeSmsRead.shift()?.();
	},
});
beforeEach(() => {
	beforeSmsRead = [];
});

function triggerWorkflow(parameters: INodeParameters = {}, { reply = false } = {}): WorkflowJson {
	const nodes: WorkflowJson['nodes'] = [
		{
			id: 'trigger',
			name: 'SMS received',
			type: TRIGGER,
			typeVersion: 1,
			position: [0, 0],
			parameters,
			credentials: CREDENTIAL_REFS,
		},
	];
	const connections: WorkflowJson['connections'] = {};
	if (reply) {
		nodes.push({
			id: 'reply',
			name: 'Reply',
			type: ACCOUNT,
			typeVersion: 1,
			position: [220, 0],
			parameters: {
				resource: 'sms',
				operation: 'send',
				phoneDocId: { __rl: true, mode: 'id', value: 'pdoc_sbx_main' },
				to: '={{ $json.fromNumber }}',
				message: '=Got it: {{ $json.body }}',
			},
			credentials: CREDENTIAL_REFS,
		});
		connections['SMS received'] = { main: [[{ node: 'Reply', type: 'main', index: 0 }]] };
	}
	return { nodes, connections };
}

function trigger(
	parameters: INodeParameters = {},
	options: PollHarnessOptions & { reply?: boolean; key?: string } = {},
): PollHarness {
	return new PollHarness(triggerWorkflow(parameters, { reply: options.reply }), {
		credentials: accountCredentials(sandbox(), options.key),
		...options,
	});
}

const smsReads = () =>
	sandbox()
		.requests()
		.filter((r) => r.method === 'GET' && r.path === '/v1/sms');
const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const ids = (run: PollRun) => (run.items ?? []).map((item) => item.json.id);
const idsOf = (records: Array<Record<string, unknown>>) => records.map((r) => r.id);
/**
 * A sentAt after every one of `records` and not before now. `intervalSeconds` dates a burst's
 * later messages ahead of the clock, so a message injected a few milliseconds later would
 * otherwise sort inside that burst.
 */
const after = (records: Array<Record<string, unknown>>) =>
	new Date(
		Math.max(Date.now(), ...records.map((r) => Date.parse(r.sentAt as string) + 1)),
	).toISOString();

function inject(input: Parameters<ReturnType<typeof sandbox>['control']['injectInboundSms']>[0]) {
	return sandbox().control.injectInboundSms(input);
}

/** `count` messages, one every `stepMs`, the first `minutes` ago. */
function burst(count: number, minutes: number, stepMs = 10, extra: Record<string, unknown> = {}) {
	const start = Date.now() - minutes * 60_000;
	const out: Array<Record<string, unknown>> = [];
	for (let done = 0; done < count; done += 1000) {
		const n = Math.min(1000, count - done);
		out.push(
			...inject({
				sentAts: Array.from({ length: n }, (_, i) =>
					new Date(start + (done + i) * stepMs).toISOString(),
				),
				...extra,
			}),
		);
	}
	return out;
}

/** Polls until a poll brings nothing new; returns every id emitted (failing polls are errors). */
async function drain(harness: PollHarness, max = 10): Promise<unknown[]> {
	const all: unknown[] = [];
	for (let i = 0; i < max; i++) {
		const run = await harness.poll();
		expect(run.error).toBeUndefined();
		if (!run.items) return all;
		all.push(...ids(run));
	}
	return all;
}

const ORDERS: SmsOrder[] = ['oldestFirst', 'newestFirst'];

describe('activation', () => {
	it('first activation starts from now: history is not emitted, what arrives after it is, once, oldest first', async () => {
		inject({ sentAt: ago(10), count: 3, intervalSeconds: 60 }); // and the seeded history, hours old
		const harness = trigger();
		const first = await harness.activate();
		expect(first).toMatchObject({ items: null, saved: true });
		// One request reads what is there (the last day: it is history, by id), then the poll.
		expect(smsReads()).toHaveLength(2);
		expect(smsReads()[0].query).toMatchObject({ direction: 'received', limit: '200' });
		expect(Date.parse(smsReads()[0].query.since)).toBeLessThanOrEqual(Date.now() - 86_400_000);
		expect(smsReads()[1].query).toMatchObject({ direction: 'received', limit: '200' });

		const fresh = inject({ body: 'After activation', count: 2, intervalSeconds: 0.5 });
		const second = await harness.poll();
		expect(ids(second)).toEqual(idsOf(fresh));
		expect(second.items?.[0].json).toEqual(fresh[0]); // the message's fields as the API gives them
		expect((await harness.poll()).items).toBeNull();
	});

	it('Include Last Minutes reaches back on the first poll only', async () => {
		inject({ sentAt: ago(50) });
		const recent = inject({ sentAt: ago(20), count: 3, intervalSeconds: 60 });
		const harness = trigger({ options: { includeLastMinutes: 30 } });
		expect(ids(await harness.activate())).toEqual(idsOf(recent));
		expect((await harness.poll()).items).toBeNull();
	});

	it('an active workflow: each SMS starts the rest of the workflow once', async () => {
		const harness = trigger({}, { reply: true });
		await harness.activate();
		inject({ body: 'Opening hours?' });
		await harness.poll();
		await harness.poll();
		const executions = await harness.executions();
		expect(executions).toHaveLength(1);
		expect(executions[0].error).toBeUndefined();
		expect(executions[0].output('Reply')[0].json).toMatchObject({
			to: '+447700900456',
			status: 'sent',
		});
		expect(
			sandbox()
				.requests()
				.filter((r) => r.method === 'POST' && r.path === '/v1/sms')[0].body,
		).toMatchObject({ message: 'Got it: Opening hours?' });
	});
});

describe('Fetch Test Event', () => {
	it.each(ORDERS)(
		'returns the latest received message and neither reads nor moves the cursor (%s)',
		async (order) => {
			sandbox().control.setSmsOrder(order);
			const harness = trigger({ options: { includeLastMinutes: 10 } });
			await harness.activate();
			inject({ sentAt: ago(2), count: 3, intervalSeconds: 30 });
			const [latest] = inject({ sentAt: ago(0.1), body: 'The latest' });
			const stored = JSON.stringify(harness.storedStaticData);
			const test = await harness.fetchTestEvent();
			expect(test.error).toBeUndefined();
			expect(test.items?.map((i) => i.json)).toEqual([latest]);
			expect(test).toMatchObject({ readStaticData: false, saved: false });
			expect(JSON.stringify(harness.storedStaticData)).toBe(stored);
			// The messages it showed are still new to the active workflow.
			expect((await harness.poll()).items).toHaveLength(4);
		},
	);

	it('finds the latest when more than 2,000 arrived in the last hour, results oldest first', async () => {
		sandbox().control.setSmsOrder('oldestFirst');
		const sent = burst(2600, 40, 500);
		const test = await trigger().fetchTestEvent();
		expect(test.error).toBeUndefined();
		expect(test.items?.map((i) => i.json.id)).toEqual([sent.at(-1)?.id]);
	});

	it('works before the workflow was ever activated, and finds the latest past a page of results oldest first', async () => {
		sandbox().control.setSmsOrder('oldestFirst');
		burst(450, 30, 1000);
		const harness = trigger();
		const test = await harness.fetchTestEvent();
		expect(test.items?.[0].json.body).toBe('Inbound message (450/450)');
		expect(harness.storedStaticData).toEqual({});
	});

	it('says so when nothing has been received, and throws errors as they are', async () => {
		const none = await trigger({ peer: '+44 7700 900999' }).fetchTestEvent();
		expect(none.error).toBeInstanceOf(NodeOperationError);
		expect(none.error?.message).toMatch(/No SMS has been received from \+447700900999 yet/);
		const suspended = await trigger(
			{},
			{ key: sandbox().credentials.account.suspended },
		).fetchTestEvent();
		expect(suspended.error).toBeInstanceOf(NodeApiError);
		expect(suspended.error?.message).toMatch(/suspended/);
	});
});

describe.each(ORDERS)('results %s', (order) => {
	beforeEach(() => sandbox().control.setSmsOrder(order));

	it('an idle poll is exactly one request', async () => {
		const harness = trigger();
		await harness.activate();
		inject({ count: 5, intervalSeconds: 0.01 });
		await harness.poll();
		const before = smsReads().length;
		expect((await harness.poll()).items).toBeNull();
		expect(smsReads().length - before).toBe(1);
	});

	it('a burst sharing one sentAt, under a page: each once, in the order received', async () => {
		const harness = trigger();
		await harness.activate();
		// The read at activation learnt the server's order from the history it holds.
		expect(harness.nodeStaticData().smsCursor).toMatchObject({ order });
		const sent = inject({ count: 150, body: 'Same second' });
		const before = smsReads().length;
		const run = await harness.poll();
		expect(ids(run)).toEqual(idsOf(sent));
		expect(smsReads().length - before).toBe(1);
		expect(harness.nodeStaticData().smsCursor).toMatchObject({ order });
		const more = inject({ count: 20, body: 'Same second again' });
		expect(ids(await harness.poll())).toEqual(idsOf(more));
		expect(await drain(harness)).toEqual([]);
	});

	it('a burst of more than a page sharing one sentAt: a page of them, each once, and a warning (a documented limit)', async () => {
		const logs = captureLogs();
		const harness = trigger();
		await harness.activate();
		const sent = inject({ count: 250, body: 'Same second' });
		const run = await harness.poll();
		expect(run.items).toHaveLength(200);
		expect(new Set(ids(run)).size).toBe(200);
		expect(ids(run).every((id) => idsOf(sent).includes(id))).toBe(true);
		// Newest first (an order the history showed at activation), the page hides the rest whatever
		// their time; oldest first, the time they share does.
		const warning = order === 'newestFirst' ? /newest first/ : /share one sent time/;
		expect(logs.some((line) => line.startsWith('warn') && warning.test(line))).toBe(true);
		expect(await drain(harness)).toEqual([]);
	});

	it('a message stored late, with a sentAt inside the window before the cursor, is found; one older than the window is not (a documented limit)', async () => {
		const harness = trigger({ options: { includeLastMinutes: 30 } });
		await harness.activate();
		inject({ sentAt: ago(1) });
		await harness.poll();
		const [late] = inject({
			sentAt: ago(4),
			body: 'Stored late, sent 3 minutes before the cursor',
		});
		inject({ sentAt: ago(15), body: 'Stored late, sent 14 minutes before the cursor' });
		const run = await harness.poll();
		expect(ids(run)).toEqual([late.id]);
		expect(await drain(harness)).toEqual([]);
	});

	it('a failed read throws, leaves the stored cursor as it was, and the next poll emits everything once', async () => {
		const harness = trigger();
		await harness.activate();
		const sent = inject({ count: 150, intervalSeconds: 0.001 });
		const stored = JSON.stringify(harness.storedStaticData);
		sandbox().control.injectFailure({ status: 502, path: '/v1/sms' });
		const failed = await harness.poll();
		expect(failed.error).toBeInstanceOf(NodeApiError);
		expect(JSON.stringify(harness.storedStaticData)).toBe(stored);
		expect(ids(await harness.poll())).toEqual(idsOf(sent));
		expect(await drain(harness)).toEqual([]);
	});

	it('a restart from the stored static data carries on: nothing twice, nothing lost', async () => {
		const harness = trigger();
		await harness.activate();
		const a = inject({ count: 3, intervalSeconds: 0.01, body: 'Before' });
		expect(ids(await harness.poll())).toEqual(idsOf(a));
		const restarted = trigger();
		restarted.restore(JSON.parse(JSON.stringify(harness.storedStaticData)));
		const b = inject({ count: 2, intervalSeconds: 0.01, body: 'After', sentAt: after(a) });
		expect(ids(await restarted.poll())).toEqual(idsOf(b));
		expect(await drain(restarted)).toEqual([]);
	});
});

describe('bursts over a page', () => {
	it('results oldest first: 1,500 messages in one poll, each once, oldest first, in ceil(N/200) + 1 requests at most', async () => {
		sandbox().control.setSmsOrder('oldestFirst');
		const harness = trigger({ options: { includeLastMinutes: 60 } });
		await harness.activate();
		const sent = burst(1500, 40);
		const before = smsReads().length;
		const run = await harness.poll();
		expect(ids(run)).toEqual(idsOf(sent));
		expect(smsReads().length - before).toBeLessThanOrEqual(Math.ceil(1500 / 200) + 1);
		expect(await drain(harness)).toEqual([]);
	});

	it('results newest first: the newest page, each once, and a warning that older ones were out of reach (a documented limit)', async () => {
		const logs = captureLogs();
		const harness = trigger({ options: { includeLastMinutes: 60 } });
		await harness.activate();
		const sent = burst(1000, 40);
		const run = await harness.poll();
		expect(ids(run)).toEqual(idsOf(sent.slice(800)));
		expect(logs.some((line) => line.startsWith('warn') && /newest first/.test(line))).toBe(true);
		expect(await drain(harness)).toEqual([]);
	});
});

describe('the poll budget', () => {
	it('a poll out of budget emits what it read; the next polls carry on from there, each message once', async () => {
		sandbox().control.setSmsOrder('oldestFirst');
		const harness = trigger({ options: { includeLastMinutes: 60 } }, { budgetMs: 0 });
		await harness.activate();
		const sent = burst(700, 40);
		const first = await harness.poll();
		// One page (the newest record from before publishing, history, may be on it).
		expect(first.items!.length).toBeGreaterThanOrEqual(199);
		expect(first.items!.length).toBeLessThanOrEqual(200);
		const rest = await drain(harness);
		expect([...ids(first), ...rest]).toEqual(idsOf(sent));
	});
});

describe('a page failing part way', () => {
	it('leaves the stored cursor as it was, and the next poll emits everything once', async () => {
		sandbox().control.setSmsOrder('oldestFirst');
		const harness = trigger({ options: { includeLastMinutes: 60 } });
		await harness.activate();
		const sent = burst(1000, 40);
		const stored = JSON.stringify(harness.storedStaticData);
		// The third page: the Account API's 502 is a refusal, not retried.
		beforeSmsRead = [
			() => undefined,
			() => undefined,
			() => sandbox().control.injectFailure({ status: 502, path: '/v1/sms' }),
		];
		const failed = await harness.poll();
		expect(failed.error).toBeInstanceOf(NodeApiError);
		expect(failed).toMatchObject({ items: null, saved: false });
		expect(JSON.stringify(harness.storedStaticData)).toBe(stored);
		expect(ids(await harness.poll())).toEqual(idsOf(sent));
		expect(await drain(harness)).toEqual([]);
	});

	it('a passing failure on a page is retried by the transport, inside the same poll', async () => {
		sandbox().control.setSmsOrder('oldestFirst');
		const harness = trigger({ options: { includeLastMinutes: 60 } });
		await harness.activate();
		const sent = burst(500, 40);
		beforeSmsRead = [
			() => undefined,
			() => sandbox().control.injectFailure({ status: 500, path: '/v1/sms' }),
		];
		const run = await harness.poll();
		expect(run.error).toBeUndefined();
		expect(ids(run)).toEqual(idsOf(sent));
	});

	it('with durable cursors too: the failed poll commits nothing', async () => {
		sandbox().control.setSmsOrder('oldestFirst');
		const harness = trigger({ options: { includeLastMinutes: 60 } }, { cursors: 'durable' });
		await harness.activate();
		const sent = burst(600, 40);
		const stored = JSON.stringify(harness.storedStaticData);
		beforeSmsRead = [
			() => undefined,
			() => sandbox().control.injectFailure({ status: 502, path: '/v1/sms' }),
		];
		expect((await harness.poll()).error).toBeDefined();
		expect(JSON.stringify(harness.storedStaticData)).toBe(stored);
		expect(ids(await harness.poll())).toEqual(idsOf(sent));
		expect((await harness.fetchTestEvent()).readStaticData).toBe(false);
		expect(await drain(harness)).toEqual([]);
	});
});

describe('without durable cursors, a crash between the emit and the save', () => {
	it('repeats the messages of that one poll (a documented limit that N8N_POLLER_DURABLE_CURSORS_ENABLED removes)', async () => {
		const harness = trigger();
		await harness.activate();
		const a = inject({ count: 2, intervalSeconds: 0.01, body: 'A' });
		await harness.poll();
		const b = inject({ count: 2, intervalSeconds: 0.01, body: 'B', sentAt: after(a) });
		const crashed = await harness.poll({ crashBeforeSave: true });
		expect(ids(crashed)).toEqual(idsOf(b));
		const c = inject({ count: 1, body: 'C', sentAt: after(b) });
		expect(ids(await harness.poll())).toEqual([...idsOf(b), ...idsOf(c)]);
		expect(ids(crashed)).not.toEqual(expect.arrayContaining(idsOf(a)));
	});
});

describe('filters', () => {
	it('Phone Number and Peer (typed as a person would, with Default Country) go to the API and only their messages start the workflow', async () => {
		const harness = trigger({
			phoneDocId: { __rl: true, mode: 'list', value: 'pdoc_sbx_smsoff' },
			peer: '07700 900321',
			options: { defaultCountry: 'GB' },
		});
		await harness.activate();
		inject({ phoneDocId: 'pdoc_sbx_smsoff', from: '+447700900456' });
		inject({ phoneDocId: 'pdoc_sbx_main', from: '+447700900321' });
		const wanted = inject({ phoneDocId: 'pdoc_sbx_smsoff', from: '+447700900321' });
		expect(ids(await harness.poll())).toEqual(idsOf(wanted));
		expect(smsReads().at(-1)?.query).toMatchObject({
			direction: 'received',
			phoneDocId: 'pdoc_sbx_smsoff',
			peer: '+447700900321',
		});
	});
	it.each(['list', 'id'])(
		'Phone Number left empty in "%s" mode means every number, and the executions it starts run',
		async (mode) => {
			const harness = trigger({ phoneDocId: { __rl: true, mode, value: '' } }, { reply: true });
			await harness.activate();
			const a = inject({ phoneDocId: 'pdoc_sbx_smsoff' });
			const b = inject({ phoneDocId: 'pdoc_sbx_main' });
			const run = await harness.poll();
			expect(run.error).toBeUndefined();
			expect(ids(run)).toEqual([...idsOf(a), ...idsOf(b)]);
			expect(smsReads().at(-1)?.query).not.toHaveProperty('phoneDocId');
			const executions = await harness.executions();
			expect(executions).toHaveLength(1);
			// n8n checks the trigger's parameters before it runs the execution.
			expect(executions[0].error).toBeUndefined();
			expect(executions[0].output('Reply')).toHaveLength(2);
		},
	);
});

describe("errors, as n8n's poll backoff reads them", () => {
	const cases: Array<
		[
			string,
			(s: ReturnType<typeof sandbox>) => { key?: string; parameters?: INodeParameters },
			string,
		]
	> = [
		['a revoked key', (s) => ({ key: s.credentials.account.revoked }), 'credential-invalid'],
		['a disabled key', (s) => ({ key: s.credentials.account.disabled }), 'credential-invalid'],
		[
			'a key of another kind (refused before any request)',
			() => ({ key: 'key_live_sbx_7a3f9c1e5b2d' }),
			'credential-invalid',
		],
		[
			'a suspended account',
			(s) => ({ key: s.credentials.account.suspended }),
			'configuration-invalid',
		],
		[
			'a number the key may not read',
			(s) => ({
				key: s.credentials.account.restricted,
				parameters: { phoneDocId: { __rl: true, mode: 'id', value: 'pdoc_sbx_smsoff' } },
			}),
			'configuration-invalid',
		],
		[
			'a number that does not exist',
			() => ({ parameters: { phoneDocId: { __rl: true, mode: 'id', value: 'pdoc_nope' } } }),
			'configuration-invalid',
		],
		[
			'a Peer that is not a phone number (refused before any request)',
			() => ({ parameters: { peer: 'call me' } }),
			'configuration-invalid',
		],
	];

	it.each(cases)(
		'%s: thrown with its cause declared, and the cursor untouched',
		async (_name, setup, cause) => {
			const { key, parameters = {} } = setup(sandbox());
			const good = trigger(parameters.peer || parameters.phoneDocId ? {} : parameters);
			await good.activate();
			const harness = trigger(parameters, { key });
			harness.restore(good.storedStaticData);
			const stored = JSON.stringify(harness.storedStaticData);
			const run = await harness.poll();
			expect(run.error).toBeDefined();
			expect((run.error as NodeApiError).failure).toEqual({ cause });
			expect(ACTIONABLE_CAUSES).toContain(cause);
			expect(JSON.stringify(harness.storedStaticData)).toBe(stored);
		},
	);

	it('a 429 that outlasts the retries declares the wait the server asked for', async () => {
		const harness = trigger();
		await harness.activate();
		sandbox().control.injectFailure({
			status: 429,
			path: '/v1/sms',
			count: 20,
			retryAfterSeconds: 1,
		});
		const run = await harness.poll();
		sandbox().control.clearFailures();
		expect((run.error as NodeApiError).failure).toEqual({
			cause: 'rate-limited',
			retryAfterMs: 1000,
		});
		expect(TIMED_CAUSES).toContain('rate-limited');
	}, 60_000);
});

describe('cost', () => {
	it.each(ORDERS)(
		'measured, results %s: an idle poll, and a burst of 1,000 (every request held 20 ms, as in npm run bench)',
		async (order) => {
			sandbox().control.setSmsOrder(order);
			sandbox().control.setLatency(20);
			const harness = trigger({ options: { includeLastMinutes: 60 } });
			await harness.activate();
			// Quiet for a while: the window before the cursor holds a few messages.
			inject({ sentAt: ago(20), count: 3, intervalSeconds: 60 });
			await harness.poll();
			let before = smsReads().length;
			const idle = await harness.poll();
			const idleRequests = smsReads().length - before;
			expect(idleRequests).toBe(1);

			const sent = burst(1000, 15);
			before = smsReads().length;
			const run = await harness.poll();
			const burstRequests = smsReads().length - before;
			const emitted = run.items?.length ?? 0;
			if (order === 'oldestFirst') {
				expect(emitted).toBe(1000);
				expect(burstRequests).toBeLessThanOrEqual(Math.ceil(1000 / 200) + 1);
			} else {
				expect(ids(run)).toEqual(idsOf(sent.slice(800)));
				expect(burstRequests).toBe(1);
			}
			before = smsReads().length;
			await harness.poll();
			const afterBurst = smsReads().length - before;
			console.log(
				`SMS trigger cost, results ${order}: idle poll ${idleRequests} request (${idle.durationMs.toFixed(0)} ms); ` +
					`burst of 1,000: ${burstRequests} requests, ${emitted} emitted, ${run.durationMs.toFixed(0)} ms; ` +
					`an idle poll while the burst is inside the look-back window: ${afterBurst} request(s)`,
			);
		},
	);
});

/**
 * Exactly once under n8n's real lifecycle (issue 21, items 1, 2, 4 and 5): overlapping polls,
 * publishing then a restart before the first emit on both poll paths, a filter removed after
 * a quiet period, and an API whose clock is behind n8n's.
 */
describe("exactly once through n8n's lifecycle", () => {
	/** Resolves once the sandbox has logged `count` GET /v1/sms in all. */
	async function smsReadsReach(count: number) {
		while (smsReads().length < count) await new Promise((resolve) => setImmediate(resolve));
	}

	it('a poll that waits out a 429 and the next poll started beside it: each SMS once', async () => {
		const harness = trigger({}, { reply: true });
		await harness.activate();
		const sent = inject({ count: 3, intervalSeconds: 0.01 });
		sandbox().control.injectFailure({ status: 429, path: '/v1/sms', retryAfterSeconds: 2 });
		const before = smsReads().length;
		const slow = harness.poll();
		// n8n's cron starts the next poll while the first one waits out the 429.
		await smsReadsReach(before + 1);
		const next = await harness.poll();
		const first = await slow;
		expect(first.error).toBeUndefined();
		expect(next.error).toBeUndefined();
		expect([...ids(first), ...ids(next)]).toEqual(idsOf(sent));
		expect(await harness.executions()).toHaveLength(1);
	}, 30_000);

	it('a 429 asking for longer than half the poll interval is not waited out: the poll ends, declaring the wait', async () => {
		const harness = trigger({ pollTimes: { item: [{ mode: 'everyMinute' }] } });
		await harness.activate();
		inject({});
		sandbox().control.injectFailure({ status: 429, path: '/v1/sms', retryAfterSeconds: 40 });
		const before = smsReads().length;
		const run = await harness.poll();
		sandbox().control.clearFailures();
		expect((run.error as NodeApiError).failure).toEqual({
			cause: 'rate-limited',
			retryAfterMs: 40_000,
		});
		expect(smsReads().length - before).toBe(1);
		expect(ids(await harness.poll())).toHaveLength(1);
	}, 90_000);

	it('durable cursors: SMS arriving between publishing and the first scheduled poll are emitted, once', async () => {
		const harness = trigger({}, { cursors: 'durable' });
		const published = await harness.activate();
		expect(published).toMatchObject({ items: null, saved: false }); // n8n does not commit it
		const sent = inject({ count: 3, intervalSeconds: 0.01 });
		expect(ids(await harness.poll())).toEqual(idsOf(sent));
		expect(await drain(harness)).toEqual([]);
	});

	it.each(['staticData', 'durable'] as const)(
		'published into a running n8n, then a restart before the first emit (%s): nothing lost, nothing twice',
		async (cursors) => {
			const harness = trigger({}, { cursors });
			await harness.activate();
			const sent = inject({ count: 3, intervalSeconds: 0.01 });
			// n8n stops; what it saved is all a new process has.
			const restarted = trigger({}, { cursors });
			restarted.restore(JSON.parse(JSON.stringify(harness.storedStaticData)));
			// On the default path n8n polls at start ('init'); the durable scheduler does not.
			const first =
				cursors === 'staticData'
					? await restarted.poll({ activation: 'init' })
					: await restarted.poll();
			expect(ids(first)).toEqual(idsOf(sent));
			expect(await drain(restarted)).toEqual([]);
		},
	);

	it("an API whose clock is 5 minutes behind n8n's, behind a gateway whose Date is its own: what is sent after publishing is emitted, and nothing from before", async () => {
		sandbox().control.setClockSkew(-300);
		// In front of the sandbox: the same answers, with a Date header from n8n's clock.
		const proxy = await startFaultyProxy(sandbox().accountBaseUrl);
		proxy.gatewayDate(0);
		try {
			const harness = new PollHarness(triggerWorkflow(), {
				credentials: accountCredentials(
					sandbox(),
					sandbox().credentials.account.unrestricted,
					proxy.url,
				),
			});
			const before = inject({});
			expect((await harness.activate()).items).toBeNull();
			// Sent after publishing: stamped five minutes before it by n8n's clock.
			const sent = inject({});
			expect(ids(await harness.poll())).toEqual(idsOf(sent));
			expect(idsOf(before).some((id) => idsOf(sent).includes(id))).toBe(false);
			expect((await harness.poll()).items).toBeNull();
		} finally {
			await proxy.close();
		}
	});

	it('removing a filter after a quiet period starts from now instead of flooding old messages', async () => {
		const filtered = trigger({ peer: '+447700900321' });
		await filtered.activate();
		const mine = inject({ from: '+447700900321' });
		expect(ids(await filtered.poll())).toEqual(idsOf(mine));
		// A quiet period for this filter; others write meanwhile.
		inject({ from: '+447700900999', count: 3, intervalSeconds: 0.01, sentAt: after(mine) });
		expect((await filtered.poll()).items).toBeNull();
		const unfiltered = trigger({});
		unfiltered.restore(JSON.parse(JSON.stringify(filtered.storedStaticData)));
		expect((await unfiltered.poll()).items).toBeNull();
		const fresh = inject({ from: '+447700900888' });
		expect(ids(await unfiltered.poll())).toEqual(idsOf(fresh));
	});
});

describe('the credential', () => {
	it("is read afresh each poll on the one poll context n8n's default path keeps for an active workflow: a changed Base URL takes effect at the next poll", async () => {
		// Another API address, which refuses every key at once.
		const other = await startStubServer();
		other.reply({
			status: 401,
			body: { success: false, error: 'invalid_api_key', message: 'No.' },
		});
		try {
			const credentials = accountCredentials(sandbox());
			const harness = new PollHarness(triggerWorkflow(), { credentials, keepContext: true });
			await harness.activate();
			const sent = inject({});
			expect(ids(await harness.poll())).toEqual(idsOf(sent));
			// A poll that used the address kept from before would not reach the other one.
			credentials.commsAccountApi.baseUrl = other.url;
			const moved = await harness.poll();
			expect((moved.error as NodeApiError).failure).toEqual({ cause: 'credential-invalid' });
			expect(other.received).toHaveLength(1);
			credentials.commsAccountApi.baseUrl = sandbox().accountBaseUrl;
			const more = inject({ sentAt: after(sent) });
			expect(ids(await harness.poll())).toEqual(idsOf(more));
		} finally {
			await other.close();
		}
	});
});
