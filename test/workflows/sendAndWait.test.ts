/**
 * SMS Send and Wait for Response, run by n8n's engine against the sandbox: the SMS carries the
 * message and n8n's signed resume link, goes through the normal send (its checks, Spending Cap,
 * never-twice path), and the execution waits; what the node leaves for a timeout says so. The
 * waiting webhook's page and answers are checked as pure functions here and in a real n8n with a
 * browser by the end-to-end run (test/e2e/scenarios/ai-agent/).
 */
import type { INodeParameters } from 'n8n-workflow';

import { runWorkflow } from '../../harness';
import { answerPage } from '../../nodes/shared/runtime/sendAndWait/page';
import { answerOf } from '../../nodes/shared/runtime/sendAndWait/webhook';
import { TEST_NUMBERS } from '../../sandbox';
import { accountCredentials, unifiedCredentials, useSandbox } from '../support/sandbox';
import { items, singleNodeWorkflow } from '../support/workflows';

const sandbox = useSandbox();
const LINK =
	/^http:\/\/127\.0\.0\.1:5678\/webhook-waiting\/harness-execution\/node\?signature=[0-9a-f]{64}$/;

const account = (parameters: INodeParameters, input = items(1)) =>
	runWorkflow(
		singleNodeWorkflow('n8n-nodes-comms-api.commsAccount', {
			resource: 'sms',
			operation: 'sendAndWait',
			phoneDocId: { __rl: true, mode: 'id', value: sandbox().numbers.main },
			to: TEST_NUMBERS.customer,
			message: 'Shall we book you in for Tuesday?',
			...parameters,
		}),
		{ credentials: accountCredentials(sandbox()), input },
	);

const unified = (parameters: INodeParameters) =>
	runWorkflow(
		singleNodeWorkflow('n8n-nodes-comms-api.commsUnified', {
			resource: 'sms',
			operation: 'sendAndWait',
			to: TEST_NUMBERS.customer,
			message: 'What time suits you?',
			responseType: 'freeText',
			...parameters,
		}),
		{ credentials: unifiedCredentials(sandbox(), sandbox().credentials.unified.live) },
	);

const smsPosts = () =>
	sandbox()
		.requests()
		.filter((r) => r.method === 'POST' && (r.path === '/v1/sms' || r.api === 'unified'));

it('Comms Account: the SMS carries the message and the signed link; the execution waits until the limit', async () => {
	const before = Date.now();
	const result = await account({
		options: {
			limitWaitTime: {
				values: { limitType: 'afterTimeInterval', resumeAmount: 30, resumeUnit: 'minutes' },
			},
		},
	});
	expect(result.error).toBeUndefined();
	const posts = smsPosts();
	expect(posts).toHaveLength(1);
	const [question, link] = String((posts[0].body as { message: string }).message).split('\n');
	expect(question).toBe('Shall we book you in for Tuesday?');
	expect(link).toMatch(LINK);
	// The output while waiting is the sent SMS, its segments counted with the link.
	const [sent] = result.output('Node');
	expect(sent.json).toMatchObject({ status: 'sent', to: TEST_NUMBERS.customer, segmentsUsed: 2 });
	const waitTill = result.run.waitTill as Date;
	expect(waitTill.getTime()).toBeGreaterThanOrEqual(before + 30 * 60_000);
	expect(waitTill.getTime()).toBeLessThan(Date.now() + 30 * 60_000 + 1);
	// If nobody answers, n8n runs on with what the node left on its place in the stack: the input
	// item (the answer page's expressions read it) with the wait's outcome.
	const stacked = result.run.data.executionData?.nodeExecutionStack[0];
	expect(stacked?.node.name).toBe('Node');
	expect(stacked?.data.main[0]?.[0].json).toEqual({
		i: 0,
		timedOut: true,
		responseType: 'approval',
		approved: false,
		waitedUntil: waitTill.toISOString(),
		sms: sent.json,
	});
});

it('Comms Account: without Limit Wait Time the execution waits until answered', async () => {
	const result = await account({});
	expect(result.error).toBeUndefined();
	expect((result.run.waitTill as Date).getFullYear()).toBe(3000);
});

it('takes one item: two items fail before anything is sent', async () => {
	const result = await account({}, items(2));
	expect(result.error?.message).toMatch(/received 2 items; nothing was sent/);
	expect(smsPosts()).toHaveLength(0);
});

it('a message too long with the link fails before sending, naming Message and the room left', async () => {
	const result = await account({ message: 'x'.repeat(1550) });
	expect(result.error?.message).toMatch(
		/Message with the answer link is \d+ characters long; the limit is 1600/,
	);
	expect(result.error?.description).toMatch(/Shorten the message to \d+ characters or fewer/);
	expect(smsPosts()).toHaveLength(0);
});

it('a bad number fails before sending, as in Send', async () => {
	const result = await account({ to: '12' });
	expect(result.error?.message).toMatch(/To "12"/);
	expect(smsPosts()).toHaveLength(0);
});

it('Comms Unified: the link is priced with the message, so the Spending Cap counts it', async () => {
	// 100 characters and the link make two SMS (6p): above a 5p cap, refused before sending.
	const refused = await unified({ message: 'y'.repeat(100), options: { spendingCapPence: 5 } });
	expect(refused.error?.message).toMatch(/Spending Cap: this SMS would cost 6p/);
	expect(smsPosts()).toHaveLength(0);
	const sent = await unified({ options: { spendingCapPence: 6 } });
	expect(sent.error).toBeUndefined();
	expect(smsPosts()).toHaveLength(1);
	expect(sent.output('Node')[0].json.billing).toMatchObject({ mode: 'live' });
});

describe('the answer page', () => {
	const approval = { responseType: 'approval' as const, declineLabel: 'No thanks' };

	it('only a posted choice answers; anything else does not', () => {
		expect(answerOf(approval, { approved: 'true' })).toEqual({ approved: true });
		expect(answerOf(approval, { approved: 'false' })).toEqual({ approved: false });
		expect(answerOf(approval, {})).toBeUndefined();
		expect(answerOf(approval, { approved: 'yes' })).toBeUndefined();
		// Approve Only: a forged "decline" is not an answer.
		expect(answerOf({ responseType: 'approval' }, { approved: 'false' })).toBeUndefined();
		expect(answerOf({ responseType: 'freeText' }, { text: '  After 2pm ' })).toEqual({
			text: 'After 2pm',
		});
		expect(answerOf({ responseType: 'freeText' }, { text: '   ' })).toBeUndefined();
	});

	it('shows the message and the labels as text, never as markup', () => {
		const page = answerPage({
			responseType: 'approval',
			message: '<script>alert(1)</script> Tuesday?',
			approveLabel: 'Yes & book',
			declineLabel: '"No"',
		});
		expect(page).not.toContain('<script>alert');
		expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt; Tuesday?');
		expect(page).toContain('>Yes &amp; book</button>');
		expect(page).toContain('>&quot;No&quot;</button>');
		expect(page).toContain('<form method="post"');
	});
});
