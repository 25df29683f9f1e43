/**
 * Which item is "the same": an item a node carried out stays carried out, for the node's next try
 * in the same execution, whatever the node evaluates differently on that try. Each case below is
 * one the issue reported against the memory keyed on a digest of the evaluated request; each runs
 * through n8n's engine against the sandbox:
 *
 * - the editor's Retry after the user raised the Spending Cap the node's own message asked for;
 * - Retry On Fail with a Message that names the time (n8n evaluates expressions on every try);
 * - Send and Wait, whose link names the execution, then the editor's Retry (a new execution id);
 * - a loop that hands the node the same item on its second pass;
 * - the editor's Retry after the user fixed another item's number and edited the Message.
 *
 * The editor's Retry is run as n8n 2.41's `ExecutionService.retry` does it (harness
 * `retryFailedExecution`, with `loadWorkflow` for "Retry with currently saved workflow").
 */
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';

import {
	CREDENTIAL_REFS,
	retryFailedExecution,
	runWorkflow,
	START,
	type WorkflowJson,
} from '../../harness';
import { TEST_NUMBERS } from '../../sandbox';
import { useFaultyProxy } from '../support/faultyProxy';
import { LoopFixture } from '../support/loop';
import { accountCredentials, unifiedCredentials, useSandbox } from '../support/sandbox';
import { items, singleNodeWorkflow } from '../support/workflows';

const sandbox = useSandbox();
// An unknown Account SMS is looked up over the request timeout: 1.5 s here.
const proxy = useFaultyProxy(() => sandbox().url, { requestTimeoutMs: 1_500 });

const ACCOUNT = 'n8n-nodes-comms-api.commsAccount';
const UNIFIED = 'n8n-nodes-comms-api.commsUnified';
const SECOND = '+447700900124';
const unifiedPath = () => new URL(sandbox().unifiedUrl).pathname;

const accepted = (api: 'account' | 'unified', path?: string) =>
	sandbox()
		.requests()
		.filter(
			(entry) =>
				entry.method === 'POST' &&
				entry.api === api &&
				(path === undefined || entry.path === path) &&
				(entry.status === 200 || entry.status === 201),
		);
const unifiedTo = () =>
	accepted('unified').map((entry) => (entry.body as { data: { to: string } }).data.to);
const accountSmsTo = () =>
	accepted('account', '/v1/sms').map((entry) => (entry.body as { to: string }).to);

const viaProxy = {
	account: () =>
		accountCredentials(sandbox(), sandbox().credentials.account.unrestricted, proxy().url),
	unified: () => ({
		commsUnifiedApi: {
			apiKey: sandbox().credentials.unified.live,
			endpointUrl: `${proxy().url}${unifiedPath()}`,
		},
	}),
};

/** What the execution keeps as spent (the flow context n8n saves with it), in pence. */
function spentPence(result: Awaited<ReturnType<typeof runWorkflow>>): number {
	const flow = result.run.data.executionData?.contextData.flow as
		{ commsApi?: { spentUnits?: number } } | undefined;
	return (flow?.commsApi?.spentUnits ?? 0) / 100;
}

function withSettings(workflow: WorkflowJson, settings: Partial<INode>): WorkflowJson {
	Object.assign(workflow.nodes[1], settings);
	return workflow;
}

describe("the editor's Retry after an edit: what was carried out stays carried out", () => {
	const voice = (capPence: number) =>
		singleNodeWorkflow(UNIFIED, {
			resource: 'voice',
			operation: 'makeCall',
			to: '={{ $json.to }}',
			message: 'Your delivery is tomorrow at 10:00',
			options: { spendingCapPence: capPence },
		});
	const twoPeople = items(2, (i) => ({ to: [TEST_NUMBERS.customer, SECOND][i] }));

	it('voice, 2 items, Spending Cap 100p, item 2 refused; the cap raised to 200p and the saved workflow retried: one call to each person, 140p spent', async () => {
		const credentials = unifiedCredentials(sandbox());
		const failed = await runWorkflow(voice(100), { credentials, input: twoPeople });
		expect(failed.error?.message).toMatch(/^Spending Cap: this voice call would cost 70p/);
		expect(unifiedTo()).toEqual([TEST_NUMBERS.customer]);

		const retried = await retryFailedExecution(voice(200), failed, {
			credentials,
			loadWorkflow: true,
		});
		expect(retried.error).toBeUndefined();
		// Item 1's person is not rung again; item 2 goes under the raised cap.
		expect(unifiedTo()).toEqual([TEST_NUMBERS.customer, SECOND]);
		const [first, second] = retried.output('Node').map((item) => item.json);
		expect(first).toMatchObject({ to: TEST_NUMBERS.customer, carriedOutEarlier: true });
		expect(first.carriedOutEarlierNote).toMatch(/earlier try .* not sent again/);
		expect(second).toMatchObject({ to: SECOND });
		expect(second.carriedOutEarlier).toBeUndefined();
		// The spend counts each call once.
		expect(spentPence(retried)).toBe(140);
	});

	it('the same with the cap unchanged: item 2 refused again, still one call', async () => {
		const credentials = unifiedCredentials(sandbox());
		const failed = await runWorkflow(voice(100), { credentials, input: twoPeople });
		const retried = await retryFailedExecution(voice(100), failed, { credentials });
		expect(retried.error?.message).toMatch(/^Spending Cap: this voice call would cost 70p/);
		expect(unifiedTo()).toEqual([TEST_NUMBERS.customer]);
		expect(spentPence(retried)).toBe(70);
	});

	it('Comms Account SMS, item 2 refused by the carrier; its number fixed and the Message edited, then the saved workflow retried: item 1 is not sent again, item 2 goes to the fixed number with the new text', async () => {
		const sms = (second: string, message: string) =>
			singleNodeWorkflow(ACCOUNT, {
				resource: 'sms',
				operation: 'send',
				phoneDocId: { __rl: true, mode: 'id', value: sandbox().numbers.main },
				to: `={{ $itemIndex === 0 ? '${TEST_NUMBERS.customer}' : '${second}' }}`,
				message,
			});
		const credentials = accountCredentials(sandbox());
		const failed = await runWorkflow(
			sms(TEST_NUMBERS.carrierRejects, 'Your parcel arrives today'),
			{
				credentials,
				input: items(2),
			},
		);
		expect(failed.error?.message).toMatch(/carrier rejected/);
		expect(accountSmsTo()).toEqual([TEST_NUMBERS.customer]);

		const retried = await retryFailedExecution(
			sms(SECOND, 'Your parcel arrives today, before noon'),
			failed,
			{ credentials, loadWorkflow: true },
		);
		expect(retried.error).toBeUndefined();
		expect(accountSmsTo()).toEqual([TEST_NUMBERS.customer, SECOND]);
		const [first, second] = retried.output('Node').map((item) => item.json);
		expect(first).toMatchObject({ to: TEST_NUMBERS.customer, carriedOutEarlier: true });
		expect(second).toMatchObject({ to: SECOND });
		const texts = accepted('account', '/v1/sms').map(
			(entry) => (entry.body as { message: string }).message,
		);
		expect(texts).toEqual(['Your parcel arrives today', 'Your parcel arrives today, before noon']);
	});

	it('Comms Unified SMS, item 1 sent and item 2 unknown; the Message edited and the saved workflow retried: nothing is sent again, item 2 fails the same way', async () => {
		const sms = (message: string) =>
			singleNodeWorkflow(UNIFIED, {
				resource: 'sms',
				operation: 'send',
				to: '={{ $json.to }}',
				message,
			});
		proxy().injectWhen('POST', unifiedPath(), SECOND, 'gatewayAfter');
		const credentials = viaProxy.unified();
		const failed = await runWorkflow(sms('Your table is ready'), { credentials, input: twoPeople });
		expect(failed.error?.message).toMatch(/unknown whether the sms request was carried out/);
		expect(unifiedTo()).toEqual([TEST_NUMBERS.customer, SECOND]);

		const retried = await retryFailedExecution(sms('Your table is ready now'), failed, {
			credentials,
			loadWorkflow: true,
		});
		expect(retried.error?.message).toBe(failed.error?.message);
		expect((retried.error as unknown as { description: string }).description).toMatch(
			/already carried out: item 1 \(SMS to \+447700900123/,
		);
		expect(unifiedTo()).toEqual([TEST_NUMBERS.customer, SECOND]);
		expect(proxy().log.filter((entry) => entry.method === 'POST')).toHaveLength(2);
	});
});

describe('Retry On Fail with a Message that names the time (evaluated again on every try)', () => {
	const RETRY = { retryOnFail: true, maxTries: 3, waitBetweenTries: 1000 };
	const MESSAGE = "=Your order has shipped ({{ $now.toFormat('HH:mm:ss') }})";

	it('Comms Account SMS Send, item 2 refused by the carrier on every try: item 1 is sent once', async () => {
		const workflow = withSettings(
			singleNodeWorkflow(ACCOUNT, {
				resource: 'sms',
				operation: 'send',
				phoneDocId: { __rl: true, mode: 'id', value: sandbox().numbers.main },
				to: '={{ $json.to }}',
				message: MESSAGE,
			}),
			RETRY,
		);
		const result = await runWorkflow(workflow, {
			credentials: accountCredentials(sandbox()),
			input: items(2, (i) => ({ to: [TEST_NUMBERS.customer, TEST_NUMBERS.carrierRejects][i] })),
		});
		expect(result.error?.message).toMatch(/carrier rejected/);
		expect(accountSmsTo()).toEqual([TEST_NUMBERS.customer]);
		// Every try asked the carrier again for item 2, each with that try's time.
		const refused = sandbox()
			.requests()
			.filter((entry) => entry.method === 'POST' && entry.status === 502)
			.map((entry) => (entry.body as { message: string }).message);
		expect(refused).toHaveLength(3);
		expect(new Set(refused).size).toBeGreaterThan(1);
	}, 30_000);

	it('Comms Unified SMS Send, item 2 refused (SERVICE_UNAVAILABLE) on every try: item 1 is sent once', async () => {
		const refusal = {
			answer: 503,
			body: { success: false, code: 'SERVICE_UNAVAILABLE', message: 'Not for this number' },
		};
		proxy().injectWhen('POST', unifiedPath(), SECOND, refusal, refusal, refusal);
		const workflow = withSettings(
			singleNodeWorkflow(UNIFIED, {
				resource: 'sms',
				operation: 'send',
				to: '={{ $json.to }}',
				message: MESSAGE,
			}),
			RETRY,
		);
		const result = await runWorkflow(workflow, {
			credentials: viaProxy.unified(),
			input: items(2, (i) => ({ to: [TEST_NUMBERS.customer, SECOND][i] })),
		});
		expect(result.error?.message).toMatch(/not available for your account/);
		expect(unifiedTo()).toEqual([TEST_NUMBERS.customer]);
		expect(proxy().log.filter((entry) => entry.method === 'POST')).toHaveLength(4);
	}, 30_000);
});

describe("Send and Wait, its SMS's outcome unknown, then the editor's Retry (a new execution, so a new link)", () => {
	it('Comms Unified: one SMS; the retry fails the same way without sending', async () => {
		proxy().inject('POST', unifiedPath(), 'gatewayAfter');
		const workflow = singleNodeWorkflow(UNIFIED, {
			resource: 'sms',
			operation: 'sendAndWait',
			to: TEST_NUMBERS.customer,
			message: 'What time suits you?',
			responseType: 'freeText',
		});
		const credentials = viaProxy.unified();
		const failed = await runWorkflow(workflow, { credentials });
		expect(failed.error?.message).toMatch(/unknown whether the sms request was carried out/);
		expect(unifiedTo()).toHaveLength(1);

		const retried = await retryFailedExecution(workflow, failed, { credentials });
		expect(retried.error?.message).toBe(failed.error?.message);
		expect(retried.run.waitTill).toBeUndefined();
		expect(unifiedTo()).toHaveLength(1);
	});

	it('Comms Account: one SMS; the retry fails the same way without sending or looking it up again', async () => {
		proxy().inject('POST', '/v1/sms', 'gatewayAfter');
		// The history cannot be read, so the SMS's outcome stays unknown.
		const unreadable = { answer: 200, body: { success: true } };
		proxy().inject('GET', '/v1/sms', unreadable, unreadable, unreadable, unreadable);
		const workflow = singleNodeWorkflow(ACCOUNT, {
			resource: 'sms',
			operation: 'sendAndWait',
			phoneDocId: { __rl: true, mode: 'id', value: sandbox().numbers.main },
			to: TEST_NUMBERS.customer,
			message: 'Shall we book you in for Tuesday?',
		});
		const credentials = viaProxy.account();
		const failed = await runWorkflow(workflow, { credentials });
		expect(failed.error?.message).toMatch(/unknown whether the SMS was sent/);
		expect(accountSmsTo()).toHaveLength(1);
		const requests = proxy().log.length;

		const retried = await retryFailedExecution(workflow, failed, { credentials });
		expect(retried.error?.message).toBe(failed.error?.message);
		expect(accountSmsTo()).toHaveLength(1);
		expect(proxy().log).toHaveLength(requests);
	}, 30_000);
});

describe("a loop's passes are runs of their own", () => {
	it('Loop Over Items (2 a pass) → Comms Account SMS Send (Retry On Fail, On Error: Continue), each pass a bad number then the same reminder: 2 SMS for 2 reminders', async () => {
		const workflow: WorkflowJson = {
			nodes: [
				START,
				{ ...node('Loop', 'test.loop', { batchSize: 2 }), credentials: undefined },
				{
					...node('Send', ACCOUNT, {
						resource: 'sms',
						operation: 'send',
						phoneDocId: { __rl: true, mode: 'id', value: sandbox().numbers.main },
						to: '={{ $json.to }}',
						message: 'Reminder: your appointment is tomorrow at 10:00',
					}),
					retryOnFail: true,
					maxTries: 2,
					waitBetweenTries: 0,
					onError: 'continueRegularOutput',
				},
			],
			connections: {
				Start: { main: [[{ node: 'Loop', type: 'main', index: 0 }]] },
				Loop: { main: [[], [{ node: 'Send', type: 'main', index: 0 }]] },
				Send: { main: [[{ node: 'Loop', type: 'main', index: 0 }]] },
			},
			settings: { executionOrder: 'v1' },
		};
		const result = await runWorkflow(workflow, {
			credentials: accountCredentials(sandbox()),
			input: items(4, (i) => ({ to: i % 2 === 0 ? 'not a number' : TEST_NUMBERS.customer })),
			nodeTypes: { 'test.loop': new LoopFixture() },
		});
		expect(result.error).toBeUndefined();
		const passes = result.run.data.resultData.runData.Send;
		expect(passes).toHaveLength(2);
		expect(accountSmsTo()).toEqual([TEST_NUMBERS.customer, TEST_NUMBERS.customer]);
		// Each pass's output is its own SMS (returned by its own later tries: Retry On Fail runs a
		// pass again while its first item, the bad number, fails).
		const sent = passes.map((pass) => pass.data?.main[0]?.[1]?.json as IDataObject);
		expect(sent[0].messageId).not.toBe(sent[1].messageId);
	});
});

function node(name: string, type: string, parameters: INodeParameters): INode {
	return {
		id: name,
		name,
		type,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: CREDENTIAL_REFS,
	};
}
