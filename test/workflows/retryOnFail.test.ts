/**
 * n8n's Settings → Retry On Fail re-runs the whole node, with the same input, inside the same
 * execution (n8n-core's WorkflowExecute: `retryOnFail`, `maxTries`, `waitBetweenTries`). An item
 * an earlier try carried out must come back with that try's result, not be sent again.
 */
import { runWorkflow } from '../../harness';
import { TEST_NUMBERS } from '../../sandbox';
import { type Fault, useFaultyProxy } from '../support/faultyProxy';
import { accountCredentials, unifiedCredentials, useSandbox } from '../support/sandbox';
import { items, singleNodeWorkflow } from '../support/workflows';

const sandbox = useSandbox();
const proxy = useFaultyProxy(() => sandbox().accountBaseUrl);

const RETRY = { retryOnFail: true, maxTries: 3, waitBetweenTries: 10 };

function withRetry(
	type: string,
	parameters: Record<string, unknown>,
	{ continueOnFail = false } = {},
) {
	const workflow = singleNodeWorkflow(type, parameters as never, { continueOnFail });
	Object.assign(workflow.nodes[1], RETRY);
	return workflow;
}

const smsPosts = () =>
	sandbox()
		.requests()
		.filter((entry) => entry.method === 'POST' && entry.path === '/v1/sms');

describe('Comms Account SMS Send with Retry On Fail (Max Tries 3)', () => {
	const run = (recipients: string[], options?: { continueOnFail?: boolean }) =>
		runWorkflow(
			withRetry(
				'n8n-nodes-comms-api.commsAccount',
				{
					resource: 'sms',
					operation: 'send',
					phoneDocId: { __rl: true, mode: 'id', value: sandbox().numbers.main },
					to: '={{ $json.to }}',
					message: 'Your parcel arrives today',
				},
				options,
			),
			{
				credentials: accountCredentials(sandbox()),
				input: items(recipients.length, (i) => ({ to: recipients[i] })),
			},
		);

	it('the carrier refuses item 2: item 1 is sent once, not once per try', async () => {
		const result = await run([TEST_NUMBERS.customer, TEST_NUMBERS.carrierRejects]);
		expect(result.error?.message).toMatch(/carrier rejected/);
		const sent = smsPosts().filter((entry) => entry.status === 201);
		expect(sent.map((entry) => (entry.body as { to: string }).to)).toEqual([TEST_NUMBERS.customer]);
		// Each try asked the carrier again for item 2: that is what Retry On Fail is for.
		expect(smsPosts().filter((entry) => entry.status === 502)).toHaveLength(3);
	});

	it('with Continue On Fail too (n8n retries when the first item is an error): sent once each', async () => {
		const result = await run(
			[TEST_NUMBERS.carrierRejects, TEST_NUMBERS.customer, '+447700900124'],
			{ continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		const output = result.output('Node');
		expect(output[0].json.error).toMatch(/carrier rejected/);
		const sent = smsPosts().filter((entry) => entry.status === 201);
		expect(sent).toHaveLength(2);
		const { record } = await sandbox().control.get(output[1].json.messageId as string);
		expect(record.toNumber).toBe(TEST_NUMBERS.customer);
	});

	it('an item whose outcome was unknown is not sent again by the next try', async () => {
		proxy().inject('POST', '/v1/calls', 'failAfter');
		const unreadable = { answer: 200, body: { success: true } };
		proxy().inject('GET', '/v1/calls', unreadable, unreadable, unreadable, unreadable);
		const result = await runWorkflow(
			withRetry('n8n-nodes-comms-api.commsAccount', {
				resource: 'call',
				operation: 'create',
				phoneDocId: { __rl: true, mode: 'id', value: sandbox().numbers.main },
				to: TEST_NUMBERS.customer,
				mode: 'ai',
			}),
			{
				credentials: accountCredentials(
					sandbox(),
					sandbox().credentials.account.unrestricted,
					proxy().url,
				),
			},
		);
		// The history look-up cannot read the page, so the outcome stays unknown.
		expect(result.error?.message).toMatch(/unknown whether the call was placed/);
		expect(proxy().log.filter((entry) => entry.method === 'POST')).toHaveLength(1);
	}, 30_000);
});

describe('Comms Unified with Retry On Fail (Max Tries 3)', () => {
	const unifiedProxy = useFaultyProxy(() => sandbox().accountBaseUrl);

	const runUnified = (...faults: Fault[]) => {
		unifiedProxy().reset();
		unifiedProxy().inject('POST', new URL(sandbox().unifiedUrl).pathname, 'pass', ...faults);
		return runWorkflow(
			withRetry('n8n-nodes-comms-api.commsUnified', {
				resource: 'sms',
				operation: 'send',
				to: '={{ $json.to }}',
				message: 'Your parcel arrives today',
			}),
			{
				credentials: unifiedCredentials(
					sandbox(),
					sandbox().credentials.unified.live,
					`${unifiedProxy().url}${new URL(sandbox().unifiedUrl).pathname}`,
				),
				input: items(2, (i) => ({ to: ['+447700900123', '+447700900124'][i] })),
			},
		);
	};

	it('SMS: the API refuses item 2 each try (a documented refusal); item 1 is sent and charged once', async () => {
		const refusal: Fault = {
			answer: 503,
			body: { success: false, code: 'SERVICE_UNAVAILABLE', message: 'Not for this account' },
		};
		const result = await runUnified(refusal, refusal, refusal);
		expect(result.error?.message).toMatch(/not available for your account/);
		const reached = unifiedProxy().log.filter((entry) => entry.serverStatus !== undefined);
		expect(reached).toHaveLength(1);
		// Each try asked again for item 2 (refused, so nothing was done): 1 + 3 requests.
		expect(unifiedProxy().log).toHaveLength(4);
	});

	it('SMS: item 2 meets a code the API does not document: unknown, so no try sends it again', async () => {
		const undocumented: Fault = {
			answer: 400,
			body: { success: false, code: 'INVALID_PARAMETERS', message: 'to is not reachable' },
		};
		const result = await runUnified(undocumented, undocumented, undocumented);
		expect(result.error?.message).toMatch(
			/INVALID_PARAMETERS.*unknown whether the sms request was carried out/,
		);
		expect(unifiedProxy().log).toHaveLength(2);
	});
});
