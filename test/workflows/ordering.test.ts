/**
 * Order where a person would notice: several SMS to one recipient in one execution leave in
 * item order, even when a stricter server makes some of them wait out a 429 and retry; SMS to
 * different recipients still go concurrently. Run by n8n's engine against the sandbox.
 */
import { runWorkflow } from '../../harness';
import { accountCredentials, useSandbox } from '../support/sandbox';
import { items, singleNodeWorkflow } from '../support/workflows';

const sandbox = useSandbox();
const RECIPIENTS = ['+447700900123', '+447700900124', '+447700900125'];
const PER_RECIPIENT = 6;

it('SMS to one recipient leave in item order through 429s and retries; recipients interleave', async () => {
	// The very first SMS is refused with a 429 (Retry-After 1 s) and must be sent again; without
	// ordering, the recipient's later SMS, already under way, would overtake it.
	sandbox().control.injectFailure({
		status: 429,
		count: 1,
		api: 'account',
		path: '/v1/sms',
		method: 'POST',
	});
	const input = items(RECIPIENTS.length * PER_RECIPIENT, (i) => {
		const to = RECIPIENTS[i % RECIPIENTS.length];
		return { to, text: `${to} #${Math.floor(i / RECIPIENTS.length) + 1}` };
	});
	const workflow = singleNodeWorkflow('n8n-nodes-comms-api.commsAccount', {
		resource: 'sms',
		operation: 'send',
		phoneDocId: { __rl: true, mode: 'id', value: sandbox().numbers.main },
		to: '={{ $json.to }}',
		message: '={{ $json.text }}',
	});
	const result = await runWorkflow(workflow, { credentials: accountCredentials(sandbox()), input });
	expect(result.error).toBeUndefined();

	const log = sandbox()
		.requests()
		.filter((entry) => entry.method === 'POST' && entry.path === '/v1/sms');
	expect(log.some((entry) => entry.status === 429)).toBe(true);
	const accepted = log
		.filter((entry) => entry.status === 201)
		.map((entry) => entry.body as { to: string; message: string });
	expect(accepted).toHaveLength(RECIPIENTS.length * PER_RECIPIENT);
	for (const to of RECIPIENTS) {
		const texts = accepted.filter((body) => body.to === to).map((body) => body.message);
		expect(texts).toEqual(Array.from({ length: PER_RECIPIENT }, (_, n) => `${to} #${n + 1}`));
	}
	// Concurrency across recipients: the second recipient's first SMS did not wait for all of the first's.
	const firstOfSecond = accepted.findIndex((body) => body.to === RECIPIENTS[1]);
	const lastOfFirst = accepted.map((body) => body.to).lastIndexOf(RECIPIENTS[0]);
	expect(firstOfSecond).toBeLessThan(lastOfFirst);
});
