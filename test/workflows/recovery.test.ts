/**
 * Never twice, never lost: SMS Send and Call Create through n8n's engine, against the sandbox
 * behind a proxy that fails chosen requests before they reach it (nothing was done) or after
 * it carried them out (the answer is lost). The client cannot tell the two apart; the node
 * looks the request up in the history, uses the record if it is there and sends again only
 * if it is not. The sandbox's own request log is the truth of what was done.
 */
import { runWorkflow } from '../../harness';
import { SAME_MOMENT_MS, UNMEASURED_SKEW_MS } from '../../nodes/shared/transport';
import { TEST_NUMBERS } from '../../sandbox';
import { type Fault, useFaultyProxy } from '../support/faultyProxy';
import { accountCredentials, useSandbox } from '../support/sandbox';
import { useStubServer } from '../support/stubServer';
import { items, singleNodeWorkflow, smsSendParameters } from '../support/workflows';

const sandbox = useSandbox();
const proxy = useFaultyProxy(() => sandbox().accountBaseUrl, { requestTimeoutMs: 2_000 });

const ACCOUNT = 'n8n-nodes-comms-api.commsAccount';
const credentials = () =>
	accountCredentials(sandbox(), sandbox().credentials.account.unrestricted, proxy().url);
const phoneDocId = () => ({ __rl: true, mode: 'id', value: sandbox().numbers.main });

/** One Send SMS node over `texts`, item i to `to[i % to.length]`. */
function sendSms(
	texts: string[],
	{ to = [TEST_NUMBERS.customer as string], continueOnFail = false } = {},
) {
	const workflow = singleNodeWorkflow(ACCOUNT, smsSendParameters(sandbox().numbers.main), {
		continueOnFail,
	});
	return runWorkflow(workflow, {
		credentials: credentials(),
		input: items(texts.length, (i) => ({ text: texts[i], to: to[i % to.length] })),
	});
}

/** What the sandbox actually did: one entry per SMS it sent. */
function smsSent() {
	return sandbox()
		.requests()
		.filter((entry) => entry.method === 'POST' && entry.path === '/v1/sms' && entry.status === 201)
		.map((entry) => (entry.body as { message: string }).message);
}

function callsPlaced() {
	return sandbox()
		.requests()
		.filter(
			(entry) => entry.method === 'POST' && entry.path === '/v1/calls' && entry.status === 201,
		);
}

const posts = (path: string) =>
	proxy().log.filter((entry) => entry.method === 'POST' && entry.path === path);
const lookups = (path: string) =>
	proxy().log.filter((entry) => entry.method === 'GET' && entry.path === path);

describe('SMS Send when the outcome of a send is unknown', () => {
	it.each<[Fault, string]>([
		['failAfter', 'HTTP 500'],
		['gatewayAfter', 'HTTP 504'],
		['dropAfter', 'ECONNRESET'],
	])(
		'carried out, answer lost (%s): found in the history, not sent again',
		async (fault, label) => {
			proxy().inject('POST', '/v1/sms', fault);
			const result = await sendSms(['Your code is 481516']);
			expect(result.error).toBeUndefined();
			expect(smsSent()).toEqual(['Your code is 481516']);
			const [item] = result.output('Node');
			const { record } = await sandbox().control.get(item.json.messageId as string);
			expect(record.body).toBe('Your code is 481516');
			expect(item.json).toMatchObject({
				to: TEST_NUMBERS.customer,
				phoneDocId: sandbox().numbers.main,
				status: 'sent',
				recoveredAfter: label,
				segmentsUsed: 1,
			});
			expect(item.json.recovery).toMatch(/found in the SMS history, so it was not sent again/);
			expect(posts('/v1/sms')).toHaveLength(1);
			expect(lookups('/v1/sms')).toHaveLength(1);
			const query = new URLSearchParams(lookups('/v1/sms')[0].query);
			expect(Object.fromEntries(query)).toMatchObject({
				phoneDocId: sandbox().numbers.main,
				peer: TEST_NUMBERS.customer,
				direction: 'sent',
			});
			expect(Date.parse(query.get('since')!)).toBeLessThanOrEqual(Date.now());
		},
	);

	it.each<[Fault, string]>([
		['failBefore', 'HTTP 500'],
		['gatewayBefore', 'HTTP 502'],
	])(
		'not carried out (%s): not in the history at any of four look-ups over the request timeout, so sent again, once',
		async (fault, label) => {
			proxy().inject('POST', '/v1/sms', fault);
			const result = await sendSms(['Your code is 271828']);
			expect(result.error).toBeUndefined();
			expect(smsSent()).toEqual(['Your code is 271828']);
			const [item] = result.output('Node');
			expect(item.json).toMatchObject({
				status: 'sent',
				recoveredAfter: label,
				recovered: 'sentAgain',
			});
			expect(item.json.recovery).toMatch(
				/not in the SMS history in 4 look-ups over \d+ seconds, so it had not been sent: the request was sent again, once/,
			);
			const { record } = await sandbox().control.get(item.json.messageId as string);
			expect(record.body).toBe('Your code is 271828');
			expect(posts('/v1/sms')).toHaveLength(2);
			expect(lookups('/v1/sms')).toHaveLength(4);
			// Every look-up came before the resend.
			const resend = proxy().log.indexOf(posts('/v1/sms')[1]);
			expect(
				proxy()
					.log.slice(0, resend)
					.filter((entry) => entry.method === 'GET'),
			).toHaveLength(4);
		},
	);

	it('identical SMS to one recipient in one execution: each item gets its own record, none is claimed twice', async () => {
		// Item 1 goes through; item 2 is carried out but its answer lost; item 3 fails before the server.
		proxy().inject('POST', '/v1/sms', 'pass', 'failAfter', 'failBefore');
		const result = await sendSms(['See you at 3', 'See you at 3', 'See you at 3']);
		expect(result.error).toBeUndefined();
		expect(smsSent()).toEqual(['See you at 3', 'See you at 3', 'See you at 3']);
		const output = result.output('Node');
		const ids = output.map((item) => item.json.messageId);
		expect(new Set(ids).size).toBe(3);
		expect(output.map((item) => item.json.recoveredAfter)).toEqual([
			undefined,
			'HTTP 500',
			'HTTP 500',
		]);
		expect(output[1].json.recovery).toMatch(/found/);
		expect(output[2].json.recovery).toMatch(/sent again/);
	});

	it('many items, faults before and after at random: never twice, none lost unreported, input order kept', async () => {
		const texts = Array.from({ length: 24 }, (_, i) => `Reminder ${i + 1}`);
		const faults: Fault[] = [
			'failAfter',
			'pass',
			'failBefore',
			'gatewayAfter',
			'pass',
			'dropAfter',
			'gatewayBefore',
			'pass',
		];
		proxy().inject('POST', '/v1/sms', ...faults, ...faults, ...faults);
		const recipients = ['+447700900123', '+447700900124', '+447700900125'];
		const result = await sendSms(texts, { to: recipients, continueOnFail: true });
		expect(result.error).toBeUndefined();
		const sent = smsSent();
		const output = result.output('Node');
		expect(output).toHaveLength(texts.length);
		for (const [i, item] of output.entries()) {
			expect(item.pairedItem).toEqual({ item: i });
			const copies = sent.filter((text) => text === texts[i]).length;
			// Never twice; an item is done only with its one SMS, and otherwise says its outcome is
			// unknown (a fault met on the send and on the one send after the look-ups).
			expect(copies).toBeLessThanOrEqual(1);
			if (item.json.error === undefined) {
				expect(copies).toBe(1);
				const { record } = await sandbox().control.get(item.json.messageId as string);
				expect(record.body).toBe(texts[i]);
			} else {
				expect(item.json.outcome).toBe('unknown');
				expect(item.json.error).toMatch(/so it is unknown whether the SMS was sent/);
			}
		}
		// Every fault was met (24 items make at least 24 POSTs), and each item met at most two.
		expect(posts('/v1/sms').filter((entry) => entry.fault)).toHaveLength(15);
		expect(output.filter((item) => item.json.recoveredAfter).length).toBeGreaterThanOrEqual(5);
	});
});

describe('failures that look like "not sent" while the server still sends (the request timeout is 2 s here)', () => {
	it('a gateway answers 502 at once while the API sends 0.8 s later: found by a later look-up, one SMS', async () => {
		proxy().inject('POST', '/v1/sms', { gatewayThenForward: 800 });
		const result = await sendSms(['Your table is ready']);
		expect(result.error).toBeUndefined();
		expect(smsSent()).toEqual(['Your table is ready']);
		const [item] = result.output('Node');
		expect(item.json).toMatchObject({ recoveredAfter: 'HTTP 502', recovered: 'foundInHistory' });
		expect(item.json.recovery).toMatch(
			/found in the SMS history at look-up \d, so it was not sent again/,
		);
		expect(posts('/v1/sms')).toHaveLength(1);
	});

	it('the history shows the new SMS 1 s late: found by a later look-up, one SMS', async () => {
		proxy().historyLag(1_000);
		proxy().inject('POST', '/v1/sms', 'failAfter');
		const result = await sendSms(['Your table is ready']);
		expect(result.error).toBeUndefined();
		expect(smsSent()).toEqual(['Your table is ready']);
		expect(result.output('Node')[0].json.recovered).toBe('foundInHistory');
		expect(lookups('/v1/sms').length).toBeGreaterThan(1);
	});

	it('the API answers after the client gave up (it took 3.5 s, the timeout is 2 s): found, one SMS', async () => {
		proxy().inject('POST', '/v1/sms', { forwardAfter: 3_500 });
		const result = await sendSms(['Your table is ready']);
		expect(result.error).toBeUndefined();
		expect(smsSent()).toEqual(['Your table is ready']);
		expect(result.output('Node')[0].json).toMatchObject({
			recoveredAfter: 'no answer within 2 s',
			recovered: 'foundInHistory',
		});
		expect(posts('/v1/sms')).toHaveLength(1);
	});

	it('a call after a gateway 502 is never placed again, even when the history never shows it', async () => {
		proxy().inject('POST', '/v1/calls', 'gatewayBefore');
		const result = await runWorkflow(
			singleNodeWorkflow(
				ACCOUNT,
				{
					resource: 'call',
					operation: 'create',
					phoneDocId: phoneDocId(),
					to: TEST_NUMBERS.customer,
					mode: 'manual',
				},
				{ continueOnFail: true },
			),
			{ credentials: credentials() },
		);
		const [item] = result.output('Node');
		expect(item.json.error).toMatch(/unknown whether the call was placed/);
		expect(item.json.error).toMatch(/look in the call history \(Call → Get Many\)/);
		expect(posts('/v1/calls')).toHaveLength(1);
		expect(callsPlaced()).toHaveLength(0);
	});
});

describe('when the node stops on an error (Continue On Fail off)', () => {
	it('the error lists the items carried out and those whose outcome is unknown, with what to check', async () => {
		const unknownTo = '+447700900124';
		proxy().injectWhen('POST', '/v1/sms', unknownTo, 'failAfter');
		const unreadable = { answer: 200, body: { success: true } };
		proxy().injectWhen('GET', '/v1/sms', unknownTo, unreadable);
		const workflow = singleNodeWorkflow(
			ACCOUNT,
			smsSendParameters(sandbox().numbers.main, { message: 'Doors open at 7' }),
		);
		const result = await runWorkflow(workflow, {
			credentials: credentials(),
			input: items(3, (i) => ({
				to: [TEST_NUMBERS.customer, TEST_NUMBERS.carrierRejects, unknownTo][i],
			})),
		});
		expect(result.error?.message).toMatch(/carrier rejected/);
		const description = (result.error as unknown as { description: string }).description;
		const [first] = smsSent();
		expect(first).toBe('Doors open at 7');
		expect(description).toMatch(
			new RegExp(
				`already carried out: item 1 \\(SMS to \\${TEST_NUMBERS.customer}, messageId SM[^)]+\\)\\.`,
			),
		);
		expect(description).toMatch(
			/The outcome of these items is unknown, and this execution will not send them again: item 3 \(SMS to \+447700900124\)\. Check whether they were carried out/,
		);
		expect(description).toMatch(
			/Items not listed were not carried out: they were not sent, or the API refused them\./,
		);
		expect(description).not.toContain(sandbox().credentials.account.unrestricted);
	});
});

describe('two executions sending the same text to the same number at once', () => {
	it("the one whose outcome is unknown does not take the other's SMS: both SMS go", async () => {
		// The first POST to reach the proxy fails before the server; the other goes through.
		proxy().inject('POST', '/v1/sms', 'failBefore', 'pass');
		const [first, second] = await Promise.all([
			sendSms(['Doors open at 7']),
			sendSms(['Doors open at 7']),
		]);
		expect(first.error).toBeUndefined();
		expect(second.error).toBeUndefined();
		expect(smsSent()).toEqual(['Doors open at 7', 'Doors open at 7']);
		const ids = [first, second].map((run) => run.output('Node')[0].json.messageId);
		expect(new Set(ids).size).toBe(2);
	});
});

describe('Call Create when the outcome of a creation is unknown', () => {
	const call = (parameters: Record<string, unknown>, input = 1) =>
		runWorkflow(
			singleNodeWorkflow(ACCOUNT, {
				resource: 'call',
				operation: 'create',
				phoneDocId: phoneDocId(),
				to: TEST_NUMBERS.customer,
				...parameters,
			}),
			{
				credentials: credentials(),
				input: items(input),
			},
		);

	it('a manual call placed, answer lost: found in the call history, not placed again', async () => {
		proxy().inject('POST', '/v1/calls', 'failAfter');
		const result = await call({ mode: 'manual' });
		expect(result.error).toBeUndefined();
		expect(callsPlaced()).toHaveLength(1);
		const [item] = result.output('Node');
		const placed = callsPlaced()[0];
		expect(item.json).toMatchObject({ to: TEST_NUMBERS.customer, recoveredAfter: 'HTTP 500' });
		expect(item.json.recovery).toMatch(/found in the call history/);
		const { record } = await sandbox().control.get(item.json.callId as string);
		expect(record.to).toBe(TEST_NUMBERS.customer);
		expect(placed.status).toBe(201);
		expect(Object.fromEntries(new URLSearchParams(lookups('/v1/calls')[0].query))).toMatchObject({
			mode: 'manual',
			phoneDocId: sandbox().numbers.main,
			peer: TEST_NUMBERS.customer,
		});
	});

	it('an AI call not placed (500 before the server): not placed again, reported as unknown with what to check', async () => {
		proxy().inject('POST', '/v1/calls', 'failBefore');
		const result = await call({ mode: 'ai', customerName: 'Sam' });
		expect(callsPlaced()).toHaveLength(0);
		expect(posts('/v1/calls')).toHaveLength(1);
		expect(lookups('/v1/calls')).toHaveLength(4);
		expect(result.error?.message).toMatch(
			new RegExp(
				`unknown whether the call was placed\\. It was not in the call history in 4 look-ups over \\d+ seconds.*It was sent once, and was not sent again, to avoid doing it twice: look in the call history \\(Call → Get Many\\) for a ai call to \\${TEST_NUMBERS.customer} since \\d{4}-`,
			),
		);
	});

	it('an AI call placed, the connection dropped: found, not placed again', async () => {
		proxy().inject('POST', '/v1/calls', 'dropAfter');
		const result = await call({ mode: 'ai', customerName: 'Sam' });
		expect(result.error).toBeUndefined();
		expect(callsPlaced()).toHaveLength(1);
		const [item] = result.output('Node');
		expect(item.json).toMatchObject({
			mode: 'ai',
			status: expect.any(String),
			recoveredAfter: 'ECONNRESET',
		});
		expect(item.json.callId).toBe(item.json.callSid);
	});

	it('identical calls placed at once, one of them losing its answer: three calls, three records, each claimed once', async () => {
		proxy().inject('POST', '/v1/calls', 'pass', 'failAfter', 'pass');
		const result = await call({ mode: 'manual' }, 3);
		expect(result.error).toBeUndefined();
		expect(callsPlaced()).toHaveLength(3);
		const ids = result.output('Node').map((item) => item.json.callId);
		expect(new Set(ids).size).toBe(3);
	});
});

describe('when the look-up cannot decide, the item fails with "unknown whether … check"', () => {
	const stub = useStubServer();

	const sms = (key = 'acc_lookup_test_0123456789', continueOnFail = false) =>
		runWorkflow(
			singleNodeWorkflow(
				ACCOUNT,
				smsSendParameters('pd_1', { to: '+447700900123', message: 'Hello' }),
				{ continueOnFail },
			),
			{
				credentials: {
					commsAccountApi: { apiKey: key, baseUrl: stub().url },
				},
			},
		);
	const record = (id: string) => ({
		id,
		messageId: id,
		direction: 'sent',
		toNumber: '+447700900123',
		body: 'Hello',
		source: 'account-api',
		sentAt: new Date().toISOString(),
	});

	it('two matching records nobody has claimed: ambiguous', async () => {
		stub().reply(
			{ status: 500, body: { success: false, error: 'internal_error' } },
			{ status: 200, body: { success: true, messages: [record('SM1'), record('SM2')], count: 2 } },
		);
		const result = await sms();
		expect(result.error?.message).toMatch(
			/HTTP 500.*unknown whether the SMS was sent\. Looking it up in the SMS history could not settle it: 2 matching SMS records.*not sent again.*look in the SMS history \(SMS → Get Many\) for an SMS to \+447700900123 with this text since .* before running this item again/,
		);
		expect(stub().received.map((r) => r.method)).toEqual(['POST', 'GET']);
	});

	it('the look-up itself fails: not sent again, and the item says so', async () => {
		stub().reply(
			{ status: 500, body: { success: false, error: 'internal_error' } },
			{ status: 200, body: '<html>login</html>', headers: { 'content-type': 'text/html' } },
		);
		const result = await sms(undefined, true);
		const [item] = result.output('Node');
		expect(item.json.error).toMatch(
			/unknown whether the SMS was sent\. Looking it up in the SMS history could not settle it: the look-up itself failed/,
		);
		expect(stub().received.map((r) => r.method)).toEqual(['POST', 'GET']);
	});

	it('a record without a readable time cannot be told from an earlier one', async () => {
		stub().reply(
			{ status: 500, body: { success: false, error: 'internal_error' } },
			{
				status: 200,
				body: { success: true, messages: [{ ...record('SM1'), sentAt: 'yesterday' }], count: 1 },
			},
		);
		const result = await sms();
		expect(result.error?.message).toMatch(/no readable time/);
		expect(stub().received.map((r) => r.method)).toEqual(['POST', 'GET']);
	});

	it("nothing measured of the API's clock: an identical SMS from 20 s before (an API 20 s behind could have stamped this one so) is neither taken nor sent again", async () => {
		const earlier = { ...record('SM0'), sentAt: new Date(Date.now() - 20_000).toISOString() };
		const history = {
			status: 200,
			body: { success: true, messages: [earlier], count: 1 },
			noDate: true,
		};
		stub().reply(
			{ status: 500, body: { success: false, error: 'internal_error' }, noDate: true },
			history,
		);
		const result = await sms('acc_nodate_test_0123456789');
		expect(result.error?.message).toMatch(/not known well enough/);
		expect(stub().received.map((r) => r.method)).toEqual(['POST', 'GET']);
		const since = Date.parse(
			new URLSearchParams(stub().received[1].url.split('?')[1]).get('since') as string,
		);
		// The look-up reaches back as far as any API's clock may be behind, and the floor.
		expect(stub().received[0].at - since).toBeGreaterThanOrEqual(UNMEASURED_SKEW_MS);
		expect(stub().received[0].at - since).toBeLessThanOrEqual(
			UNMEASURED_SKEW_MS + SAME_MOMENT_MS + 1_000,
		);
	});

	it('an identical SMS from an hour before is not taken for this one: the SMS is sent again', async () => {
		const earlier = { ...record('SM0'), sentAt: new Date(Date.now() - 3_600_000).toISOString() };
		const history = {
			status: 200,
			body: { success: true, messages: [earlier], count: 1 },
			noDate: true,
		};
		stub().reply(
			{ status: 500, body: { success: false, error: 'internal_error' }, noDate: true },
			history,
			history,
			history,
			history,
			{
				status: 201,
				body: { success: true, messageId: 'SM9', status: 'sent', to: '+447700900123' },
				noDate: true,
			},
		);
		const result = await sms('acc_nodate_test_0123456789');
		expect(result.error).toBeUndefined();
		expect(result.output('Node')[0].json).toMatchObject({
			messageId: 'SM9',
			recovered: 'sentAgain',
		});
	});

	it("an API 90 s ahead of n8n's (its Date header says so, and is not what tells): its own record is found", async () => {
		const ahead = (ms: number) => new Date(Date.now() + 90_000 + ms);
		stub().reply(
			{
				status: 500,
				body: { success: false, error: 'internal_error' },
				headers: { date: ahead(0).toUTCString() },
			},
			{
				status: 200,
				body: {
					success: true,
					messages: [{ ...record('SM1'), sentAt: ahead(0).toISOString() }],
					count: 1,
				},
				headers: { date: ahead(0).toUTCString() },
			},
		);
		const result = await sms('acc_clock_ahead_0123456789');
		expect(result.error).toBeUndefined();
		expect(result.output('Node')[0].json).toMatchObject({
			messageId: 'SM1',
			recovered: 'foundInHistory',
		});
		expect(stub().received.map((r) => r.method)).toEqual(['POST', 'GET']);
	});

	it('a record from before the send is not taken for it: the SMS is sent again', async () => {
		const old = { ...record('SM0'), sentAt: new Date(Date.now() - 60 * 60_000).toISOString() };
		const history = { status: 200, body: { success: true, messages: [old], count: 1 } };
		stub().reply(
			{ status: 500, body: { success: false, error: 'internal_error' } },
			history,
			history,
			history,
			history,
			{
				status: 201,
				body: {
					success: true,
					messageId: 'SM9',
					status: 'sent',
					to: '+447700900123',
					segmentsUsed: 1,
				},
			},
		);
		const result = await sms();
		expect(result.error).toBeUndefined();
		expect(result.output('Node')[0].json).toMatchObject({
			messageId: 'SM9',
			recoveredAfter: 'HTTP 500',
		});
		expect(stub().received.map((r) => r.method)).toEqual([
			'POST',
			'GET',
			'GET',
			'GET',
			'GET',
			'POST',
		]);
	});
});
