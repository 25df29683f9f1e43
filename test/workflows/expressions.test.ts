/**
 * Parameter values from expressions, of every type an expression can give, through n8n's own
 * engine and expression evaluator (the `vm` engine real n8n 2.x uses): a number where text is
 * expected, a Luxon DateTime or a Date where a date is expected, an epoch number, and text
 * without an offset read in the workflow's time zone.
 */
import type { INodeParameters, IWorkflowSettings } from 'n8n-workflow';

import { runWorkflow } from '../../harness';
import { TEST_NUMBERS } from '../../sandbox';
import { accountCredentials, useSandbox } from '../support/sandbox';
import { items, singleNodeWorkflow } from '../support/workflows';

const ACCOUNT = 'n8n-nodes-comms-api.commsAccount';
const sandbox = useSandbox();
const rl = (value: string) => ({ __rl: true, mode: 'list', value });

function run(parameters: INodeParameters, settings?: IWorkflowSettings) {
	const workflow = { ...singleNodeWorkflow(ACCOUNT, parameters), settings };
	return runWorkflow(workflow, { credentials: accountCredentials(sandbox()), input: items(1) });
}

const sent = (path: string) =>
	sandbox()
		.requests()
		.filter((r) => r.path === path);

describe('values from expressions', () => {
	it('an SMS text of {{ 12345 }} (a one-time code) is sent as "12345"', async () => {
		const result = await run({
			resource: 'sms',
			operation: 'send',
			phoneDocId: rl(sandbox().numbers.main),
			to: TEST_NUMBERS.customer,
			message: '={{ 12345 }}',
			// Skip If Sent Within off: this test is about the send itself, not the history read before it.
			options: { skipIfSentWithinMinutes: 0 },
		});
		expect(result.error).toBeUndefined();
		expect((sent('/v1/sms')[0].body as { message: string }).message).toBe('12345');
	});

	it('numbers in Agent Phone, Customer Name and AI Instructions are read as text', async () => {
		const manual = await run({
			resource: 'call',
			operation: 'create',
			phoneDocId: rl(sandbox().numbers.main),
			to: TEST_NUMBERS.customer,
			mode: 'manual',
			agentPhone: '={{ 447700900456 }}',
			options: { defaultCountry: 'GB' },
		});
		expect(manual.error).toBeUndefined();
		expect(sent('/v1/calls')[0].body).toMatchObject({ agentPhone: '+447700900456' });

		const ai = await run({
			resource: 'call',
			operation: 'create',
			phoneDocId: rl(sandbox().numbers.main),
			to: TEST_NUMBERS.customer,
			mode: 'ai',
			customerName: '={{ 42 }}',
			aiInstructions: '={{ 7 }}',
		});
		expect(ai.error).toBeUndefined();
		expect(sent('/v1/calls')[1].body).toMatchObject({ customerName: '42', aiInstructions: '7' });
	});

	it('a numeric phoneDocId By ID is used, not refused as empty', async () => {
		const result = await run({
			resource: 'sms',
			operation: 'getAll',
			returnAll: false,
			limit: 5,
			filters: { phoneDocId: { __rl: true, mode: 'id', value: '={{ 12345 }}' } },
		});
		// Sent as "12345" (the sandbox has no such number, so it answers 404), not refused as empty.
		expect(result.error?.message).toMatch(/No number with that ID/);
		expect(sent('/v1/sms')[0].query.phoneDocId).toBe('12345');
	});

	it('a Since of {{ $now.minus({ hours: 1 }) }} (a Luxon DateTime) is sent as ISO 8601', async () => {
		const before = Date.now();
		const result = await run({
			resource: 'sms',
			operation: 'getAll',
			returnAll: false,
			limit: 5,
			filters: { since: '={{ $now.minus({ hours: 1 }) }}' },
		});
		expect(result.error).toBeUndefined();
		const since = Date.parse(sent('/v1/sms')[0].query.since);
		expect(Math.abs(since - (before - 3_600_000))).toBeLessThan(60_000);
	});

	it('a Since from a Date, or epoch seconds or milliseconds, is sent as ISO 8601', async () => {
		for (const expression of [
			'={{ new Date("2026-11-22T09:30:00Z") }}',
			'={{ 1795339800 }}',
			'={{ 1795339800000 }}',
		]) {
			const result = await run({
				resource: 'call',
				operation: 'getAll',
				mode: 'manual',
				returnAll: false,
				limit: 5,
				filters: { since: expression },
			});
			expect(result.error).toBeUndefined();
		}
		expect(sent('/v1/calls').map((r) => r.query.since)).toEqual([
			'2026-11-22T09:30:00.000Z',
			'2026-11-22T09:30:00.000Z',
			'2026-11-22T09:30:00.000Z',
		]);
	});

	it("a Since without an offset is read in the workflow's time zone", async () => {
		const result = await run(
			{
				resource: 'sms',
				operation: 'getAll',
				returnAll: false,
				limit: 5,
				filters: { since: '2026-07-01T09:30:00' },
			},
			{ timezone: 'Europe/London' },
		);
		expect(result.error).toBeUndefined();
		// London is on summer time (UTC+1) in July.
		expect(sent('/v1/sms')[0].query.since).toBe('2026-07-01T08:30:00.000Z');
	});

	it('a Since that is no date names the parameter and the value, and sends nothing', async () => {
		const result = await run({
			resource: 'sms',
			operation: 'getAll',
			returnAll: false,
			limit: 5,
			filters: { since: 'next Tuesday' },
		});
		expect(result.error?.message).toBe(
			'Since "next Tuesday" is not a date and time: it is not a date and time',
		);
		expect(sent('/v1/sms')).toHaveLength(0);
	});

	it('an object where text is expected names the parameter, and sends nothing', async () => {
		const result = await run({
			resource: 'sms',
			operation: 'send',
			phoneDocId: rl(sandbox().numbers.main),
			to: TEST_NUMBERS.customer,
			message: '={{ { code: 1 } }}',
		});
		expect(result.error?.message).toBe('Message must be text, but the expression gave Object');
		expect(sent('/v1/sms')).toHaveLength(0);
	});
});
