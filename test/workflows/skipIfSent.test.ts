/**
 * Comms Account SMS Send's "Skip If Sent Within (Minutes)": running a failed execution again
 * (n8n's most reported duplicate) does not resend what already went.
 */
import { runWorkflow } from '../../harness';
import { TEST_NUMBERS } from '../../sandbox';
import { accountCredentials, useSandbox } from '../support/sandbox';
import { items, singleNodeWorkflow } from '../support/workflows';

const sandbox = useSandbox();

function send(
	recipients: string[],
	{ text = 'Your order has shipped', minutes = 10, continueOnFail = false } = {},
) {
	return runWorkflow(
		singleNodeWorkflow(
			'n8n-nodes-comms-api.commsAccount',
			{
				resource: 'sms',
				operation: 'send',
				phoneDocId: { __rl: true, mode: 'id', value: sandbox().numbers.main },
				to: '={{ $json.to }}',
				message: text,
				options: minutes ? { skipIfSentWithinMinutes: minutes } : {},
			},
			{ continueOnFail },
		),
		{
			credentials: accountCredentials(sandbox()),
			input: items(recipients.length, (i) => ({ to: recipients[i] })),
		},
	);
}

const requests = (method: string) =>
	sandbox()
		.requests()
		.filter((entry) => entry.method === method && entry.path === '/v1/sms');

it('running a failed execution again sends only what did not go: the SMS already sent is output with skipped: true', async () => {
	const first = await send([TEST_NUMBERS.customer, TEST_NUMBERS.carrierRejects]);
	expect(first.error?.message).toMatch(/carrier rejected/);
	const sentFirst = requests('POST').filter((entry) => entry.status === 201);
	expect(sentFirst).toHaveLength(1);

	const again = await send([TEST_NUMBERS.customer, TEST_NUMBERS.carrierRejects], {
		continueOnFail: true,
	});
	const [item, failed] = again.output('Node');
	expect(item.json).toMatchObject({
		skipped: true,
		to: TEST_NUMBERS.customer,
		phoneDocId: sandbox().numbers.main,
		segmentsUsed: 1,
	});
	expect(item.json.skippedBecause).toMatch(/within the last 10 minutes .*Nothing was sent\./);
	const { record } = await sandbox().control.get(item.json.messageId as string);
	expect(record.body).toBe('Your order has shipped');
	// Item 2 was tried again (it had not gone); item 1 was not.
	expect(failed.json.error).toMatch(/carrier rejected/);
	expect(requests('POST').filter((entry) => entry.status === 201)).toHaveLength(1);
	// One history request per item.
	expect(requests('GET')).toHaveLength(4);
});

it('another text, or another recipient, is sent; with the option off, the same SMS is sent again', async () => {
	await send([TEST_NUMBERS.customer]);
	const other = await send([TEST_NUMBERS.customer], { text: 'Your order was delivered' });
	expect(other.output('Node')[0].json.skipped).toBeUndefined();
	const elsewhere = await send(['+447700900124']);
	expect(elsewhere.output('Node')[0].json.skipped).toBeUndefined();
	const off = await send([TEST_NUMBERS.customer], { minutes: 0 });
	expect(off.output('Node')[0].json.skipped).toBeUndefined();
	expect(requests('POST').filter((entry) => entry.status === 201)).toHaveLength(4);
});

it('an SMS sent before the window is not a reason to skip', async () => {
	// A window of 0.02 minutes (1.2 s), and an SMS sent 6 s before (the server clock is known to
	// within a second and a request's length, so the margin leaves room for a busy machine).
	await send([TEST_NUMBERS.customer]);
	await new Promise((resolve) => setTimeout(resolve, 6_000));
	const later = await send([TEST_NUMBERS.customer], { minutes: 0.02 });
	expect(later.output('Node')[0].json.skipped).toBeUndefined();
	expect(requests('POST').filter((entry) => entry.status === 201)).toHaveLength(2);
}, 30_000);

it('a value that is not a number of minutes is refused before anything is sent', async () => {
	const result = await send([TEST_NUMBERS.customer], { minutes: -1 });
	expect(result.error?.message).toBe(
		'Skip If Sent Within (Minutes) "-1" must be a number of minutes, 0 or more',
	);
	expect(sandbox().requests()).toHaveLength(0);
});
