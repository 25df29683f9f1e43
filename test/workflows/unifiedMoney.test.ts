/**
 * Money, through n8n's engine against the sandbox: a run starts with one request alone, so a
 * bad key or an empty balance costs one request whatever the number of items; after
 * INSUFFICIENT_CREDITS (or a dead key) nothing more is sent in the execution; the Spending
 * Cap refuses items before they are sent, from the price table, reconciled with what each
 * answer reports. The shared item runner gives the Account node the same start and stops.
 */
import type { INode, INodeParameters } from 'n8n-workflow';

import { CREDENTIAL_REFS, runWorkflow, START, type WorkflowJson } from '../../harness';
import { TEST_NUMBERS, UNIFIED_KEYS } from '../../sandbox';
import { startFaultyProxy } from '../support/faultyProxy';
import {
	accountCredentials,
	type NodeRun,
	runNode,
	unifiedCredentials,
	unifiedRequests,
	useSandbox,
} from '../support/sandbox';
import { items, singleNodeWorkflow } from '../support/workflows';

const UNIFIED = 'n8n-nodes-comms-api.commsUnified';
const ACCOUNT = 'n8n-nodes-comms-api.commsAccount';
const sandbox = useSandbox();

const run = (parameters: INodeParameters, options?: NodeRun) =>
	runNode(sandbox(), 'unified', parameters, options);

/** Start → each node in turn, all with Continue On Fail when asked. */
function chain(
	nodes: Array<{ name: string; type?: string; parameters: INodeParameters }>,
	continueOnFail = true,
): WorkflowJson {
	const built: INode[] = nodes.map((node, n) => ({
		id: `node-${n}`,
		name: node.name,
		type: node.type ?? UNIFIED,
		typeVersion: 1,
		position: [220 * (n + 1), 0],
		parameters: node.parameters,
		credentials: CREDENTIAL_REFS,
		...(continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
	}));
	const names = [START.name, ...nodes.map((node) => node.name)];
	const connections = Object.fromEntries(
		names
			.slice(0, -1)
			.map((name, n) => [
				name,
				{ main: [[{ node: names[n + 1], type: 'main' as const, index: 0 }]] },
			]),
	);
	return { nodes: [START, ...built], connections };
}

const posts = () => unifiedRequests(sandbox());
const credits = async () => (await sandbox().control.balances()).unifiedCreditsPence;
/** Different recipients, so nothing orders the items but the runner. */
const recipients = (n: number) =>
	items(n, (i) => ({ to: `+4477009003${String(i).padStart(2, '0')}`, text: `Message ${i + 1}` }));
const smsToEach = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'sms',
	operation: 'send',
	to: '={{ $json.to }}',
	message: '={{ $json.text }}',
	...extra,
});

describe.each(['http', 'always200'] as const)(
	'errors answered with %s statuses',
	(unifiedErrorStatus) => {
		beforeEach(() => sandbox().control.setUnifiedErrorStatus(unifiedErrorStatus));

		it('an empty balance: twenty SMS cost one request; the error says the balance, the amount required and where to top up', async () => {
			sandbox().control.setBalances({ unifiedCreditsPence: 0 });
			const result = await run(smsToEach(), { input: recipients(20), continueOnFail: true });
			expect(posts()).toHaveLength(1);
			const output = result.output('Node');
			expect(output).toHaveLength(20);
			const topUp = `${sandbox().url}/_sandbox/top-up`;
			const message = `Not enough credits for this request. Your balance is 0p and this request needs 3p. Top up your credits at ${topUp}, then run again only the items that were not sent.`;
			expect(output[0].json).toMatchObject({
				error: message,
				apiCode: 'INSUFFICIENT_CREDITS',
				topUpUrl: topUp,
			});
			for (const [i, item] of output.entries()) {
				expect(item.pairedItem).toEqual({ item: i });
				expect(item.json.error).toBe(message);
				if (i > 0) {
					expect(item.json).toMatchObject({ apiCode: 'INSUFFICIENT_CREDITS', topUpUrl: topUp });
					expect(item.json.description).toMatch(
						/^Not sent: item 1 of this node failed with INSUFFICIENT_CREDITS, and after such a failure no further request is sent with this credential in this execution\./,
					);
				}
			}
		});

		it('an empty balance without Continue On Fail: one request, and the node fails with that message', async () => {
			sandbox().control.setBalances({ unifiedCreditsPence: 0 });
			const result = await run(smsToEach(), { input: recipients(20) });
			expect(result.error?.message).toMatch(
				/^Not enough credits for this request\. Your balance is 0p and this request needs 3p\. Top up your credits at http/,
			);
			expect(posts()).toHaveLength(1);
		});

		it('a revoked key: twenty items cost one request, with and without Continue On Fail', async () => {
			const key = UNIFIED_KEYS.revoked;
			const continued = await run(smsToEach(), {
				input: recipients(20),
				continueOnFail: true,
				key,
			});
			expect(posts()).toHaveLength(1);
			const output = continued.output('Node');
			expect(
				output.every(
					(item) =>
						item.json.apiCode === 'INVALID_API_KEY' &&
						/invalid or has been revoked/.test(item.json.error as string),
				),
			).toBe(true);
			const failed = await run(smsToEach(), { input: recipients(20), key });
			expect(failed.error?.message).toMatch(/invalid or has been revoked/);
			expect(posts()).toHaveLength(2);
		});
	},
);

it('credits running out part-way: after INSUFFICIENT_CREDITS no further request goes out, and the rest fail without one', async () => {
	sandbox().control.setBalances({ unifiedCreditsPence: 10 });
	// To one recipient, so they go one after another and the order of events is exact.
	const input = items(6, (i) => ({ to: TEST_NUMBERS.customer, text: `Message ${i + 1}` }));
	const result = await run(smsToEach(), { input, continueOnFail: true });
	const output = result.output('Node');
	expect(output.slice(0, 3).every((item) => item.json.status === 'sent')).toBe(true);
	expect(output[3].json).toMatchObject({ apiCode: 'INSUFFICIENT_CREDITS' });
	expect(output[3].json.error).toMatch(/Your balance is 1p and this request needs 3p/);
	expect(output[4].json.description).toMatch(
		/^Not sent: item 4 of this node failed with INSUFFICIENT_CREDITS/,
	);
	expect(output[5].json.description).toMatch(/^Not sent: item 4 of this node/);
	expect(posts().map((r) => r.status)).toEqual([200, 200, 200, 402]);
});

it('and nothing is sent by a later node with the same credential in that execution', async () => {
	sandbox().control.setBalances({ unifiedCreditsPence: 0 });
	const workflow = chain([
		{ name: 'Text them', parameters: smsToEach() },
		{
			name: 'Email them',
			parameters: {
				resource: 'email',
				operation: 'send',
				to: 'someone@example.com',
				subject: 'Hello',
				html: '<p>Hello</p>',
			},
		},
	]);
	const result = await runWorkflow(workflow, {
		credentials: unifiedCredentials(sandbox()),
		input: recipients(3),
	});
	expect(posts()).toHaveLength(1);
	const emails = result.output('Email them');
	expect(emails).toHaveLength(3);
	expect(emails[0].json).toMatchObject({ apiCode: 'INSUFFICIENT_CREDITS' });
	expect(emails[0].json.description).toMatch(
		/^Not sent: node "Text them" failed with INSUFFICIENT_CREDITS/,
	);
});

it('a failure that stops one credential does not stop a node using another', async () => {
	const workflow = chain([
		{
			name: 'Account SMS',
			type: ACCOUNT,
			parameters: {
				resource: 'sms',
				operation: 'send',
				phoneDocId: { __rl: true, mode: 'id', value: 'pdoc_sbx_main' },
				to: '={{ $json.to }}',
				message: '={{ $json.text }}',
			},
		},
		{
			name: 'Unified SMS',
			parameters: {
				resource: 'sms',
				operation: 'send',
				to: TEST_NUMBERS.customer,
				message: 'Sent with the other credential',
			},
		},
	]);
	const credentials = {
		...accountCredentials(sandbox(), sandbox().credentials.account.revoked),
		...unifiedCredentials(sandbox()),
	};
	const result = await runWorkflow(workflow, { credentials, input: recipients(3) });
	expect(
		result.output('Account SMS').every((item) => item.json.apiCode === 'invalid_api_key'),
	).toBe(true);
	expect(
		sandbox()
			.requests()
			.filter((r) => r.path === '/v1/sms'),
	).toHaveLength(1);
	expect(result.output('Unified SMS').map((item) => item.json.status)).toEqual([
		'sent',
		'sent',
		'sent',
	]);
});

it('one request goes alone; the rest go concurrently once it has succeeded', async () => {
	sandbox().control.setLatency(300);
	const started = Date.now();
	const result = await run(smsToEach(), { input: recipients(6) });
	const elapsed = Date.now() - started;
	expect(result.error).toBeUndefined();
	const arrivals = posts().map((r) => Date.parse(r.time));
	expect(arrivals).toHaveLength(6);
	// The second left only after the first was answered...
	expect(Math.min(...arrivals.slice(1)) - arrivals[0]).toBeGreaterThanOrEqual(300);
	// ...and the other five together: about two latencies in all, not six.
	expect(Math.max(...arrivals.slice(1)) - Math.min(...arrivals.slice(1))).toBeLessThan(300);
	expect(elapsed).toBeLessThan(6 * 300);
});

describe('the Account node, through the same runner', () => {
	const send = {
		resource: 'sms',
		operation: 'send',
		phoneDocId: { __rl: true, mode: 'id', value: 'pdoc_sbx_main' },
		to: '={{ $json.to }}',
		message: '={{ $json.text }}',
	};
	const accountRun = (key: string, continueOnFail: boolean) =>
		runWorkflow(singleNodeWorkflow(ACCOUNT, send, { continueOnFail }), {
			credentials: accountCredentials(sandbox(), key),
			input: recipients(10),
		});
	const smsPosts = () =>
		sandbox()
			.requests()
			.filter((r) => r.path === '/v1/sms');

	it.each([
		['a revoked key', 'revoked', 'invalid_api_key'],
		['a disabled key', 'disabled', 'key_disabled'],
		['a suspended account', 'suspended', 'account_suspended'],
	] as const)('%s: ten SMS cost one request', async (_what, name, code) => {
		const continued = await accountRun(sandbox().credentials.account[name], true);
		expect(smsPosts()).toHaveLength(1);
		expect(continued.output('Node').map((item) => item.json.apiCode)).toEqual(Array(10).fill(code));
		const failed = await accountRun(sandbox().credentials.account[name], false);
		expect(failed.error).toBeDefined();
		expect(smsPosts()).toHaveLength(2);
	});
});

describe('Spending Cap', () => {
	it('refuses, before sending, the items that would take the spend above the cap', async () => {
		const before = await credits();
		const result = await run(smsToEach({ options: { spendingCapPence: 10 } }), {
			input: recipients(5),
			continueOnFail: true,
		});
		const output = result.output('Node');
		expect(output.slice(0, 3).every((item) => item.json.status === 'sent')).toBe(true);
		for (const item of output.slice(3)) {
			expect(item.json.error).toBe(
				"Spending Cap: this SMS would cost 3p and take this execution's spend to 12p, above the cap of 10p. It was not sent.",
			);
			expect(item.json.description).toBe(
				'Spent so far in this execution: 9p. This item is counted at 3p: one SMS at 3p; items already answered count at the cost the API reported, items whose outcome is unknown at their estimate, and items not sent or refused at nothing. Raise Spending Cap (Pence) under Options, or send fewer items.',
			);
		}
		expect(posts()).toHaveLength(3);
		expect(before - (await credits())).toBe(9);
	});

	it('without Continue On Fail the node stops at the first refused item and lists what was carried out', async () => {
		const result = await run(smsToEach({ options: { spendingCapPence: 10 } }), {
			input: recipients(5),
		});
		expect(result.error?.message).toMatch(/^Spending Cap: this SMS would cost 3p/);
		expect((result.error as unknown as { description: string }).description).toMatch(
			/these items \(numbered from 1\) were already carried out: item 1 \(SMS to \+\d+\); item 2 \(SMS to \+\d+\); item 3 \(SMS to \+\d+\)\./,
		);
		expect(posts()).toHaveLength(3);
	});

	it('counts fractions of a penny exactly (emails at 0.15p)', async () => {
		const input = items(5, (i) => ({ to: `person${i}@example.com` }));
		const result = await run(
			{
				resource: 'email',
				operation: 'send',
				to: '={{ $json.to }}',
				subject: 'Hi',
				html: '<p>Hi</p>',
				options: { spendingCapPence: 0.45 },
			},
			{ input, continueOnFail: true },
		);
		expect(result.output('Node').map((item) => (item.json.error ? 'refused' : 'sent'))).toEqual([
			'sent',
			'sent',
			'sent',
			'refused',
			'refused',
		]);
		expect(posts()).toHaveLength(3);
	});

	it('a voice call counts as 10 minutes (70p) before it is placed, then as what the API charged', async () => {
		const call: INodeParameters = {
			resource: 'voice',
			operation: 'makeCall',
			to: '={{ $json.to }}',
			message: 'A short reminder.',
		};
		const refused = await run(
			{ ...call, options: { spendingCapPence: 50 } },
			{ input: recipients(1), continueOnFail: true },
		);
		expect(refused.output('Node')[0].json.error).toBe(
			"Spending Cap: this voice call would cost 70p and take this execution's spend to 70p, above the cap of 50p. It was not sent.",
		);
		expect(refused.output('Node')[0].json.description).toMatch(
			/counted at 70p: a voice call costs 7p a minute and its length is not known before it ends, so it is counted as 10 minutes/,
		);
		expect(posts()).toHaveLength(0);
		// Under a cap of 100p, one call: it counts at 70p even though the API charged 7p when
		// placing it, since a call is billed by the minute after it ends.
		const placed = await run(
			{ ...call, options: { spendingCapPence: 100 } },
			{ input: recipients(3), continueOnFail: true },
		);
		const output = placed.output('Node');
		expect(output[0].json.billing).toEqual(expect.objectContaining({ cost: 7 }));
		expect(output.slice(1).map((item) => item.json.error)).toEqual(
			Array(2).fill(
				"Spending Cap: this voice call would cost 70p and take this execution's spend to 140p (£1.40), above the cap of 100p (£1.00). It was not sent.",
			),
		);
		expect(posts()).toHaveLength(1);
	});

	it('calls the API reports at cost 0 when placed (billed after they end) still count at 70p each', async () => {
		const proxy = await startFaultyProxy(sandbox().accountBaseUrl);
		try {
			const path = new URL(sandbox().unifiedUrl).pathname;
			const placedAtNoCost = {
				answer: 200,
				body: {
					success: true,
					result: { callId: 'call_1', status: 'queued' },
					billing: { cost: 0, costFormatted: '0p', isLive: true },
				},
			};
			proxy.inject('POST', path, ...Array(20).fill(placedAtNoCost));
			const result = await runWorkflow(
				singleNodeWorkflow(
					UNIFIED,
					{
						resource: 'voice',
						operation: 'makeCall',
						to: '={{ $json.to }}',
						message: 'A short reminder.',
						options: { spendingCapPence: 150 },
					},
					{ continueOnFail: true },
				),
				{
					credentials: {
						commsUnifiedApi: {
							...unifiedCredentials(sandbox()).commsUnifiedApi,
							endpointUrl: `${proxy.url}${path}`,
						},
					},
					input: recipients(20),
				},
			);
			const output = result.output('Node');
			expect(proxy.log).toHaveLength(2);
			expect(output.filter((item) => item.json.error === undefined)).toHaveLength(2);
			expect(output[2].json.error).toMatch(/^Spending Cap: this voice call would cost 70p/);
		} finally {
			await proxy.close();
		}
	});

	it('is the spend of the whole execution, across nodes', async () => {
		const workflow = chain([
			{ name: 'First', parameters: smsToEach({ options: { spendingCapPence: 10 } }) },
			{
				name: 'Second',
				parameters: {
					resource: 'sms',
					operation: 'send',
					to: TEST_NUMBERS.customer,
					message: 'One more',
					options: { spendingCapPence: 10 },
				},
			},
		]);
		const result = await runWorkflow(workflow, {
			credentials: unifiedCredentials(sandbox()),
			input: recipients(3),
		});
		expect(result.output('First').every((item) => item.json.status === 'sent')).toBe(true);
		expect(
			result
				.output('Second')
				.every((item) =>
					/^Spending Cap: this SMS would cost 3p and take this execution's spend to 12p/.test(
						item.json.error as string,
					),
				),
		).toBe(true);
		expect(posts()).toHaveLength(3);
	});

	it('a request whose outcome is unknown counts at its price (it may have been charged), and is not sent again', async () => {
		sandbox().control.injectFailure({ status: 500, api: 'unified', service: 'sms', count: 1 });
		const input = items(3, (i) => ({ to: TEST_NUMBERS.customer, text: `Message ${i + 1}` }));
		const result = await run(smsToEach({ options: { spendingCapPence: 6 } }), {
			input,
			continueOnFail: true,
		});
		const output = result.output('Node');
		expect(output[0].json.error).toMatch(
			/unknown whether the sms request was carried out.*not sent again/,
		);
		expect(output[1].json.status).toBe('sent');
		expect(output[2].json.error).toMatch(
			/^Spending Cap: this SMS would cost 3p and take this execution's spend to 9p, above the cap of 6p/,
		);
		expect(posts().map((r) => r.status)).toEqual([500, 200]);
	});

	it('a test key spends nothing, so nothing is refused, and each item says nothing was charged', async () => {
		const result = await run(smsToEach({ options: { spendingCapPence: 1 } }), {
			input: recipients(5),
			key: sandbox().credentials.unified.test,
		});
		expect(result.error).toBeUndefined();
		expect(
			result
				.output('Node')
				.every((item) =>
					(item.json.billing as { note: string }).note.startsWith('Test key: nothing was charged'),
				),
		).toBe(true);
		expect(posts()).toHaveLength(5);
	});
});
