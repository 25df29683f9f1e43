/**
 * Many items through the Comms Account node against a rate-limited sandbox, run by n8n's
 * engine. The sandbox's window is shortened (rateWindowSeconds) so the documented behaviour
 * plays out in seconds. Only lower bounds on time are asserted: speed is measured by
 * `npm run bench`, not by tests.
 */
import { runWorkflow } from '../../harness';
import { TEST_NUMBERS } from '../../sandbox';
import { ACCOUNT_LIMIT } from '../../nodes/CommsAccount/api/accountApi';
import { setSharedLimit } from '../../nodes/shared/transport/pacing';
import { limiterScope } from '../../nodes/shared/transport';
import { accountCredentials, useSandbox } from '../support/sandbox';
import { items, singleNodeWorkflow } from '../support/workflows';

const sandbox = useSandbox();

afterEach(() => {
	// Each test starts from the documented limit: a limiter carries what it learnt between runs.
	const { apiKey, baseUrl } = accountCredentials(sandbox()).commsAccountApi;
	setSharedLimit(limiterScope('account', apiKey, baseUrl), ACCOUNT_LIMIT);
});

function sendMany(count: number) {
	const input = items(count, (i) => ({ text: `Message ${i + 1} of ${count}` }));
	const workflow = singleNodeWorkflow('n8n-nodes-comms-api.commsAccount', {
		resource: 'sms',
		operation: 'send',
		phoneDocId: { __rl: true, mode: 'id', value: sandbox().numbers.main },
		to: TEST_NUMBERS.customer,
		message: '={{ $json.text }}',
	});
	return runWorkflow(workflow, { credentials: accountCredentials(sandbox()), input });
}

function smsPosts() {
	return sandbox()
		.requests()
		.filter((entry) => entry.method === 'POST' && entry.path === '/v1/sms');
}

function expectEachSentOnce(count: number) {
	const sent = smsPosts().filter((entry) => entry.status === 201);
	const texts = sent.map((entry) => (entry.body as { message: string }).message);
	expect(texts).toHaveLength(count);
	expect(new Set(texts).size).toBe(count);
}

it('waits out the 429s of a server stricter than the documented limit: no failures, no duplicates, input order kept', async () => {
	sandbox().control.updateSettings({ accountRequestsPerMinute: 5, rateWindowSeconds: 1 });
	// The client knows the window's length (the API documents it) and a limit twice the server's.
	const { apiKey, baseUrl } = accountCredentials(sandbox()).commsAccountApi;
	setSharedLimit(limiterScope('account', apiKey, baseUrl), {
		perWindow: 10,
		windowMs: 1000,
		concurrency: 10,
	});
	const result = await sendMany(15);
	expect(result.error).toBeUndefined();
	const output = result.output('Node');
	expect(output).toHaveLength(15);
	output.forEach((item, i) => {
		expect(item.json.error).toBeUndefined();
		expect(item.pairedItem).toEqual({ item: i });
	});
	expectEachSentOnce(15);
	// Output item i is the SMS of input item i: the sandbox's record of its messageId has that text.
	for (const [i, item] of output.entries()) {
		const { record } = await sandbox().control.get(item.json.messageId as string);
		expect(record.body).toBe(`Message ${i + 1} of 15`);
	}
	expect(smsPosts().some((entry) => entry.status === 429)).toBe(true);
});

it('paced to the limit, never exceeds it in any window and needs no retry', async () => {
	const perWindow = 10;
	const windowMs = 2000;
	sandbox().control.updateSettings({
		accountRequestsPerMinute: perWindow,
		rateWindowSeconds: windowMs / 1000,
	});
	const { apiKey, baseUrl } = accountCredentials(sandbox()).commsAccountApi;
	setSharedLimit(limiterScope('account', apiKey, baseUrl), {
		perWindow,
		windowMs,
		concurrency: 10,
	});

	const started = Date.now();
	const result = await sendMany(25);
	const elapsed = Date.now() - started;

	expect(result.error).toBeUndefined();
	expect(result.output('Node')).toHaveLength(25);
	expect(smsPosts().filter((entry) => entry.status === 429)).toHaveLength(0);
	expectEachSentOnce(25);
	const times = smsPosts().map((entry) => Date.parse(entry.time));
	for (let i = perWindow; i < times.length; i++)
		expect(times[i] - times[i - perWindow]).toBeGreaterThanOrEqual(windowMs);
	// 25 requests at 10 per 2 s cannot finish before the third window opens.
	expect(elapsed).toBeGreaterThanOrEqual(2 * windowMs);
});
