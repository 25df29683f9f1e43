/**
 * The Comms Account node, run by n8n's engine against the sandbox over HTTP.
 */
import type { INodeParameters } from 'n8n-workflow';

import { runListSearch } from '../../harness';
import { CommsAccount } from '../../nodes/CommsAccount/CommsAccount.node';
import { AGENT_PHONE, TEST_NUMBERS } from '../../sandbox';
import { accountCredentials, type NodeRun, runNode, useSandbox } from '../support/sandbox';
import { items, singleNodeWorkflow } from '../support/workflows';

const ACCOUNT = 'n8n-nodes-comms-api.commsAccount';
const sandbox = useSandbox();

const rl = (value: string) => ({ __rl: true, mode: 'list', value });

const run = (parameters: INodeParameters, options?: NodeRun) =>
	runNode(sandbox(), 'account', parameters, options);

const apiRequests = (path: string, method?: string) =>
	sandbox()
		.requests()
		.filter((r) => r.path === path && (!method || r.method === method));

describe('number', () => {
	it('getAll lists the account numbers, one item each', async () => {
		const result = await run({ resource: 'number', operation: 'getAll', returnAll: true });
		expect(result.error).toBeUndefined();
		const numbers = result.output('Node');
		expect(numbers.map((n) => n.json.phoneDocId)).toEqual([
			sandbox().numbers.main,
			sandbox().numbers.noSms,
			sandbox().numbers.smsDisabled,
		]);
		expect(numbers.every((n) => JSON.stringify(n.pairedItem) === JSON.stringify({ item: 0 }))).toBe(
			true,
		);
		expect(apiRequests('/v1/numbers')[0].keyMask).toMatch(/^acc_sbx_/);
	});

	it('getAll honours Limit', async () => {
		const result = await run({
			resource: 'number',
			operation: 'getAll',
			returnAll: false,
			limit: 2,
		});
		expect(result.output('Node')).toHaveLength(2);
	});

	it('the numbers dropdown shows label and number, filters by what is typed, and fetches once', async () => {
		const json = singleNodeWorkflow(ACCOUNT, { resource: 'sms', operation: 'send' });
		const credentials = accountCredentials(sandbox());
		const all = await runListSearch(json, 'Node', 'getNumbers', { credentials });
		expect(all.results).toHaveLength(3);
		expect(all.results[0]).toEqual({
			name: 'Sandbox Trading - Main line · +441632960001 · SMS +447700900001',
			value: sandbox().numbers.main,
		});
		expect(
			(
				await runListSearch(json, 'Node', 'getNumbers', { credentials, filter: 'sales' })
			).results.map((r) => r.value),
		).toEqual([sandbox().numbers.smsDisabled]);
		expect(
			(
				await runListSearch(json, 'Node', 'getNumbers', { credentials, filter: '1632 960002' })
			).results.map((r) => r.value),
		).toEqual([sandbox().numbers.noSms]);
		expect(apiRequests('/v1/numbers')).toHaveLength(1);
	});

	it('a number that cannot send SMS says so first, so a cut-off label still shows it', async () => {
		const json = singleNodeWorkflow(ACCOUNT, { resource: 'call', operation: 'create' });
		const { results } = await runListSearch(json, 'Node', 'getNumbers', {
			credentials: accountCredentials(sandbox()),
		});
		const byValue = Object.fromEntries(results.map((r) => [r.value, r.name]));
		expect(byValue[sandbox().numbers.noSms]).toMatch(/^No SMS · /);
		expect(byValue[sandbox().numbers.smsDisabled]).toMatch(/^SMS disabled · /);
	});

	it('SMS Send offers only the numbers that can send SMS', async () => {
		const json = singleNodeWorkflow(ACCOUNT, { resource: 'sms', operation: 'send' });
		const { results } = await runListSearch(json, 'Node', 'getSmsNumbers', {
			credentials: accountCredentials(sandbox()),
		});
		expect(results.map((r) => r.value)).toEqual([sandbox().numbers.main]);
		expect(results[0].name).toMatch(/^SMS \+447700900001 · /);
		// ... and that is the list SMS Send's Phone Number field opens, while calls list every number.
		const listMethod = (operation: string) =>
			new CommsAccount().description.properties
				.find(
					(p) =>
						p.name === 'phoneDocId' &&
						p.displayOptions?.show?.operation?.includes(operation) &&
						p.displayOptions?.show?.resource?.includes(operation === 'send' ? 'sms' : 'call'),
				)
				?.modes?.find((mode) => mode.name === 'list')?.typeOptions?.searchListMethod;
		expect(listMethod('send')).toBe('getSmsNumbers');
		expect(listMethod('create')).toBe('getNumbers');
	});
});

describe('sms.send', () => {
	const send = (extra: INodeParameters = {}) => ({
		resource: 'sms',
		operation: 'send',
		phoneDocId: rl(sandbox().numbers.main),
		to: TEST_NUMBERS.customer,
		message: 'Hello from n8n',
		...extra,
	});

	it('sends from the number and shows the segments used', async () => {
		const result = await run(send({ message: 'x'.repeat(161) }));
		expect(result.error).toBeUndefined();
		const [item] = result.output('Node');
		expect(item.json).toMatchObject({
			status: 'sent',
			from: '+447700900001',
			to: TEST_NUMBERS.customer,
			phoneDocId: sandbox().numbers.main,
			segmentsUsed: 2,
		});
		expect(item.json.success).toBeUndefined();
		// One segments field, the API's, not a second one of ours beside it.
		expect(Object.keys(item.json).filter((key) => /segment/i.test(key))).toEqual(['segmentsUsed']);
		const [request] = apiRequests('/v1/sms', 'POST');
		expect(request.body).toEqual({
			phoneDocId: sandbox().numbers.main,
			to: TEST_NUMBERS.customer,
			message: 'x'.repeat(161),
		});
	});

	it('normalises a national number with the Default Country option', async () => {
		const result = await run(send({ to: '07700 900123', options: { defaultCountry: 'GB' } }));
		expect(result.output('Node')[0].json.to).toBe('+447700900123');
	});

	it('fails an invalid number per item, naming parameter and value, and sends nothing for it', async () => {
		const input = items(3, (i) => ({
			to: ['+44 7700 900123', 'not a number', '+44 7700 900124'][i],
		}));
		const result = await run(send({ to: '={{ $json.to }}' }), { input, continueOnFail: true });
		const output = result.output('Node');
		expect(output).toHaveLength(3);
		expect(output[1].json.error).toBe(
			'To "not a number" is not a phone number: use digits, spaces and an optional leading +, with no letters or extensions',
		);
		expect(output[1].pairedItem).toEqual({ item: 1 });
		expect(output[0].json.to).toBe('+447700900123');
		expect(output[2].json.to).toBe('+447700900124');
		expect(apiRequests('/v1/sms', 'POST')).toHaveLength(2);
	});

	it('without Continue On Fail, bad input stops the node before any SMS is sent', async () => {
		const input = items(3, (i) => ({ to: ['+44 7700 900123', '+44 7700 900124', '12'][i] }));
		const result = await run(send({ to: '={{ $json.to }}' }), { input });
		expect(result.error?.message).toMatch(/^To "12" is not a phone number/);
		expect(apiRequests('/v1/sms', 'POST')).toHaveLength(0);
	});

	it('refuses a message over 1600 characters before sending', async () => {
		const result = await run(send({ message: 'y'.repeat(1601) }), { continueOnFail: true });
		expect(result.output('Node')[0].json.error).toBe(
			'Message is 1601 characters long; the limit is 1600',
		);
		expect(apiRequests('/v1/sms', 'POST')).toHaveLength(0);
	});

	it('refuses an empty message and a missing number', async () => {
		const result = await run(send({ message: '  ' }), { continueOnFail: true });
		expect(result.output('Node')[0].json.error).toBe('Message is required but was empty');
		// n8n itself refuses an empty required parameter; an expression can still come out empty.
		const noNumber = await run(
			send({ phoneDocId: { __rl: true, mode: 'id', value: '={{ "" }}' } }),
			{ continueOnFail: true },
		);
		expect(noNumber.output('Node')[0].json.error).toMatch(/^Phone Number is required/);
		expect(apiRequests('/v1/sms', 'POST')).toHaveLength(0);
	});

	it.each([
		['noSms', 'phoneDoc_sms_not_configured', /no SMS sender paired/],
		['smsDisabled', 'phoneDoc_sms_disabled', /SMS sending is disabled/],
	] as const)('maps %s to %s', async (number, code, message) => {
		const result = await run(send({ phoneDocId: rl(sandbox().numbers[number]) }), {
			continueOnFail: true,
		});
		expect(result.output('Node')[0].json).toMatchObject({ apiCode: code, httpCode: '400' });
		expect(result.output('Node')[0].json.error).toMatch(message);
	});

	it('maps an unknown number to phoneDoc_not_found', async () => {
		const result = await run(send({ phoneDocId: { __rl: true, mode: 'id', value: 'pdoc_nope' } }));
		expect(result.error?.message).toMatch(/No number with that ID/);
	});

	it('maps a number outside a restricted key to phoneDocId_not_permitted', async () => {
		const result = await run(send({ phoneDocId: rl(sandbox().numbers.noSms) }), {
			key: sandbox().credentials.account.restricted,
		});
		expect(result.error?.message).toMatch(/restricted to other numbers/);
	});

	it('maps a carrier refusal (502) with its carrier code', async () => {
		const result = await run(send({ to: TEST_NUMBERS.carrierRejects }));
		expect(result.error?.message).toMatch(/carrier rejected the request \(carrier code \d+\)/);
	});

	it('maps empty SMS credits (402)', async () => {
		sandbox().control.setBalances({ smsCredits: { subscription: 0, topUp: 0 } });
		const result = await run(send());
		expect((result.error as unknown as { httpCode: string }).httpCode).toBe('402');
		expect(result.error?.message).toMatch(/SMS credits/);
	});
});

describe('keys', () => {
	it.each([
		['suspended', /suspended/],
		['disabled', /disabled by an administrator/],
		['revoked', /unknown, revoked or has been rotated/],
	] as const)('a %s key fails with a clear message, reads included', async (which, message) => {
		const result = await run(
			{ resource: 'number', operation: 'getAll', returnAll: true },
			{ key: sandbox().credentials.account[which] },
		);
		expect(result.error?.message).toMatch(message);
	});
});

describe('sms.get and sms.getAll', () => {
	it('gets one SMS by message ID, and maps an unknown one', async () => {
		const sent = await run({
			resource: 'sms',
			operation: 'send',
			phoneDocId: rl(sandbox().numbers.main),
			to: TEST_NUMBERS.customer,
			message: 'find me',
		});
		const messageId = sent.output('Node')[0].json.messageId as string;
		const found = await run({ resource: 'sms', operation: 'get', messageId, simplify: true });
		expect(found.output('Node')[0].json).toMatchObject({
			messageId,
			body: 'find me',
			direction: 'sent',
		});
		const missing = await run({ resource: 'sms', operation: 'get', messageId: 'SM_nope' });
		expect(missing.error?.message).toMatch(/No SMS with that message ID/);
	});

	/**
	 * SMS Get Many of received messages (`read`: Limit or Return All, and filters beside
	 * direction), since `since` (null: none), after `count` inbound SMS from 1 Jan 2026,
	 * `intervalSeconds` apart, with the server answering in `order`: the ids injected and returned.
	 */
	async function getManyReceived(
		order: 'oldestFirst' | 'newestFirst',
		{ count, intervalSeconds }: { count: number; intervalSeconds: number },
		read: INodeParameters,
		since: string | null = '2025-12-31T00:00:00Z',
	) {
		sandbox().control.setSmsOrder(order);
		const injected = sandbox()
			.control.injectInboundSms({ count, sentAt: '2026-01-01T00:00:00Z', intervalSeconds })
			.map((m) => m.id);
		const result = await run({
			resource: 'sms',
			operation: 'getAll',
			...read,
			filters: { direction: 'received', ...(since === null ? {} : { since }) },
		});
		const ids = result.output('Node').map((m) => m.json.id);
		return { injected, ids, hints: result.task('Node')?.hints ?? [] };
	}

	it.each(['oldestFirst', 'newestFirst'] as const)(
		'Limit reads exactly that many, no duplicates (%s)',
		async (order) => {
			const { ids } = await getManyReceived(
				order,
				{ count: 120, intervalSeconds: 1 },
				{ returnAll: false, limit: 75 },
				null,
			);
			expect(ids).toHaveLength(75);
			expect(new Set(ids).size).toBe(75);
		},
	);

	it.each([201, 250, 400])(
		'a Limit above one page (%i) reads exactly that many with full pages, and no false hint',
		async (limit) => {
			const { ids, hints } = await getManyReceived(
				'oldestFirst',
				{ count: 450, intervalSeconds: 1 },
				{ returnAll: false, limit },
			);
			expect(ids).toHaveLength(limit);
			expect(new Set(ids).size).toBe(limit);
			expect(hints).toEqual([]);
			expect(apiRequests('/v1/sms').map((r) => r.query.limit)).toEqual([
				'200',
				'200',
				...(limit > 399 ? ['200'] : []),
			]);
		},
	);

	it('Return All follows the cursor past one page when results come oldest first', async () => {
		const { injected, ids, hints } = await getManyReceived(
			'oldestFirst',
			{ count: 450, intervalSeconds: 1 },
			{ returnAll: true },
		);
		expect(ids).toEqual(expect.arrayContaining(injected));
		expect(new Set(ids).size).toBe(ids.length);
		expect(hints).toHaveLength(0);
	});

	it('Return All stops and says so when more than a page of messages share one sentAt (no cursor can pass them)', async () => {
		const { ids, hints } = await getManyReceived(
			'oldestFirst',
			{ count: 250, intervalSeconds: 0 },
			{ returnAll: true },
		);
		expect(ids).toHaveLength(200);
		expect(new Set(ids).size).toBe(200);
		expect(hints[0]?.message).toMatch(/could not return more than these 200 messages/);
	});

	it('Return All terminates and says so when results come newest first (the cursor cannot page further)', async () => {
		const { ids, hints } = await getManyReceived(
			'newestFirst',
			{ count: 450, intervalSeconds: 1 },
			{ returnAll: true },
		);
		expect(ids.length).toBeGreaterThanOrEqual(200);
		expect(new Set(ids).size).toBe(ids.length);
		expect(hints[0]?.message).toMatch(/could not return more than these \d+ messages/);
		expect(apiRequests('/v1/sms', 'GET').length).toBeLessThanOrEqual(5);
	});

	it('filters by peer in national form with a default country', async () => {
		sandbox().control.injectInboundSms({ from: '+447700900777', count: 2 });
		const result = await run({
			resource: 'sms',
			operation: 'getAll',
			returnAll: true,
			filters: { peer: '07700 900777' },
			options: { defaultCountry: 'GB' },
		});
		expect(result.output('Node')).toHaveLength(2);
		expect(apiRequests('/v1/sms', 'GET')[0].query.peer).toBe('+447700900777');
	});
});

describe('calls', () => {
	it("creates a manual call with the key's default agent phone, then reads it back", async () => {
		const created = await run({
			resource: 'call',
			operation: 'create',
			phoneDocId: rl(sandbox().numbers.main),
			to: TEST_NUMBERS.customer,
			mode: 'manual',
		});
		expect(created.error).toBeUndefined();
		const call = created.output('Node')[0].json;
		expect(call).toMatchObject({
			status: 'ringing-agent',
			from: '+441632960001',
			to: TEST_NUMBERS.customer,
			agentPhone: AGENT_PHONE,
		});
		const read = await run({
			resource: 'call',
			operation: 'get',
			mode: 'manual',
			phoneDocId: rl(sandbox().numbers.main),
			callId: call.callId as string,
		});
		expect(read.output('Node')[0].json).toMatchObject({ to: TEST_NUMBERS.customer });
	});

	it('creates an AI call with its purpose and instructions', async () => {
		const created = await run({
			resource: 'call',
			operation: 'create',
			phoneDocId: rl(sandbox().numbers.main),
			to: TEST_NUMBERS.customer,
			mode: 'ai',
			customerName: 'Sam',
			callPurpose: 'custom',
			customCallReason: "Confirm tomorrow's delivery slot",
			aiInstructions: 'Be brief',
		});
		expect(created.output('Node')[0].json).toMatchObject({ mode: 'ai', status: 'initiated' });
		const [request] = apiRequests('/v1/calls', 'POST');
		expect(request.body).toEqual({
			phoneDocId: sandbox().numbers.main,
			to: TEST_NUMBERS.customer,
			mode: 'ai',
			customerName: 'Sam',
			callPurpose: 'custom',
			customCallReason: "Confirm tomorrow's delivery slot",
			aiInstructions: 'Be brief',
		});
	});

	it('requires a custom reason for a custom AI call, before any request', async () => {
		const result = await run({
			resource: 'call',
			operation: 'create',
			phoneDocId: rl(sandbox().numbers.main),
			to: TEST_NUMBERS.customer,
			mode: 'ai',
			callPurpose: 'custom',
		});
		expect(result.error?.message).toBe('Custom Call Reason is required but was empty');
		expect(apiRequests('/v1/calls')).toHaveLength(0);
	});

	it('maps missing_agent_phone, agent_phone_is_tc_number and the two 402s', async () => {
		const manual = {
			resource: 'call',
			operation: 'create',
			phoneDocId: rl(sandbox().numbers.main),
			to: TEST_NUMBERS.customer,
			mode: 'manual',
		};
		expect(
			(await run(manual, { key: sandbox().credentials.account.restricted })).error?.message,
		).toMatch(/needs an agent phone/);
		expect((await run({ ...manual, agentPhone: '+441632960002' })).error?.message).toMatch(
			/own service numbers/,
		);
		sandbox().control.setBalances({
			minutes: { subscription: 0, topUp: 0 },
			aiMinutes: { subscription: 0, topUp: 0 },
		});
		expect((await run(manual)).error?.message).toMatch(/No call minutes left/);
		expect((await run({ ...manual, mode: 'ai' })).error?.message).toMatch(/No AI minutes left/);
	});

	it('reads call history with filters; AI history needs a number, checked before any request', async () => {
		await run({
			resource: 'call',
			operation: 'create',
			phoneDocId: rl(sandbox().numbers.main),
			to: '+447700900321',
			mode: 'manual',
		});
		const history = await run({
			resource: 'call',
			operation: 'getAll',
			mode: 'manual',
			returnAll: true,
			filters: { peer: '+447700900321' },
			simplify: true,
		});
		const calls = history.output('Node');
		expect(calls).toHaveLength(1);
		expect(calls[0].json.to).toBe('+447700900321');
		const before = apiRequests('/v1/calls').length;
		const ai = await run({ resource: 'call', operation: 'getAll', mode: 'ai', returnAll: true });
		expect(ai.error?.message).toMatch(/Phone Number is required when Mode is AI/);
		expect(apiRequests('/v1/calls')).toHaveLength(before);
	});

	it('maps an unknown call ID', async () => {
		const result = await run({
			resource: 'call',
			operation: 'get',
			mode: 'manual',
			phoneDocId: rl(sandbox().numbers.main),
			callId: 'CA_nope',
		});
		expect(result.error?.message).toMatch(/No call with that ID/);
	});
});
