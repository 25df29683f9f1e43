/**
 * Money guarded by default: no SMS longer than Max Segments (10 segments of 160 characters unless
 * the user says otherwise) is sent, on every operation of both nodes that sends one. Checked
 * before any request, like bad input: the item names the option and the value, and Continue On
 * Fail is honoured. The reported case: a 2,000,000-character SMS went out as one Comms Unified
 * item (12,500 SMS, £375 at the node's own prices).
 */
import type { INodeParameters } from 'n8n-workflow';

import { runWorkflow } from '../../harness';
import { TEST_NUMBERS } from '../../sandbox';
import { accountCredentials, unifiedCredentials, useSandbox } from '../support/sandbox';
import { items, singleNodeWorkflow } from '../support/workflows';

const sandbox = useSandbox();

const UNIFIED = 'n8n-nodes-comms-api.commsUnified';
const ACCOUNT = 'n8n-nodes-comms-api.commsAccount';

const sends = () =>
	sandbox()
		.requests()
		.filter(
			(entry) => entry.method === 'POST' && (entry.api === 'unified' || entry.path === '/v1/sms'),
		);

const unified = (
	parameters: INodeParameters,
	texts: string[],
	{ continueOnFail = false, key = sandbox().credentials.unified.live } = {},
) =>
	runWorkflow(
		singleNodeWorkflow(
			UNIFIED,
			{
				resource: 'sms',
				operation: 'send',
				to: TEST_NUMBERS.customer,
				message: '={{ $json.text }}',
				...parameters,
			},
			{ continueOnFail },
		),
		{
			credentials: unifiedCredentials(sandbox(), key),
			input: items(texts.length, (i) => ({ text: texts[i] })),
		},
	);

const account = (parameters: INodeParameters, texts: string[], continueOnFail = false) =>
	runWorkflow(
		singleNodeWorkflow(
			ACCOUNT,
			{
				resource: 'sms',
				operation: 'send',
				phoneDocId: { __rl: true, mode: 'id', value: sandbox().numbers.main },
				to: TEST_NUMBERS.customer,
				message: '={{ $json.text }}',
				...parameters,
			},
			{ continueOnFail },
		),
		{
			credentials: accountCredentials(sandbox()),
			input: items(texts.length, (i) => ({ text: texts[i] })),
		},
	);

describe('Comms Unified SMS Send', () => {
	it('a 2,000,000-character SMS is refused before sending, naming Max Segments and its value; nothing is sent', async () => {
		const result = await unified({}, ['x'.repeat(2_000_000)]);
		expect(result.error?.message).toBe(
			'Message is 2,000,000 characters long: 12,500 segments of 160 characters, more than Max Segments (10). It was not sent.',
		);
		expect((result.error as unknown as { description: string }).description).toMatch(
			/^Sent, it would cost 37500p \(£375\.00\) with a live key \(3p an SMS\)\. It starts "x{40}…"\. Shorten it, or raise Max Segments under Options/,
		);
		expect(sends()).toHaveLength(0);
	});

	it('with Continue On Fail the long one is an error item (not sent) and the others go', async () => {
		const result = await unified({}, ['Your order is ready', 'y'.repeat(1601), 'z'.repeat(1600)], {
			continueOnFail: true,
		});
		const output = result.output('Node').map((item) => item.json);
		expect(output[0].error).toBeUndefined();
		expect(output[1]).toMatchObject({
			error:
				'Message is 1,601 characters long: 11 segments of 160 characters, more than Max Segments (10). It was not sent.',
			outcome: 'notSent',
		});
		expect(output[2].error).toBeUndefined();
		expect(sends()).toHaveLength(2);
	});

	it('Max Segments raised under Options lets a longer one go; lowered, it refuses a shorter one', async () => {
		// The sandbox, where the API documents no maximum, takes at most 1,600 characters (its own
		// refusal, which the node cannot tell from an unknown outcome): what matters here is that
		// the node sent it.
		const raised = await unified({ options: { maxSegments: 20 } }, ['x'.repeat(3000)], {
			continueOnFail: true,
		});
		expect(raised.output('Node')[0].json.apiCode).toBe('INVALID_PARAMETERS');
		expect(sends()).toHaveLength(1);
		const lowered = await unified({ options: { maxSegments: 1 } }, ['x'.repeat(161)]);
		expect(lowered.error?.message).toMatch(
			/2 segments of 160 characters, more than Max Segments \(1\)/,
		);
		expect(sends()).toHaveLength(1);
	});

	it('a Max Segments that is not a whole number of at least 1 is refused, naming the value', async () => {
		const result = await unified({ options: { maxSegments: '={{ "lots" }}' } }, ['Hello']);
		expect(result.error?.message).toBe('Max Segments "lots" must be a whole number from 1');
		expect(sends()).toHaveLength(0);
	});

	it('Send and Wait counts the answer link with the message', async () => {
		const result = await unified({ operation: 'sendAndWait', responseType: 'freeText' }, [
			'q'.repeat(1500),
		]);
		expect(result.error?.message).toMatch(
			/^Message with the answer link is 1,6\d\d characters long: 11 segments of 160 characters, more than Max Segments \(10\)\. It was not sent\.$/,
		);
		expect(sends()).toHaveLength(0);
	});
});

describe('Comms Account SMS Send', () => {
	it('Max Segments lowered to 3 refuses a 481-character SMS before sending; 480 characters go', async () => {
		const result = await account(
			{ options: { maxSegments: 3 } },
			['a'.repeat(480), 'b'.repeat(481)],
			true,
		);
		const output = result.output('Node').map((item) => item.json);
		expect(output[0]).toMatchObject({ segmentsUsed: 3 });
		expect(output[1]).toMatchObject({
			error:
				'Message is 481 characters long: 4 segments of 160 characters, more than Max Segments (3). It was not sent.',
			outcome: 'notSent',
		});
		expect(sends()).toHaveLength(1);
	});

	it("above the API's own 10 segments Max Segments is refused, naming the value and the limit", async () => {
		const result = await account({ options: { maxSegments: 11 } }, ['Hello']);
		expect(result.error?.message).toBe('Max Segments "11" must be a whole number from 1 to 10');
		expect(sends()).toHaveLength(0);
	});

	it('Send and Wait counts the answer link with the message', async () => {
		const result = await account({ operation: 'sendAndWait', options: { maxSegments: 2 } }, [
			'q'.repeat(200),
		]);
		expect(result.error?.message).toMatch(
			/^Message with the answer link is 3\d\d characters long: 3 segments of 160 characters, more than Max Segments \(2\)/,
		);
		expect(sends()).toHaveLength(0);
	});
});
