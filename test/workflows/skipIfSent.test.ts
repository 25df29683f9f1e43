/**
 * Comms Account SMS Send's "Skip If Sent Within (Minutes)", on by default: running a workflow
 * again after a run that was cut short (a worker or n8n killed mid-send, an execution that failed
 * half-way) sends only what did not go, and each skipped item says what was found. The rule
 * (docs/guarantees.md, "Running a workflow again"): an earlier SMS from the same number to the
 * same recipient with exactly the same text, in the window before this execution's first SMS
 * Send, stands for one item; nothing this execution sends is ever a reason to skip.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { runWorkflow, START, CREDENTIAL_REFS, type WorkflowJson } from '../../harness';
import { TEST_NUMBERS } from '../../sandbox';
import { accountCredentials, smsSentElsewhere, useSandbox } from '../support/sandbox';
import { items, singleNodeWorkflow, smsSendParameters } from '../support/workflows';

const sandbox = useSandbox();

const RECIPIENTS = ['+447700900301', '+447700900302', '+447700900303'];

type Send = { to: string; text: string };

const sendParameters = (options: IDataObject) =>
	smsSendParameters(sandbox().numbers.main, { options: options as INodeParameters });

/** SMS Send over `sends`; `options` as saved (none: the defaults). */
function send(
	sends: Send[],
	{
		options = {},
		continueOnFail = false,
	}: { options?: IDataObject; continueOnFail?: boolean } = {},
) {
	return runWorkflow(
		singleNodeWorkflow('n8n-nodes-comms-api.commsAccount', sendParameters(options), {
			continueOnFail,
		}),
		{
			credentials: accountCredentials(sandbox()),
			input: items(sends.length, (i) => sends[i]),
		},
	);
}

const posts = () =>
	sandbox()
		.requests()
		.filter((entry) => entry.method === 'POST' && entry.path === '/v1/sms' && entry.status === 201);
const historyReads = () =>
	sandbox()
		.requests()
		.filter((entry) => entry.method === 'GET' && entry.path === '/v1/sms');
/** How many times each text was accepted by the sandbox. */
const sentTimes = () => {
	const times = new Map<string, number>();
	for (const entry of posts()) {
		const text = String((entry.body as { message?: unknown })?.message);
		times.set(text, (times.get(text) ?? 0) + 1);
	}
	return times;
};

/**
 * Between a run and the next. The window ends where records made after the execution began
 * start, which is known only within the API clock's same-moment floor (3 s): an SMS sent less
 * than that before a run began is left out of its window. Reruns come minutes later in life; here,
 * a pause of 5 s.
 */
const pause = () => new Promise((resolve) => setTimeout(resolve, 5_000));

const campaign = (n: number): Send[] =>
	Array.from({ length: n }, (_, i) => ({ to: RECIPIENTS[i % 3], text: `Campaign message #${i}` }));

it('running a workflow again after a run cut short sends only what did not go, by default; each item says what was found', async () => {
	const all = campaign(9);
	// The run that was cut short: the first 4 items went, then the worker died.
	await send(all.slice(0, 4));
	const sentBefore = posts()
		.map((entry) => String((entry.body as { message?: unknown }).message))
		.sort();
	await pause();
	const readsBefore = historyReads().length;

	const again = await send(all);
	const out = again.output('Node').map((item) => item.json);
	expect(out).toHaveLength(9);
	for (const [i, item] of out.entries()) {
		if (i < 4) {
			expect(item).toMatchObject({ skipped: true, to: all[i].to, segmentsUsed: 1 });
			expect(item.skippedBecause).toMatch(
				new RegExp(
					`^Already sent: the SMS history holds an SMS from this number to \\${all[i].to} with exactly this text, sent at .+ \\(message SM\\w+\\), in the 60 minutes before this execution's first SMS Send \\(Skip If Sent Within\\)\\. So it was not sent again\\.`,
				),
			);
			const { record } = await sandbox().control.get(item.messageId as string);
			expect(record.body).toBe(all[i].text);
		} else {
			expect(item.skipped).toBeUndefined();
			expect(item.messageId).toEqual(expect.any(String));
		}
	}
	// Each of the 9 SMS once in all, in the sandbox's log.
	expect(sentBefore).toEqual(all.slice(0, 4).map((s) => s.text));
	expect([...sentTimes().entries()].sort()).toEqual(all.map((s) => [s.text, 1]).sort());
	// One history request for the whole run (9 items, 3 recipients), before the first send.
	const reads = historyReads().slice(readsBefore);
	expect(reads).toHaveLength(1);
	expect(reads[0].query).toMatchObject({ phoneDocId: sandbox().numbers.main, direction: 'sent' });
	expect(reads[0].query.peer).toBeUndefined();
	// The run's requests: that read first, then the 5 sends.
	const run = sandbox().requests().slice(-6);
	expect(run.map((entry) => entry.method)).toEqual(['GET', 'POST', 'POST', 'POST', 'POST', 'POST']);
}, 30_000);

it('each earlier SMS stands for one item: of two identical items after one earlier SMS, one is skipped and one is sent', async () => {
	const hello = { to: TEST_NUMBERS.customer, text: 'See you at 3' };
	await send([hello]);
	await pause();
	const again = await send([hello, hello]);
	const [first, second] = again.output('Node').map((item) => item.json);
	expect(first.skipped).toBe(true);
	expect(second.skipped).toBeUndefined();
	expect(sentTimes().get('See you at 3')).toBe(2);
	// One recipient: its own history alone is read (peer), once.
	expect(historyReads().every((entry) => entry.query.peer === TEST_NUMBERS.customer)).toBe(true);
}, 30_000);

it('items of one run are never matched against each other: identical items in a new run are all sent', async () => {
	const hello = { to: TEST_NUMBERS.customer, text: 'Two of these, on purpose' };
	// The option set as a user may have set it (the same as its default), so that this holds on
	// its own: an SMS of this run is not "earlier" for the next item of the same run.
	const run = await send([hello, hello, hello], { options: { skipIfSentWithinMinutes: 60 } });
	expect(run.output('Node').map((item) => item.json.skipped)).toEqual([
		undefined,
		undefined,
		undefined,
	]);
	expect(sentTimes().get(hello.text)).toBe(3);
});

it('what this execution sent itself is never a reason to skip: a second SMS Send with the same text to the same person sends', async () => {
	const node = (name: string, x: number) => ({
		id: name,
		name,
		type: 'n8n-nodes-comms-api.commsAccount',
		typeVersion: 1,
		position: [x, 0] as [number, number],
		parameters: {
			...sendParameters({ skipIfSentWithinMinutes: 60 }),
			to: "={{ $('Start').item.json.to }}",
			message: "={{ $('Start').item.json.text }}",
		},
		credentials: CREDENTIAL_REFS,
	});
	const workflow: WorkflowJson = {
		nodes: [START, node('First', 220), node('Reminder', 440)],
		connections: {
			Start: { main: [[{ node: 'First', type: 'main', index: 0 }]] },
			First: { main: [[{ node: 'Reminder', type: 'main', index: 0 }]] },
		},
	};
	// Between the two nodes the first one's SMS is in the history well before the second reads it.
	const run = await runWorkflow(workflow, {
		credentials: accountCredentials(sandbox()),
		input: items(1, () => ({ to: TEST_NUMBERS.customer, text: 'Reply YES to confirm' })),
	});
	expect(run.error).toBeUndefined();
	const reminder = run.run.data.resultData.runData.Reminder[0].data!.main[0]![0].json;
	expect(reminder.skipped).toBeUndefined();
	expect(sentTimes().get('Reply YES to confirm')).toBe(2);
});

it('another text or another recipient is sent; with the option at 0 the same SMS is sent again', async () => {
	const hello = { to: TEST_NUMBERS.customer, text: 'Your order has shipped' };
	await send([hello]);
	await pause();
	const other = await send([{ ...hello, text: 'Your order was delivered' }]);
	expect(other.output('Node')[0].json.skipped).toBeUndefined();
	const elsewhere = await send([{ ...hello, to: '+447700900124' }]);
	expect(elsewhere.output('Node')[0].json.skipped).toBeUndefined();
	const reads = historyReads().length;
	const off = await send([hello], { options: { skipIfSentWithinMinutes: 0 } });
	expect(off.output('Node')[0].json.skipped).toBeUndefined();
	expect(historyReads()).toHaveLength(reads);
	// To the customer twice (the first, and with the option off), and once to +447700900124.
	expect(sentTimes().get(hello.text)).toBe(3);
}, 30_000);

it("an SMS sent before the window, by more than the API's clock may be off, is not a reason to skip", async () => {
	// The window reaches a minute and 3 s further back on the API's clock, whatever was measured of
	// it (it may have stepped back since). An SMS stamped 70 s before a window of 0.02 minutes
	// (1.2 s): sent straight to the API with its clock 70 s behind, which then agrees again.
	const hello = { to: TEST_NUMBERS.customer, text: 'Your order has shipped' };
	sandbox().control.setClockSkew(-70);
	await smsSentElsewhere(sandbox(), hello.text, hello.to);
	sandbox().control.setClockSkew(0);
	const later = await send([hello], { options: { skipIfSentWithinMinutes: 0.02 } });
	expect(later.output('Node')[0].json.skipped).toBeUndefined();
	expect(sentTimes().get(hello.text)).toBe(2);
});

it("an SMS another n8n sent in the window, after the API's clock stepped back from where this n8n measured it, is a reason to skip", async () => {
	// Measured 3 s ahead: an SMS this n8n sent, read back.
	sandbox().control.setClockSkew(3);
	const measure = { to: TEST_NUMBERS.customer, text: 'Measure' };
	await send([measure]);
	await pause();
	expect((await send([measure])).output('Node')[0].json.skipped).toBe(true);
	// The clock is set back 11 s; another n8n (a worker, say) sends the SMS.
	sandbox().control.setClockSkew(-8);
	const hello = { to: TEST_NUMBERS.customer, text: 'Your order has shipped' };
	await smsSentElsewhere(sandbox(), hello.text, hello.to);
	await pause();
	// In a window of 0.2 minutes (12 s) by n8n's clock, though stamped 8 s before it.
	const later = await send([hello], { options: { skipIfSentWithinMinutes: 0.2 } });
	expect(later.output('Node')[0].json.skipped).toBe(true);
	expect(sentTimes().get(hello.text)).toBe(1);
}, 30_000);

it('more than a page in the window, newest first: each recipient is read alone, and nothing that went is sent again', async () => {
	// 240 other SMS from the number in the window (the sandbox answers newest first).
	const others: Send[] = Array.from({ length: 240 }, (_, i) => ({
		to: `+4477009004${String(i % 40).padStart(2, '0')}`,
		text: `Other #${i}`,
	}));
	const all = campaign(6);
	await send(all.slice(0, 3));
	await send(others, { options: { skipIfSentWithinMinutes: 0 } });
	await pause();
	const readsBefore = historyReads().length;
	const again = await send(all);
	expect(again.output('Node').map((item) => item.json.skipped === true)).toEqual([
		true,
		true,
		true,
		false,
		false,
		false,
	]);
	expect(sentTimes().get(all[0].text)).toBe(1);
	expect(sentTimes().get(all[5].text)).toBe(1);
	// The number's read (a full page, and the page asked for next that brings nothing new), then
	// each of the 3 recipients' own.
	const reads = historyReads().slice(readsBefore);
	expect(reads.filter((entry) => entry.query.peer === undefined)).toHaveLength(2);
	expect(
		reads
			.filter((entry) => entry.query.peer !== undefined)
			.map((e) => e.query.peer)
			.sort(),
	).toEqual([...RECIPIENTS].sort());
}, 60_000);

it("a recipient's history the API cannot return in full: the SMS is sent, and the item says the check was not complete", async () => {
	// 201 SMS to one person in the window, newest first: the oldest is out of the API's reach.
	const many: Send[] = Array.from({ length: 201 }, (_, i) => ({
		to: TEST_NUMBERS.customer,
		text: `Tick #${i}`,
	}));
	await send(many, { options: { skipIfSentWithinMinutes: 0 } });
	await pause();
	const again = await send([many[0]]);
	const [item] = again.output('Node').map((entry) => entry.json);
	expect(item.skipped).toBeUndefined();
	expect(item.skipCheck).toMatch(
		/^Sent without a full check: the API returned 200 of this number's SMS to \+447700900123 since .+ and could not return the rest/,
	);
	// The same with the oldest first: the history pages, the SMS is found, nothing is sent.
	sandbox().control.setSmsOrder('oldestFirst');
	const sentNow = posts().length;
	const oldestFirst = await send([many[1]]);
	expect(oldestFirst.output('Node')[0].json.skipped).toBe(true);
	expect(posts()).toHaveLength(sentNow);
}, 60_000);

it('a value that is not a number of minutes is refused before anything is sent', async () => {
	const result = await send([{ to: TEST_NUMBERS.customer, text: 'Hi' }], {
		options: { skipIfSentWithinMinutes: -1 },
	});
	expect(result.error?.message).toBe(
		'Skip If Sent Within (Minutes) "-1" must be a number of minutes, 0 or more',
	);
	expect(sandbox().requests()).toHaveLength(0);
});

it('running the failed execution again (the first item carried out, the second refused by the carrier) sends only the second', async () => {
	const pair = [
		{ to: TEST_NUMBERS.customer, text: 'Your order has shipped' },
		{ to: TEST_NUMBERS.carrierRejects, text: 'Your order has shipped' },
	];
	const first = await send(pair);
	expect(first.error?.message).toMatch(/carrier rejected/);
	await pause();
	const again = await send(pair, { continueOnFail: true });
	const [item, failed] = again.output('Node');
	expect(item.json).toMatchObject({ skipped: true, to: TEST_NUMBERS.customer });
	expect(failed.json.error).toMatch(/carrier rejected/);
	expect(sentTimes().get('Your order has shipped')).toBe(1);
}, 30_000);
