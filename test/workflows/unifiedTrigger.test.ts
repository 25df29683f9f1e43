/**
 * The Comms Unified Trigger run by n8n-core's own WebhookContext (harness/webhook.ts), with the
 * raw body and headers as n8n passes them and static data loaded and saved as n8n 2.41 does:
 * the six events start the workflow, every refusal answers 401 (or 400) and starts nothing,
 * with nothing of the secret or the expected signature in the answer or the log, the replay
 * window holds for deliveries arriving together, and the sandbox's own signed events reach
 * the workflow over HTTP.
 */
import { createHmac } from 'node:crypto';
import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeParameters,
	INodeType,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	CREDENTIAL_REFS,
	WebhookHarness,
	type WebhookHarnessOptions,
	type WorkflowJson,
} from '../../harness';
import {
	forgetCredentials,
	keptCredentials,
} from '../../nodes/CommsUnified/trigger/credentialCache';
import {
	bucketEnd,
	DEFAULT_WINDOW_SECONDS,
	KEY_LENGTH,
	MAX_REMEMBERED_EVENTS,
	recentEvents,
} from '../../nodes/CommsUnified/trigger/replay';
import { TEST_EMAILS, TEST_NUMBERS, UNIFIED_KEYS, WEBHOOK_SECRET } from '../../sandbox';
import { captureLogs } from '../support/logs';
import { unifiedApi, useSandbox } from '../support/sandbox';

const TRIGGER = 'Comms Unified Trigger';
const TYPE = 'n8n-nodes-comms-api.commsUnifiedTrigger';
const ALL_EVENTS = [
	'call.completed',
	'call.failed',
	'sms.delivered',
	'sms.failed',
	'email.delivered',
	'email.bounced',
];

/** A node after the trigger that keeps what reached it, and can hold the run until released. */
const reached: INodeExecutionData[][] = [];
let hold: Promise<void> | undefined;
class Downstream implements INodeType {
	description: INodeType['description'] = {
		displayName: 'Downstream',
		name: 'downstream',
		group: ['transform'],
		version: 1,
		description: 'Test fixture',
		defaults: { name: 'Downstream' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		reached.push(items);
		if (hold) await hold;
		return [items];
	}
}
const nodeTypes = { 'test.downstream': new Downstream() };

function workflow(parameters: INodeParameters = {}): WorkflowJson {
	return {
		name: 'Unified events',
		nodes: [
			{
				id: 'trigger-1',
				name: TRIGGER,
				type: TYPE,
				typeVersion: 1,
				position: [0, 0],
				webhookId: 'd6f1c2a4-unified',
				parameters,
				credentials: { commsUnifiedApi: CREDENTIAL_REFS.commsUnifiedApi },
			},
			{
				id: 'downstream-1',
				name: 'Downstream',
				type: 'test.downstream',
				typeVersion: 1,
				position: [220, 0],
				parameters: {},
			},
		],
		connections: { [TRIGGER]: { main: [[{ node: 'Downstream', type: 'main', index: 0 }]] } },
	};
}

/** The credential as n8n decrypts it; `null` leaves the Webhook Secret out altogether. */
const credentials = (
	webhookSecret: string | null = WEBHOOK_SECRET,
): Record<string, ICredentialDataDecryptedObject> => ({
	commsUnifiedApi: {
		apiKey: UNIFIED_KEYS.live,
		endpointUrl: 'http://127.0.0.1:4010/unified',
		...(webhookSecret === null ? {} : { webhookSecret }),
	},
});

/** Every harness of the current test, so its executions are finished before the next test. */
const harnesses: WebhookHarness[] = [];
let workflowCount = 0;
function harness(
	parameters: INodeParameters = {},
	options: WebhookHarnessOptions = {},
): WebhookHarness {
	workflowCount += 1;
	const created = new WebhookHarness(workflow(parameters), {
		credentials: credentials(),
		nodeTypes,
		workflowId: `wf-${workflowCount}`,
		...options,
	});
	harnesses.push(created);
	return created;
}
afterEach(async () => {
	await Promise.all(harnesses.splice(0).map((h) => h.executions()));
});

const sign = (body: string | Buffer, secret = WEBHOOK_SECRET) =>
	createHmac('sha256', secret).update(body).digest('hex');

/** A payload of each event as the sandbox sends it (docs/sandbox.md, Webhooks). */
function payload(event: string, timestamp = new Date().toISOString()) {
	const common = { cost: 3, user_id: 'usr_sbx_0001', api_key: 'key_live****5b2d' };
	const [kind, outcome] = event.split('.');
	const reason = ['failed', 'bounced'].includes(outcome) ? { reason: 'Could not deliver.' } : {};
	const data =
		kind === 'call'
			? {
					call_id: `ucall_${outcome}`,
					to: '+447700900123',
					from: '+441632960100',
					status: outcome,
					duration: outcome === 'completed' ? 60 : 0,
					...common,
					...reason,
				}
			: kind === 'sms'
				? {
						message_id: `usms_${outcome}`,
						to: '+447700900123',
						from: '+447700900010',
						segments: 1,
						status: outcome,
						...common,
						...reason,
					}
				: {
						message_id: `uemail_${outcome}`,
						to: 'someone@example.com',
						subject: 'Hello',
						status: outcome,
						...common,
						...reason,
					};
	return { event, timestamp, data };
}

/** A signed delivery of `body`, as the sandbox makes it. */
function signed(body: string | Buffer, headers: Record<string, string> = {}) {
	return {
		headers: { 'content-type': 'application/json', 'x-signature': sign(body), ...headers },
		body,
	};
}

let logs: string[];
beforeAll(() => {
	logs = captureLogs();
});
beforeEach(() => {
	reached.length = 0;
	hold = undefined;
	logs.length = 0;
	recentEvents.clear();
	forgetCredentials();
});
// The kept credential's expiry timer must not outlive the file.
afterAll(forgetCredentials);

describe('signed events start the workflow', () => {
	it.each(ALL_EVENTS)(
		'%s: one item with its fields and the event name, answered 200 at once',
		async (event) => {
			const h = harness();
			const sent = payload(event);
			const call = await h.deliver(signed(JSON.stringify(sent)));
			expect(call.reply).toMatchObject({ status: 200, json: { message: 'Workflow was started' } });
			const run = await call.execution!;
			expect(run.error).toBeUndefined();
			// eventId: the event's identity, the same for every copy of it (a workflow behind
			// several webhook processes drops a copy by it: docs/queue-mode.md).
			const id =
				(sent.data as { call_id?: string; message_id?: string }).call_id ??
				(sent.data as { message_id?: string }).message_id;
			const item = { event, timestamp: sent.timestamp, eventId: `${event}:${id}`, ...sent.data };
			expect(run.output(TRIGGER).map((item) => item.json)).toEqual([item]);
			expect(reached.map((items) => items.map((item) => item.json))).toEqual([[item]]);
		},
	);

	it('answers before the workflow has finished, so the sender does not time out and send again', async () => {
		let release!: () => void;
		hold = new Promise((resolve) => (release = resolve));
		const h = harness();
		const call = await h.deliver(signed(JSON.stringify(payload('call.completed'))));
		expect(call.reply.status).toBe(200);
		let finished = false;
		void call.execution!.then(() => (finished = true));
		await new Promise((resolve) => setImmediate(resolve));
		expect(finished).toBe(false);
		release();
		await call.execution;
		expect(finished).toBe(true);
	});

	it('Include Headers adds the request headers', async () => {
		const h = harness({ options: { includeHeaders: true } });
		const body = JSON.stringify(payload('sms.delivered'));
		const call = await h.deliver(signed(body, { 'X-Webhook-Id': 'whd_000042' }));
		const [item] = (await call.execution!).output(TRIGGER);
		expect(item.json.headers).toMatchObject({
			'content-type': 'application/json',
			'x-webhook-id': 'whd_000042',
			'x-signature': sign(body),
		});
		expect(item.json.message_id).toBe('usms_delivered');
	});

	it.each<[string, (hex: string) => string]>([
		['upper-case hex', (hex) => hex.toUpperCase()],
		['a sha256= prefix', (hex) => `sha256=${hex}`],
	])('takes the signature in %s over the raw bytes', async (_form, form) => {
		const body = JSON.stringify(payload('call.completed'));
		const call = await harness().deliver(signed(body, { 'x-signature': form(sign(body)) }));
		expect(call.reply.status).toBe(200);
		expect((await call.execution!).error).toBeUndefined();
	});

	it('takes the signature from the Signature Header option, with a sha256= prefix', async () => {
		const h = harness({ options: { signatureHeader: 'X-Hub-Signature-256' } });
		const body = JSON.stringify(payload('email.bounced'));
		const call = await h.deliver({
			headers: {
				'content-type': 'application/json',
				'x-hub-signature-256': `sha256=${sign(body)}`,
			},
			body,
		});
		expect(call.reply.status).toBe(200);
		expect((await call.execution!).output(TRIGGER)[0].json.event).toBe('email.bounced');
		// …and no longer from x-signature.
		const plain = await h.deliver(signed(body));
		expect(plain.reply.status).toBe(401);
	});

	it('checks the bytes as received: a signed body with a byte-order mark or odd spacing is accepted', async () => {
		const h = harness();
		const now = new Date().toISOString();
		const body = `\uFEFF{ "event" : "call.failed",\n "timestamp": "${now}", "data": {"call_id": "ucall_x"} }`;
		const call = await h.deliver(signed(Buffer.from(body, 'utf8')));
		expect((await call.execution!).output(TRIGGER)[0].json).toEqual({
			event: 'call.failed',
			timestamp: now,
			eventId: 'call.failed:ucall_x',
			call_id: 'ucall_x',
		});
	});

	it('masks a full API key, ours or another, should a sender put one in an event', async () => {
		const h = harness();
		const sent = payload('call.completed');
		sent.data.api_key = UNIFIED_KEYS.live;
		const other = {
			...sent,
			data: { ...sent.data, call_id: 'ucall_other', api_key: 'key_test_someone_elses_9f8e7d' },
		};
		const runs = await Promise.all(
			[
				await h.deliver(signed(JSON.stringify(sent))),
				await h.deliver(signed(JSON.stringify(other))),
			].map((call) => call.execution!),
		);
		const items = runs.map((run) => run.output(TRIGGER)[0]);
		expect(JSON.stringify(items)).not.toContain(UNIFIED_KEYS.live);
		expect(items.map((item) => item.json.api_key)).toEqual(['****', 'key_test_****']);
	});

	it('acknowledges events not selected, and unknown ones, with 200 and starts nothing', async () => {
		const h = harness({ events: ['call.completed'] });
		for (const event of ['sms.delivered', 'email.bounced', 'call.failed', 'call.started']) {
			const call = await h.deliver(signed(JSON.stringify(payload(event))));
			expect(call.reply).toMatchObject({ status: 200, json: { message: 'Webhook call received' } });
			expect(call.execution).toBeUndefined();
		}
		expect(reached).toEqual([]);
	});
});

describe('refusals: 401, no execution, nothing of the secret or the expected signature anywhere', () => {
	const body = JSON.stringify(payload('call.completed'));
	const expected = sign(body);
	const reserialised = JSON.stringify(JSON.parse(body), null, 2);
	const reordered = (() => {
		const { data, ...rest } = JSON.parse(body);
		return JSON.stringify({ data, ...rest });
	})();
	const flipped = (at: number) => {
		const bytes = Buffer.from(body);
		bytes[at] ^= 0x20;
		return bytes;
	};

	const cases: Array<
		[string, { headers: Record<string, string | string[]>; body: string | Buffer }]
	> = [
		['no signature header', { headers: { 'content-type': 'application/json' }, body }],
		[
			'an empty signature',
			{ headers: { 'content-type': 'application/json', 'x-signature': '' }, body },
		],
		[
			'a malformed signature',
			{ headers: { 'content-type': 'application/json', 'x-signature': 'not-a-signature' }, body },
		],
		[
			'a signature that is not hex',
			{ headers: { 'content-type': 'application/json', 'x-signature': 'g'.repeat(64) }, body },
		],
		[
			'a base64 signature',
			{
				headers: {
					'content-type': 'application/json',
					'x-signature': Buffer.from(expected, 'hex').toString('base64'),
				},
				body,
			},
		],
		[
			'two signature headers',
			{
				headers: { 'content-type': 'application/json', 'x-signature': [expected, expected] },
				body,
			},
		],
		[
			'a truncated signature',
			{
				headers: { 'content-type': 'application/json', 'x-signature': expected.slice(0, 63) },
				body,
			},
		],
		[
			'a signature made with another secret',
			{
				headers: { 'content-type': 'application/json', 'x-signature': sign(body, 'whsec_guess') },
				body,
			},
		],
		[
			'the signature in another header',
			{
				headers: {
					'content-type': 'application/json',
					'x-hub-signature-256': `sha256=${expected}`,
				},
				body,
			},
		],
		[
			'a body changed by one byte (first)',
			{
				headers: { 'content-type': 'application/json', 'x-signature': expected },
				body: flipped(2),
			},
		],
		[
			'a body changed by one byte (in the data)',
			{
				headers: { 'content-type': 'application/json', 'x-signature': expected },
				body: flipped(body.indexOf('ucall')),
			},
		],
		[
			'a body with one byte more',
			{
				headers: { 'content-type': 'application/json', 'x-signature': expected },
				body: `${body} `,
			},
		],
		[
			'the same JSON serialised again with spacing',
			{
				headers: { 'content-type': 'application/json', 'x-signature': expected },
				body: reserialised,
			},
		],
		[
			'the same JSON with its keys reordered',
			{ headers: { 'content-type': 'application/json', 'x-signature': expected }, body: reordered },
		],
		[
			'a signed body with a different event inside',
			{
				headers: { 'content-type': 'application/json', 'x-signature': expected },
				body: body.replace('call.completed', 'call.failed   '),
			},
		],
		[
			'multipart form data (no raw body)',
			{
				headers: { 'content-type': 'multipart/form-data; boundary=x', 'x-signature': expected },
				body,
			},
		],
	];

	it.each(cases)('%s', async (_label, request) => {
		const h = harness();
		const call = await h.deliver(request);
		expect(call.error).toBeUndefined();
		expect(call.reply.status).toBe(401);
		expect(call.reply.json).toEqual({ message: 'Unauthorized' });
		expect(call.execution).toBeUndefined();
		expect(reached).toEqual([]);
		const seen = [call.reply.text, JSON.stringify(call.reply.headers), ...logs].join('\n');
		expect(seen).not.toContain(WEBHOOK_SECRET);
		expect(seen).not.toContain(expected);
		expect(seen.toLowerCase()).not.toContain(sign(request.body).toLowerCase());
		expect(logs.some((line) => line.startsWith('warn') && line.includes('refused'))).toBe(true);
	});

	it('a signed body that is not a JSON event is refused with 400 and starts nothing', async () => {
		const h = harness();
		for (const text of ['not json', '[1,2]', '{"data":{}}', '"call.completed"']) {
			const call = await h.deliver({
				headers: { 'content-type': 'text/plain', 'x-signature': sign(text) },
				body: text,
			});
			expect(call.reply.status).toBe(400);
			expect(call.execution).toBeUndefined();
		}
		expect(reached).toEqual([]);
	});
});

describe('without a Webhook Secret', () => {
	it('refuses to activate, saying what to set', async () => {
		for (const secret of [null, '', '   ']) {
			const h = harness({}, { credentials: credentials(secret) });
			const error = await h.activate().then(
				() => undefined,
				(e: unknown) => e,
			);
			expect(error).toBeInstanceOf(NodeOperationError);
			expect((error as NodeOperationError).message).toBe(
				'The Comms Unified API credential has no Webhook Secret',
			);
			expect((error as NodeOperationError).description).toContain(
				'paste the webhook signing secret',
			);
		}
	});

	it('also refuses at request time (a secret removed after activation): 401, nothing starts, a warning is logged', async () => {
		const h = harness({}, { credentials: credentials('') });
		const body = JSON.stringify(payload('call.completed'));
		const call = await h.deliver(signed(body));
		expect(call.reply).toMatchObject({ status: 401, json: { message: 'Unauthorized' } });
		expect(call.execution).toBeUndefined();
		expect(logs.join('\n')).toContain('has no Webhook Secret');
	});
});

describe('the credential, kept for a minute once it has verified a delivery', () => {
	/** A delivery of `event` signed with `secret`. */
	const signedWith = (secret: string, event: string) => {
		const body = JSON.stringify(payload(event));
		return signed(body, { 'x-signature': sign(body, secret) });
	};

	it('a new Webhook Secret takes effect at once; a delivery no secret verifies is still refused', async () => {
		const creds = credentials();
		const h = harness({}, { credentials: creds });
		expect(
			(await h.deliver(signed(JSON.stringify(payload('call.completed'))))).execution,
		).toBeDefined();
		creds.commsUnifiedApi.webhookSecret = 'whsec_rotated_0123456789';
		const withNew = await h.deliver(signedWith('whsec_rotated_0123456789', 'sms.delivered'));
		expect(withNew.execution).toBeDefined();
		const refused = await h.deliver(signedWith('not-the-secret', 'sms.failed'));
		expect(refused.reply.status).toBe(401);
		expect(refused.execution).toBeUndefined();
	});

	it('a secret removed after a delivery verified: the next delivery with another signature is refused', async () => {
		const creds = credentials();
		const h = harness({}, { credentials: creds });
		expect(
			(await h.deliver(signed(JSON.stringify(payload('call.failed'))))).execution,
		).toBeDefined();
		creds.commsUnifiedApi.webhookSecret = '';
		const call = await h.deliver(signedWith('anything', 'email.delivered'));
		expect(call.reply.status).toBe(401);
		expect(logs.join('\n')).toContain('has no Webhook Secret');
	});

	it('is dropped when the workflow is unpublished, so a deleted credential leaves nothing behind', async () => {
		const h = harness();
		await h.activate();
		expect(
			(await h.deliver(signed(JSON.stringify(payload('sms.delivered'))))).execution,
		).toBeDefined();
		expect(keptCredentials()).toBe(1);
		await h.deactivate();
		expect(keptCredentials()).toBe(0);
	});

	it('is dropped when it expires, by a timer, with no further delivery', async () => {
		const h = harness();
		jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
		try {
			expect(
				(await h.deliver(signed(JSON.stringify(payload('call.completed'))))).execution,
			).toBeDefined();
			expect(keptCredentials()).toBe(1);
			await jest.advanceTimersByTimeAsync(59_000);
			expect(keptCredentials()).toBe(1);
			await jest.advanceTimersByTimeAsync(2_000);
			expect(keptCredentials()).toBe(0);
		} finally {
			jest.useRealTimers();
		}
	});
});

describe('activation (the API registers nothing)', () => {
	it('succeeds with a secret, without calling anything, and deactivates', async () => {
		const h = harness();
		await expect(h.activate()).resolves.toBeUndefined();
		await expect(h.deactivate()).resolves.toBeUndefined();
	});

	it.each([
		[{ events: [] }, 'Select at least one event in Events'],
		[
			{ options: { signatureHeader: 'x signature' } },
			'Signature Header "x signature" is not an HTTP header name',
		],
		[
			{ options: { replayWindowSeconds: -5 } },
			'Replay Window (Seconds) "-5" must be a whole number from 0 (off) to 604800',
		],
	])('refuses parameters it could not honour (%p)', async (parameters, message) => {
		await expect(harness(parameters).activate()).rejects.toThrow(message);
	});
});

describe('replay window', () => {
	const WINDOW = 300;
	const withWindow = () => harness({ options: { replayWindowSeconds: WINDOW } });
	/** The events static data remembers, one key each. */
	const staticEvents = (h: WebhookHarness) => {
		const store = (
			h.storedStaticData[`node:${TRIGGER}`] as
				{ recentEvents?: { b?: Record<string, string> } } | undefined
		)?.recentEvents;
		return (
			Object.values(store?.b ?? {})
				.join('')
				.match(new RegExp(`.{${KEY_LENGTH}}`, 'g')) ?? []
		);
	};

	it.each([
		['older than the window', () => new Date(Date.now() - (WINDOW + 5) * 1000).toISOString()],
		[
			'further ahead than the window',
			() => new Date(Date.now() + (WINDOW + 5) * 1000).toISOString(),
		],
		['missing', () => undefined],
		['without an offset', () => new Date().toISOString().replace('Z', '')],
	])('refuses an event whose timestamp is %s: 401, nothing starts', async (_label, timestamp) => {
		const h = withWindow();
		const body = JSON.stringify({ ...payload('call.completed'), timestamp: timestamp() });
		const call = await h.deliver(signed(body));
		expect(call.reply.status).toBe(401);
		expect(call.reply.json).toEqual({
			message: "Unauthorized: the event's timestamp is missing or outside the accepted window",
		});
		expect(call.execution).toBeUndefined();
		expect([call.reply.text, ...logs].join('\n')).not.toContain(sign(body));
	});

	it('takes an event inside the window; with the window at 0 (off), an old event is taken too', async () => {
		const old = JSON.stringify(
			payload('call.completed', new Date(Date.now() - 86_400_000).toISOString()),
		);
		const off = harness({ options: { replayWindowSeconds: 0 } });
		expect((await off.deliver(signed(old))).execution).toBeDefined();
		expect((await off.deliver(signed(old))).execution).toBeDefined();
		expect(
			(await withWindow().deliver(signed(JSON.stringify(payload('call.completed'))))).execution,
		).toBeDefined();
	});

	it('is on by default: a delivery dated 2001 is refused, a replayed one runs once, a late retry inside the hour is taken', async () => {
		const h = harness();
		const ancient = JSON.stringify(payload('call.completed', '2001-09-09T01:46:40.000Z'));
		const refused = await h.deliver(signed(ancient));
		expect(refused.reply.status).toBe(401);
		expect(refused.execution).toBeUndefined();
		const fresh = signed(JSON.stringify(payload('sms.delivered')));
		expect((await h.deliver(fresh)).execution).toBeDefined();
		const replayed = await h.deliver(fresh);
		expect(replayed.reply.status).toBe(200);
		expect(replayed.execution).toBeUndefined();
		const lateRetry = JSON.stringify(
			payload('email.bounced', new Date(Date.now() - 50 * 60_000).toISOString()),
		);
		expect((await h.deliver(signed(lateRetry))).execution).toBeDefined();
		expect(await h.executions()).toHaveLength(2);
		expect(staticEvents(h)).toHaveLength(2);
		expect(DEFAULT_WINDOW_SECONDS).toBe(3600);
	});

	it('with the store full of events still inside the window: 503 with Retry-After, a warning, nothing starts and nothing is forgotten', async () => {
		const h = harness();
		const end = bucketEnd(Date.now() + DEFAULT_WINDOW_SECONDS * 1000, DEFAULT_WINDOW_SECONDS);
		const keys = Array.from({ length: MAX_REMEMBERED_EVENTS }, (_, i) =>
			i.toString(36).padStart(KEY_LENGTH, '0'),
		);
		h.storedStaticData[`node:${TRIGGER}`] = { recentEvents: { v: 2, b: { [end]: keys.join('') } } };
		const call = await h.deliver(signed(JSON.stringify(payload('call.completed'))));
		expect(call.reply.status).toBe(503);
		expect(Number(call.reply.headers['retry-after'])).toBeGreaterThan(0);
		expect(call.reply.json).toEqual({ message: 'Too many recent events: retry later' });
		expect(call.execution).toBeUndefined();
		expect(logs.join('\n')).toContain(
			`the replay store already holds ${MAX_REMEMBERED_EVENTS} events still inside the 3600 s window`,
		);
		expect(staticEvents(h)).toHaveLength(MAX_REMEMBERED_EVENTS);
	});

	it('acknowledges a repeat delivery with 200 and starts nothing, also when the repeat is serialised differently', async () => {
		const h = withWindow();
		const sent = payload('sms.failed');
		const first = await h.deliver(signed(JSON.stringify(sent)));
		const again = await h.deliver(signed(JSON.stringify(sent)));
		const reserialised = await h.deliver(signed(JSON.stringify(sent, null, 1)));
		expect(first.execution).toBeDefined();
		expect(again.reply).toMatchObject({ status: 200, json: { message: 'Webhook call received' } });
		expect(again.execution).toBeUndefined();
		expect(reserialised.execution).toBeUndefined();
		expect(await h.executions()).toHaveLength(1);
	});

	it('two deliveries of one event arriving together start it once', async () => {
		const h = withWindow();
		const request = signed(JSON.stringify(payload('call.completed')));
		const calls = await Promise.all([h.deliver(request), h.deliver(request), h.deliver(request)]);
		expect(calls.map((call) => call.reply.status)).toEqual([200, 200, 200]);
		expect(calls.filter((call) => call.execution)).toHaveLength(1);
		await h.executions();
		expect(reached).toHaveLength(1);
	});

	it('deliveries of different events arriving together all start, and all stay remembered despite last-writer-wins saves', async () => {
		const h = withWindow();
		const events = ALL_EVENTS.map((event) => signed(JSON.stringify(payload(event))));
		const calls = await Promise.all(events.map((request) => h.deliver(request)));
		expect(calls.filter((call) => call.execution)).toHaveLength(6);
		expect(staticEvents(h)).toHaveLength(6);
	});

	it('a repeat reaching a process that never saw the event (or after a restart) is caught by static data', async () => {
		const h = withWindow();
		const request = signed(JSON.stringify(payload('email.delivered')));
		await h.deliver(request);
		expect(staticEvents(h)).toHaveLength(1);
		recentEvents.clear(); // this process forgets: only what n8n saved remains
		const repeat = await h.deliver(request);
		expect(repeat.reply.status).toBe(200);
		expect(repeat.execution).toBeUndefined();
	});

	it('keeps test and production apart, and workflows apart', async () => {
		const body = JSON.stringify(payload('call.completed'));
		const production = withWindow();
		const test = harness(
			{ options: { replayWindowSeconds: WINDOW } },
			{ workflowId: 'wf-same', mode: 'manual' },
		);
		const live = harness({ options: { replayWindowSeconds: WINDOW } }, { workflowId: 'wf-same' });
		expect((await production.deliver(signed(body))).execution).toBeDefined();
		expect((await test.deliver(signed(body))).execution).toBeDefined();
		expect((await live.deliver(signed(body))).execution).toBeDefined();
		expect((await live.deliver(signed(body))).execution).toBeUndefined();
	});
});

describe("the sandbox's own signed events, over HTTP", () => {
	const sandbox = useSandbox({ frozenClock: true });
	let h: WebhookHarness;
	let server: Awaited<ReturnType<WebhookHarness['listen']>>;

	beforeEach(async () => {
		h = harness({ options: { replayWindowSeconds: 3600 } });
		server = await h.listen();
	});
	afterEach(async () => {
		await server.close();
	});

	it("a voice call whose webhook_url is the trigger's Production URL: its call.completed reaches the workflow", async () => {
		const made = await unifiedApi(sandbox(), UNIFIED_KEYS.live)('voice', 'make_call', {
			to: TEST_NUMBERS.customer,
			message: 'Your order is ready.',
			webhook_url: server.productionUrl,
		});
		expect(made.status).toBe(200);
		const callId = made.body.result.call_id as string;
		await sandbox().control.advanceClock(600);
		const [delivery] = sandbox().control.deliveries();
		expect(delivery).toMatchObject({
			event: 'call.completed',
			url: server.productionUrl,
			responseStatus: 200,
		});
		const runs = await h.executions();
		expect(runs).toHaveLength(1);
		expect(runs[0].output(TRIGGER)[0].json).toMatchObject({
			event: 'call.completed',
			call_id: callId,
			status: 'completed',
			to: TEST_NUMBERS.customer,
			duration: 60,
		});
		expect(reached[0][0].json.call_id).toBe(callId);

		// The same delivery again (a retrying sender): 200, nothing new.
		const { request } = await import('undici');
		const repeat = await request(server.productionUrl, {
			method: 'POST',
			headers: delivery.headers,
			body: delivery.body,
		});
		expect(repeat.statusCode).toBe(200);
		await repeat.body.dump();
		expect(await h.executions()).toHaveLength(1);

		// A forged one (the body changed, the signature kept): 401.
		const forged = await request(server.productionUrl, {
			method: 'POST',
			headers: delivery.headers,
			body: delivery.body.replace('"duration":60', '"duration":6'),
		});
		expect(forged.statusCode).toBe(401);
		await forged.body.dump();
		expect(await h.executions()).toHaveLength(1);
	});

	it('all six events from the sandbox (calls, SMS and email through eventsWebhookUrl) reach the workflow', async () => {
		sandbox().control.setEventsWebhookUrl(server.productionUrl);
		const send = unifiedApi(sandbox(), UNIFIED_KEYS.test);
		await send('voice', 'make_call', {
			to: TEST_NUMBERS.customer,
			message: 'Hi',
			webhook_url: server.productionUrl,
		});
		await send('voice', 'make_call', {
			to: TEST_NUMBERS.deliveryFails,
			message: 'Hi',
			webhook_url: server.productionUrl,
		});
		await send('sms', 'send', { to: TEST_NUMBERS.customer, message: 'Hi' });
		await send('sms', 'send', { to: TEST_NUMBERS.deliveryFails, message: 'Hi' });
		await send('email', 'send', { to: TEST_EMAILS.delivers, subject: 'Hi', html: '<p>Hi</p>' });
		await send('email', 'send', { to: TEST_EMAILS.bounces, subject: 'Hi', html: '<p>Hi</p>' });
		await sandbox().control.advanceClock(600);
		const deliveries = sandbox().control.deliveries();
		expect(deliveries.map((d) => d.responseStatus)).toEqual([200, 200, 200, 200, 200, 200]);
		const events = (await h.executions()).map((run) => run.output(TRIGGER)[0].json.event).sort();
		expect(events).toEqual([...ALL_EVENTS].sort());
	});

	it('with a different secret in the credential, the sandbox’s events are refused with 401', async () => {
		const wrong = harness({}, { credentials: credentials('whsec_not_the_sandbox_one') });
		const wrongServer = await wrong.listen();
		try {
			await unifiedApi(sandbox(), UNIFIED_KEYS.test)('voice', 'make_call', {
				to: TEST_NUMBERS.customer,
				message: 'Hi',
				webhook_url: wrongServer.productionUrl,
			});
			await sandbox().control.advanceClock(600);
			expect(sandbox().control.deliveries()[0].responseStatus).toBe(401);
			expect(await wrong.executions()).toEqual([]);
		} finally {
			await wrongServer.close();
		}
	});
});
