// Editor steps 5-6: the number's "From list" lists the sandbox's SMS number and none that cannot
// send SMS; To and Message filled in, Execute step: the output panel shows the item with the
// messageId the sandbox gave, and the sandbox received exactly that POST /v1/sms.

import fs from 'node:fs';
import path from 'node:path';
import { type CommsSandbox, REPO } from '../../comms.ts';
import { textOf } from '../../rig/browser.ts';
import { E2eError, log } from '../../rig/proc.ts';
import type { Json } from '../../rig/types.ts';
import { SCREENSHOTS, type EditorContext } from './checks.ts';

/** The account's numbers as the sandbox serves them (to know what the list must offer). */
async function sandboxNumbers(sandbox: CommsSandbox): Promise<Json[]> {
	const response = await fetch(`${sandbox.accountBaseUrl}/v1/numbers`, {
		headers: { authorization: `Bearer ${sandbox.credentials.account.unrestricted}` },
	});
	if (!response.ok) throw new E2eError(`the sandbox's GET /v1/numbers answered ${response.status}`);
	const { numbers } = (await response.json()) as { numbers: Json[] };
	return numbers;
}

async function sandboxSentSms(sandbox: CommsSandbox, body: string): Promise<Json> {
	const response = await fetch(`${sandbox.accountBaseUrl}/v1/sms?direction=sent`, {
		headers: { authorization: `Bearer ${sandbox.credentials.account.unrestricted}` },
	});
	if (!response.ok) throw new E2eError(`the sandbox's GET /v1/sms answered ${response.status}`);
	const { messages } = (await response.json()) as { messages: Json[] };
	const found = messages.filter((message) => message.body === body);
	if (found.length > 1)
		throw new E2eError(
			`the sandbox holds ${found.length} sent SMS with the text "${body}", expected 1`,
		);
	return found[0];
}

function smsPosts(sandbox: CommsSandbox) {
	return sandbox.requests().filter((r) => r.method === 'POST' && r.path === '/v1/sms');
}

export async function sendSmsSteps(context: EditorContext): Promise<void> {
	const { page, step, ndv, sandbox, sendSms, snapshot } = context;
	const numbers = await sandboxNumbers(sandbox);
	const main = numbers.find((number: Json) => number.phoneDocId === sandbox.numbers.main);
	if (!main || !main.smsNumber)
		throw new E2eError(`the sandbox lists no SMS number ${sandbox.numbers.main}`);
	const cannotSms = numbers.filter(
		(number: Json) => !number.smsNumber || number.smsEnabled === false,
	);

	await step(`"${sendSms.locator}" From list offers the sandbox's SMS numbers only`, async () => {
		const locator = ndv.locator(`[data-test-id=resource-locator-${sendSms.locatorName}]`);
		await locator.locator('[data-test-id=rlc-input]').click();
		const item = page.locator('[data-test-id=rlc-item]').filter({ hasText: main.smsNumber });
		await item
			.first()
			.waitFor({ state: 'visible' })
			.catch(async () => {
				throw new E2eError(
					`the list does not offer ${main.smsNumber} (${main.phoneDocId}); it shows: ${(await page.locator('[data-test-id=rlc-item]').allInnerTexts()).join(' | ') || 'nothing'}`,
				);
			});
		await snapshot('the number list, open');
		const offered = (await page.locator('[data-test-id=rlc-item]').allInnerTexts()).map((text) =>
			text.trim(),
		);
		const wrong = cannotSms.filter((number: Json) =>
			offered.some((text) => text.includes(number.voiceNumber)),
		);
		if (wrong.length > 0)
			throw new E2eError(
				`SMS Send offers numbers that cannot send SMS (${wrong.map((n: Json) => n.phoneDocId).join(', ')}): ${offered.join(' | ')}`,
			);
		await item.first().click();
		log(`  browser: the list offers ${offered.length} number(s): ${offered.join(' | ')}`);
	});

	// What a person would type: this picture is the README's, so no test token in it; the text is
	// this scenario's alone in the run's sandbox, and the sandbox must hold it once.
	const message = 'Hello from n8n! Your order #1042 has shipped.';
	await step('To and Message, then Execute step', async () => {
		await ndv.locator('[data-test-id=parameter-input-to] input').fill('+44 7700 900123');
		await ndv.locator('[data-test-id=parameter-input-message] textarea').fill(message);
		const before = smsPosts(sandbox).length;
		await ndv.locator('[data-test-id=node-execute-button]').first().click();
		const output = page.locator('[data-test-id=output-panel]');
		await output
			.locator('[data-test-id=ndv-data-container]')
			.getByText('messageId', { exact: true })
			.first()
			.waitFor({ state: 'visible', timeout: 90000 })
			.catch(async () => {
				throw new E2eError(
					`no item with a messageId in the output panel; it shows: ${await textOf(output)}`,
				);
			});
		const posts = smsPosts(sandbox).slice(before);
		if (posts.length !== 1)
			throw new E2eError(
				`the sandbox received ${posts.length} POST /v1/sms from Execute step, expected 1`,
			);
		const [post] = posts;
		const body = post.body as Record<string, unknown>;
		if (post.status !== 201)
			throw new E2eError(`the sandbox answered the SMS with ${post.status} ${post.error || ''}`);
		const expected = { phoneDocId: main.phoneDocId, to: '+447700900123', message };
		for (const [field, value] of Object.entries(expected)) {
			if (body[field] !== value)
				throw new E2eError(
					`the SMS's ${field} was ${JSON.stringify(body[field])}, expected ${JSON.stringify(value)}`,
				);
		}
		const sent = await sandboxSentSms(sandbox, message);
		if (!sent) throw new E2eError('the sandbox has no record of the SMS');
		await output
			.getByText(sent.messageId, { exact: true })
			.first()
			.waitFor({ state: 'visible' })
			.catch(async () => {
				throw new E2eError(
					`the output panel does not show the sandbox's messageId ${sent.messageId}; it shows: ${await textOf(output)}`,
				);
			});
		log(
			`  browser: Execute step sent ${sent.messageId} from ${sent.fromNumber} to ${sent.toNumber}; the output panel shows it`,
		);
		// Every run keeps this one view: the node editor after Execute step, also the README's
		// picture of a node's output (commit it when the editor or the node's look changes).
		fs.mkdirSync(SCREENSHOTS, { recursive: true });
		await page.screenshot({ path: path.join(SCREENSHOTS, 'last-run-sms-send-output.png') });
		// For the README, without the toasts of the steps before ("Credential saved", ...).
		const hidden = await page.addStyleTag({
			content: '.el-notification { display: none !important; }',
		});
		await page.screenshot({ path: path.join(REPO, 'docs', 'images', 'sms-send-output.png') });
		await hidden.evaluate((style) => (style as Element).remove());
	});
}
