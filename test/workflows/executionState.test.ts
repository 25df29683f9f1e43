/**
 * What holds for an execution holds across n8n parking it: the Spending Cap's spend and the
 * memory of what a failed node run carried out live in the data n8n saves with the execution
 * (nodes/shared/runtime/executionMemory.ts), not in the engine or the process. A parked execution is
 * resumed here as n8n does it: its saved data through JSON, run by a new engine with a new
 * cancel signal (harness `resumeWorkflow`); the editor's Retry of a failed execution likewise
 * (`retryFailedExecution`). The real n8n runs the same with a Wait of 70 s and a restart while it
 * waits (test/e2e/scenarios/execution-state.ts).
 */
import type {
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import {
	CREDENTIAL_REFS,
	resumeWorkflow,
	retryFailedExecution,
	runWorkflow,
	START,
	type WorkflowJson,
} from '../../harness';
import { TEST_NUMBERS } from '../../sandbox';
import { accountCredentials, unifiedCredentials, useSandbox } from '../support/sandbox';
import { items } from '../support/workflows';

const sandbox = useSandbox();

const node = (name: string, type: string, parameters: INodeParameters, x: number): INode => ({
	id: name,
	name,
	type,
	typeVersion: 1,
	position: [x, 0],
	parameters,
	credentials: CREDENTIAL_REFS,
});

/** Nodes one after the other, from Start. */
function chain(...nodes: INode[]): WorkflowJson {
	const all = [START, ...nodes];
	const connections: WorkflowJson['connections'] = {};
	for (let i = 0; i < all.length - 1; i++)
		connections[all[i].name] = { main: [[{ node: all[i + 1].name, type: 'main', index: 0 }]] };
	return { nodes: all, connections };
}

const UNIFIED = 'n8n-nodes-comms-api.commsUnified';
const unifiedSms = (name: string, x: number, capPence = 9) =>
	node(
		name,
		UNIFIED,
		{
			resource: 'sms',
			operation: 'send',
			to: '={{ $json.to ?? "+447700900123" }}',
			message: 'Your table is ready',
			options: { spendingCapPence: capPence },
		},
		x,
	);
const wait = (x: number): INode => ({
	id: 'Wait',
	name: 'Wait',
	type: 'n8n-nodes-base.wait',
	typeVersion: 1.1,
	position: [x, 0],
	parameters: { amount: 70, unit: 'seconds' },
});

const unifiedSent = () =>
	sandbox()
		.requests()
		.filter((entry) => entry.api === 'unified' && entry.method === 'POST' && entry.status === 200);

const twoRecipients = items(2, (i) => ({ to: ['+447700900123', '+447700900124'][i] }));

describe('the Spending Cap counts the whole execution, across a park', () => {
	it('SMS ×2 (cap 9p) → Wait 70 s (parked, resumed by a new engine from the saved data) → SMS ×2 (cap 9p): 3 SMS, the 4th refused', async () => {
		const workflow = chain(unifiedSms('Before', 200), wait(400), unifiedSms('After', 600));
		const credentials = unifiedCredentials(sandbox());
		const parked = await runWorkflow(workflow, { credentials, input: twoRecipients });
		expect(parked.run.waitTill).toBeDefined();
		expect(parked.output('Before')).toHaveLength(2);
		expect(unifiedSent()).toHaveLength(2);

		const resumed = await resumeWorkflow(workflow, parked, { credentials });
		expect(resumed.error).toBeDefined();
		expect(resumed.error?.message).toBe(
			"Spending Cap: this SMS would cost 3p and take this execution's spend to 12p, above the cap of 9p. It was not sent.",
		);
		expect(unifiedSent()).toHaveLength(3);
		const description = (resumed.error as unknown as { description: string }).description;
		expect(description).toMatch(/^Spent so far in this execution: 9p\./);
		expect(description).toMatch(/already carried out: item 1 \(SMS to \+447700900123/);
	});

	it("the same with this package's own Send and Wait parking it: send, wait for an answer, send more", async () => {
		const ask = node(
			'Ask',
			UNIFIED,
			{
				resource: 'sms',
				operation: 'sendAndWait',
				to: '+447700900125',
				message: 'Shall we go ahead?',
				responseType: 'approval',
				options: {
					spendingCapPence: 9,
					limitWaitTime: {
						values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'hours' },
					},
				},
			},
			400,
		);
		const one: INode = { ...node('One', 'test.firstItem', {}, 300), credentials: undefined };
		// Two SMS, then the question to one person (the wait takes one item), then two more.
		const workflow = chain(unifiedSms('Before', 200), one, ask, unifiedSms('After', 600));
		const nodeTypes = { 'test.firstItem': new FirstItem() };
		const credentials = unifiedCredentials(sandbox());
		const parked = await runWorkflow(workflow, { credentials, input: twoRecipients, nodeTypes });
		expect(parked.run.waitTill).toBeDefined();
		expect(unifiedSent()).toHaveLength(3);
		// Nobody answers within the limit: n8n resumes it, on a new engine, from the saved data.
		const resumed = await resumeWorkflow(workflow, parked, { credentials, nodeTypes });
		expect(resumed.error?.message).toMatch(
			/^Spending Cap: this SMS would cost 3p and take this execution's spend to 12p, above the cap of 9p/,
		);
		expect(unifiedSent()).toHaveLength(3);
	});

	it("what was proven not sent counts nothing: after a refused connection the execution's spend is 0p", async () => {
		const refusing = {
			commsUnifiedApi: {
				apiKey: sandbox().credentials.unified.live,
				// A port where nothing listens: every connection is refused, so nothing was sent.
				endpointUrl: 'http://127.0.0.1:1/unified',
			},
		};
		const first = chain({ ...unifiedSms('Refused', 200), onError: 'continueRegularOutput' });
		const refused = await runWorkflow(first, { credentials: refusing, input: items(1) });
		const output = refused.output('Refused');
		expect(output.map((item) => item.json.outcome)).toEqual(['notSent']);
		// The spend the execution keeps (what a later node, or a resume, reads) is 0.
		const record = refused.run.data.executionData?.contextData.flow as
			{ commsApi?: { spentUnits?: number } } | undefined;
		expect(record?.commsApi?.spentUnits ?? 0).toBe(0);
	}, 60_000);
});

describe('Retry On Fail memory lives with the execution: the editor Retry of a failed execution resends nothing carried out', () => {
	const accountSms = (onError?: 'continueRegularOutput') =>
		chain({
			...node(
				'Send',
				'n8n-nodes-comms-api.commsAccount',
				{
					resource: 'sms',
					operation: 'send',
					phoneDocId: { __rl: true, mode: 'id', value: sandbox().numbers.main },
					to: '={{ $json.to }}',
					message: 'Your parcel arrives today',
				},
				200,
			),
			...(onError ? { onError } : {}),
		});
	const accountSent = () =>
		sandbox()
			.requests()
			.filter(
				(entry) => entry.method === 'POST' && entry.path === '/v1/sms' && entry.status === 201,
			);

	it('item 1 sent, item 2 refused by the carrier: the retried execution outputs item 1 as sent and asks again only for item 2', async () => {
		const workflow = accountSms();
		const credentials = accountCredentials(sandbox());
		const input = items(2, (i) => ({
			to: [TEST_NUMBERS.customer, TEST_NUMBERS.carrierRejects][i],
		}));
		const failed = await runWorkflow(workflow, { credentials, input });
		expect(failed.error?.message).toMatch(/carrier rejected/);
		expect(accountSent()).toHaveLength(1);

		const retried = await retryFailedExecution(workflow, failed, { credentials });
		expect(retried.error?.message).toMatch(/carrier rejected/);
		expect(accountSent()).toHaveLength(1);
		expect((retried.error as unknown as { description: string }).description).toMatch(
			new RegExp(`already carried out: item 1 \\(SMS to \\${TEST_NUMBERS.customer}, messageId SM`),
		);
		// The carrier was asked again for item 2 only.
		const carrier = sandbox()
			.requests()
			.filter((entry) => entry.method === 'POST' && entry.status === 502);
		expect(carrier).toHaveLength(2);
	});
});

/** Passes its first input item on: Send and Wait waits for one person. */
class FirstItem implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'First Item',
		name: 'firstItem',
		group: ['transform'],
		version: 1,
		description: 'Test fixture',
		defaults: { name: 'First Item' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [[this.getInputData()[0]]];
	}
}
