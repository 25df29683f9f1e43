// SMS Send and Wait for Response, answered as a person does: the approval link opened by link
// previews and a phone (a GET never resumes), then approved in a phone-sized browser; the used
// link offers nothing more; a free-text answer typed into the form resumes its execution.

import { expect, REPO, type CommsSandbox } from '../../comms.ts';
import path from 'node:path';
import { openSession } from '../../rig/browser.ts';
import { waitFor } from '../../rig/n8n-server.ts';
import { E2eError, log, sleep } from '../../rig/proc.ts';
import type { Json } from '../../rig/types.ts';

const SCREENSHOTS = path.join(REPO, '.e2e', 'screenshots');

/** The link in an SMS the sandbox received, on the n8n address the harness uses. */
function linkIn(message: string, url: string) {
	const found = /https?:\/\/\S+\/webhook-waiting\/\S+/.exec(message);
	expect(found, `the SMS carries no answer link: ${message}`);
	const link = new URL(found![0]);
	const base = new URL(url);
	link.protocol = base.protocol;
	link.host = base.host;
	return { link: link.toString(), length: found![0].length };
}

export interface SendAndWaitContext {
	url: string;
	sandbox: CommsSandbox;
	hook: (name: string) => string;
	smsTo: (marker: string) => Json[];
}

export async function sendAndWaitChecks({
	url,
	sandbox,
	hook,
	smsTo,
}: SendAndWaitContext): Promise<void> {
	const collected = (p: string) => sandbox.collector.bodies(p);
	const start = async (name: string, question: string) => {
		const response = await fetch(hook(name), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ question }),
		});
		expect(response.status === 200, `${name}: the webhook answered ${response.status}`);
		const sms = await waitFor(`${name}: the SMS`, () =>
			smsTo(question).length ? smsTo(question) : null,
		);
		expect(sms.length === 1, `${name}: ${sms.length} SMS went out, expected 1`);
		const body = sms[0].body;
		const message: string = body.message ?? body.data?.message;
		return { message, ...linkIn(message, url) };
	};

	const approval = await start(
		'Approval (Account)',
		`Shall we book you in for Tuesday 10:00? ${Date.now()}`,
	);
	log(
		`  approval SMS: ${[...approval.message].length} characters (the link ${approval.length}), ${Math.ceil([...approval.message].length / 160)} segments`,
	);
	// Link previews and people opening the link: a GET only shows the page.
	for (const agent of [
		'WhatsApp/2.23.20 A',
		'facebookexternalhit/1.1',
		'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)',
		'',
	]) {
		const page = await fetch(approval.link, { headers: agent ? { 'user-agent': agent } : {} });
		const html = await page.text();
		expect(
			page.status === 200 &&
				html.includes('Yes, book it') &&
				html.includes(approval.message.split('\n')[0]) &&
				html.includes('No thanks'),
			`GET of the link (user agent "${agent}") answered ${page.status}: ${html.slice(0, 300)}`,
		);
	}
	await sleep(2000);
	expect(collected('/wait-approval').length === 0, 'a GET of the link resumed the execution');
	log(
		'  4 GETs of the link (link previews, a phone, no user agent): the page, and the execution still waits',
	);

	const session = await openSession({
		screenshotsDir: SCREENSHOTS,
		deadlineMs: 3 * 60 * 1000,
		viewport: { width: 390, height: 844 },
	});
	try {
		await session.step('open the approval link and press "Yes, book it"', async (page) => {
			await page.goto(approval.link);
			await session.snapshot('the approval page on a phone');
			await page.getByRole('button', { name: 'Yes, book it' }).click();
			await page.getByText('your answer was recorded').waitFor();
		});
		const [approved] = await waitFor('the approval to resume the execution', () =>
			collected('/wait-approval').length ? collected('/wait-approval') : null,
		);
		expect(
			approved.approved === true &&
				approved.timedOut === false &&
				!Number.isNaN(Date.parse(approved.respondedAt)),
			`the resumed item is ${JSON.stringify(approved)}`,
		);
		log(`  Approve in the browser: the execution resumed with ${JSON.stringify(approved)}`);
		await session.step('open the used link again: it says no action is required', async (page) => {
			await page.goto(approval.link);
			await page.waitForLoadState();
			const text = await page.locator('body').innerText();
			if (/Yes, book it/.test(text))
				throw new E2eError(`the used link still offers the buttons: ${text.slice(0, 200)}`);
		});
		expect(collected('/wait-approval').length === 1, 'the used link resumed the execution again');

		const free = await start(
			'Free Text (Unified)',
			`What time suits you on Tuesday? ${Date.now()}`,
		);
		await session.step(
			'open the free-text link: the question; type an answer and send it',
			async (page) => {
				await page.goto(free.link);
				await page.getByText(free.message.split('\n')[0]).waitFor();
				await page.getByLabel('Your answer').fill('After 2pm please');
				await page.getByRole('button', { name: 'Send' }).click();
				await page.getByText('your answer was recorded').waitFor();
			},
		);
		const [answered] = await waitFor('the free-text answer to resume the execution', () =>
			collected('/wait-text').length ? collected('/wait-text') : null,
		);
		expect(
			answered.text === 'After 2pm please' && answered.responseType === 'freeText',
			`the resumed item is ${JSON.stringify(answered)}`,
		);
		log(`  Free Text in the browser: the execution resumed with ${JSON.stringify(answered)}`);
	} finally {
		await session.close();
	}
}
