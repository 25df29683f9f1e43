/**
 * Which clock the nodes believe, run through n8n's engine against the sandbox: the API's clock
 * skewed from n8n's either way (the sandbox's `setClockSkew`, which its records and its own Date
 * header follow), and a gateway in front of it that writes its own Date header, ahead or behind,
 * and answers an HTML 502 after the request went through (test/support/faultyProxy.ts). The
 * cases reported in issue 36: the history look-up of an SMS whose outcome is unknown, and an SMS
 * arriving just after the Comms Account Trigger is published. The sandbox's request log is the
 * truth of what was sent.
 */
import type { INodeParameters } from 'n8n-workflow';

import { PollHarness, type PollRun, runWorkflow } from '../../harness';
import { TEST_NUMBERS } from '../../sandbox';
import { useFaultyProxy } from '../support/faultyProxy';
import { accountCredentials, smsSentElsewhere, useSandbox } from '../support/sandbox';
import {
	accountTriggerWorkflow,
	items,
	singleNodeWorkflow,
	smsSendParameters,
} from '../support/workflows';

const sandbox = useSandbox();
const proxy = useFaultyProxy(() => sandbox().accountBaseUrl, { requestTimeoutMs: 2_000 });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const credentials = () =>
	accountCredentials(sandbox(), sandbox().credentials.account.unrestricted, proxy().url);

function sendSms(texts: string[], to: string = TEST_NUMBERS.customer) {
	// Skip If Sent Within off: these tests are about the look-up after a send, not the history
	// read before it (which would take another n8n's identical SMS for this one's).
	const workflow = singleNodeWorkflow(
		'n8n-nodes-comms-api.commsAccount',
		smsSendParameters(sandbox().numbers.main),
	);
	return runWorkflow(workflow, {
		credentials: credentials(),
		input: items(texts.length, (i) => ({ text: texts[i], to })),
	});
}

/**
 * Reads an SMS this n8n sent back from the history (Skip If Sent Within reads it before sending),
 * so that its record shows the API's clock, both ways: the item's output.
 */
async function readBack(text: string) {
	// Skip If Sent Within's window ends where records made after the execution began start, known
	// within the same-moment floor (3 s): the SMS must be older than that to be in it.
	await new Promise((resolve) => setTimeout(resolve, 5_000));
	const workflow = singleNodeWorkflow('n8n-nodes-comms-api.commsAccount', {
		resource: 'sms',
		operation: 'send',
		phoneDocId: { __rl: true, mode: 'id', value: sandbox().numbers.main },
		to: TEST_NUMBERS.customer,
		message: text,
		options: { skipIfSentWithinMinutes: 5 },
	});
	const result = await runWorkflow(workflow, { credentials: credentials(), input: items(1) });
	return result.output('Node')[0].json;
}

/** The SMS the sandbox sent, by text. */
const smsSent = () =>
	sandbox()
		.requests()
		.filter((entry) => entry.method === 'POST' && entry.path === '/v1/sms' && entry.status === 201)
		.map((entry) => (entry.body as { message: string }).message);

describe('SMS Send: the history look-up after an HTML 502 from a gateway with a clock of its own', () => {
	it.each([
		// [gateway's Date off n8n's clock, the API's clock off n8n's] (ms)
		[2_000, 0],
		[2_500, 0],
		[3_000, 0],
		[-3_000, 0],
		[2_500, -1_200],
		[2_500, 1_200],
	])(
		'gateway Date %i ms, API clock %i ms: the SMS went once, and is found in the history',
		async (gatewayMs, apiMs) => {
			sandbox().control.setClockSkew(apiMs / 1000);
			proxy().gatewayDate(gatewayMs);
			// One SMS through the gateway first (its Date is on every answer), then one the gateway
			// answers with an HTML 502 after the API sent it.
			proxy().inject('POST', '/v1/sms', 'pass', 'gateway502After');
			const texts = [`Reminder A ${gatewayMs}/${apiMs}`, `Reminder B ${gatewayMs}/${apiMs}`];
			const result = await sendSms(texts);
			expect(result.error).toBeUndefined();
			expect(smsSent()).toEqual(texts);
			const [, second] = result.output('Node');
			expect(second.json).toMatchObject({
				recovered: 'foundInHistory',
				recoveredAfter: 'HTTP 502',
			});
		},
	);

	it("the API's clock 8 s behind, nothing measured yet: a send never goes twice, and the look-up is not fooled by the gateway", async () => {
		sandbox().control.setClockSkew(-8);
		proxy().gatewayDate(2_500);
		proxy().inject('POST', '/v1/sms', 'gateway502After');
		const result = await sendSms(['Your table is ready']);
		// Its own record lies where an identical earlier SMS could: neither taken nor sent again.
		expect(smsSent()).toEqual(['Your table is ready']);
		expect(result.error?.message).toMatch(/not known well enough/);
		expect(result.error?.message).toMatch(/It was sent once, and was not sent again/);
	});

	it("the API's clock 8 s behind, measured by an SMS the node sent and read back: the record is found", async () => {
		sandbox().control.setClockSkew(-8);
		proxy().gatewayDate(2_500);
		// An SMS sent and found again (Skip If Sent Within reads the history before sending): the
		// record this process made shows the API's clock, both ways.
		const measured = await sendSms(['Measure']);
		expect(measured.error).toBeUndefined();
		expect(await readBack('Measure')).toMatchObject({ skipped: true });
		proxy().inject('POST', '/v1/sms', 'gateway502After');
		const result = await sendSms(['Your table is ready now']);
		expect(result.error).toBeUndefined();
		expect(smsSent()).toEqual(['Measure', 'Your table is ready now']);
		expect(result.output('Node')[0].json).toMatchObject({ recovered: 'foundInHistory' });
	});

	it('an identical SMS sent 30 s before, by another n8n, is never taken for this one', async () => {
		// Sent by someone else (nothing in this process claims it), 30 s before by the API's clock,
		// which then agrees with n8n's again; nothing has measured it.
		sandbox().control.setClockSkew(-30);
		const earlier = await smsSentElsewhere(sandbox(), 'Same text');
		sandbox().control.setClockSkew(0);
		proxy().gatewayDate(2_500);
		proxy().inject('POST', '/v1/sms', 'gateway502After');
		const result = await sendSms(['Same text']);
		expect(result.error).toBeUndefined();
		expect(smsSent()).toEqual(['Same text', 'Same text']);
		const [item] = result.output('Node');
		expect(item.json).toMatchObject({ recovered: 'foundInHistory' });
		expect(item.json.messageId).not.toBe(earlier);
	});
});

describe("SMS Send: the API's clock steps back 8 s after records were stamped 3 s ahead", () => {
	it.each([
		['by this n8n', true],
		['by another n8n', false],
	])(
		'SMS stamped while the clock was ahead (%s), then one whose answer is lost: it goes once, and is not sent again',
		async (_by, byThisN8n) => {
			sandbox().control.setClockSkew(3);
			const ahead = ['Stamped ahead 1', 'Stamped ahead 2'];
			if (byThisN8n) expect((await sendSms(ahead)).error).toBeUndefined();
			else for (const text of ahead) await smsSentElsewhere(sandbox(), text);
			// The clock is set back (an NTP correction, a restart, another server behind the address).
			sandbox().control.setClockSkew(-8);
			proxy().inject('POST', '/v1/sms', 'gateway502After');
			const result = await sendSms(['Your table is ready']);
			expect(smsSent()).toEqual([...ahead, 'Your table is ready']);
			// Its own record lies where nothing measured can tell it from an earlier identical SMS.
			expect(result.error?.message).toMatch(/It was sent once, and was not sent again/);
		},
	);

	it('once an SMS the node sent after the step is read back, the record is found', async () => {
		sandbox().control.setClockSkew(3);
		expect((await sendSms(['Stamped ahead'])).error).toBeUndefined();
		sandbox().control.setClockSkew(-8);
		expect((await sendSms(['Measure'])).error).toBeUndefined();
		// Read back (Skip If Sent Within reads the history), beside the records stamped ahead.
		expect(await readBack('Measure')).toMatchObject({ skipped: true });
		proxy().inject('POST', '/v1/sms', 'gateway502After');
		const result = await sendSms(['Your table is ready now']);
		expect(result.error).toBeUndefined();
		expect(smsSent()).toEqual(['Stamped ahead', 'Measure', 'Your table is ready now']);
		expect(result.output('Node')[0].json).toMatchObject({ recovered: 'foundInHistory' });
	});
});

describe('Comms Account Trigger: the starting point when the clocks disagree', () => {
	const trigger = (parameters: INodeParameters = {}, cursors?: 'durable') =>
		new PollHarness(accountTriggerWorkflow(parameters), { credentials: credentials(), cursors });
	const ids = (run: PollRun) => (run.items ?? []).map((item) => item.json.id);

	/**
	 * Three times (once with the durable scheduler's cursors): `before`, then the trigger is
	 * published, and an SMS arrives half a second later: the first poll emits it, once.
	 */
	async function emittedOnceAfterPublishing(before: (run: number) => void) {
		for (let run = 0; run < 3; run++) {
			before(run);
			const harness = trigger({}, run === 1 ? 'durable' : undefined);
			expect((await harness.activate()).error).toBeUndefined();
			await sleep(500);
			const [sms] = sandbox().control.injectInboundSms({ body: `After ${run}` });
			const first = await harness.poll();
			expect(first.error).toBeUndefined();
			expect(ids(first)).toEqual([sms.id]);
			expect((await harness.poll()).items).toBeNull();
		}
	}

	it.each([
		[-1_200, undefined],
		[-1_000, undefined],
		[-1_200, 2_500],
		[-20_000, undefined],
		[-300_000, 2_500],
		[2_500, -3_000],
	])(
		"the API's clock %i ms off n8n's (gateway Date %s ms): an SMS half a second after publishing is emitted once, three times in three",
		async (apiMs, gatewayMs) => {
			sandbox().control.setClockSkew(apiMs / 1000);
			proxy().gatewayDate(gatewayMs);
			// A message from before publishing, a moment before it by the API's clock.
			await emittedOnceAfterPublishing((run) =>
				sandbox().control.injectInboundSms({ body: `Before ${run}` }),
			);
		},
	);

	it("the API's clock steps back 8 s after an SMS was stamped 3 s ahead: an SMS half a second after publishing is emitted once", async () => {
		// The SMS after publishing is stamped before the one that came before it: the clock went back.
		await emittedOnceAfterPublishing((run) => {
			sandbox().control.setClockSkew(3);
			sandbox().control.injectInboundSms({ body: `Stamped ahead ${run}` });
			sandbox().control.setClockSkew(-8);
		});
	});
});
