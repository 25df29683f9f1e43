'use strict';
// The editor in a real browser (headless Chromium driven by playwright-core; see browser.js)
// against the running n8n with the packed package installed as n8n installs it, doing what a
// new user does:
//   1. the owner account is set up over REST; the owner signs in through n8n's sign-in form;
//   2. a new workflow, the nodes panel, search "Comms": every node of the package is listed
//      (names read from the built package), each with its icon loaded;
//   3. Comms Account's SMS Send action: the node editor opens on resource SMS, operation Send;
//   4. the credential form: a key with the wrong prefix shows our message (keys start with
//      "acc_"); the sandbox's key and address pass n8n's credential test, the node uses the
//      new credential, and opening it again shows "Connection tested successfully";
//   5. the number's "From list" lists the sandbox's SMS number and none that cannot send SMS;
//   6. To and Message filled in, Execute step: the output panel shows the item with the
//      messageId the sandbox gave, and the sandbox received exactly that POST /v1/sms;
//   7. the node on the canvas shows its icon; so does every node of the package on a canvas;
//   8. each published trigger workflow opens, with its icon, and its node editor shows what
//      the user needs (the webhook trigger its production URL and the notice about it).
// A failed step leaves a full-page screenshot and the page's HTML in .e2e/screenshots/; every
// run also leaves last-run-sms-send-output.png there (the node editor after Execute step), and
// E2E_SCREENSHOTS=all keeps a screenshot of every step.

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { expectIconLoaded, openSession, signIn, textOf } = require('./browser');
const { OWNER, setupOwner } = require('./live');
const { E2eError, log } = require('./proc');

const SCREENSHOTS = path.join(__dirname, '..', '..', '.e2e', 'screenshots');
/** The whole browser session (about 40 s on an idle 2-core machine) may take at most this long. */
const SESSION_LIMIT_MS = Number(process.env.E2E_BROWSER_SESSION_MS) || 4 * 60 * 1000;

const exactly = (text) => new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);

/** Names n8n may list a node under: a trigger is grouped under its service's name without " Trigger". */
function listedNames(displayName) {
	return displayName.endsWith(' Trigger')
		? [displayName, displayName.slice(0, -' Trigger'.length)]
		: [displayName];
}

/** The account's numbers as the sandbox serves them (to know what the list must offer). */
async function sandboxNumbers(sandbox) {
	const response = await fetch(`${sandbox.accountBaseUrl}/v1/numbers`, {
		headers: { authorization: `Bearer ${sandbox.credentials.account.unrestricted}` },
	});
	if (!response.ok) throw new E2eError(`the sandbox's GET /v1/numbers answered ${response.status}`);
	const { numbers } = await response.json();
	return numbers;
}

async function sandboxSentSms(sandbox, body) {
	const response = await fetch(`${sandbox.accountBaseUrl}/v1/sms?direction=sent`, {
		headers: { authorization: `Bearer ${sandbox.credentials.account.unrestricted}` },
	});
	if (!response.ok) throw new E2eError(`the sandbox's GET /v1/sms answered ${response.status}`);
	const { messages } = await response.json();
	return messages.find((message) => message.body === body);
}

function smsPosts(sandbox) {
	return sandbox.requests().filter((r) => r.method === 'POST' && r.path === '/v1/sms');
}

/**
 * Runs the editor checks.
 *   url          the running n8n
 *   packageName  the package's npm name (its icons are served under /icons/<name>/)
 *   nodes        [{ displayName, type }] of every node of the package (from the built files)
 *   sendSms      { node, action, resource, operation, locator, sendAndWaitAction }: display
 *                texts of Comms Account's SMS Send (and the Send and Wait action listed beside
 *                it), read from the node's description
 *   sandbox      the running sandbox
 *   canvas       optional { workflowId }: an imported workflow holding one of every node
 *   triggers     optional [{ name, type, workflowId, shows: [text], webhookUrl }]: published
 *                workflows to open; a webhook trigger's editor must show a production URL
 *                with the path webhookUrl
 */
async function runEditorChecks({
	url,
	packageName,
	nodes,
	sendSms,
	sandbox,
	canvas,
	voices,
	triggers = [],
}) {
	const iconPath = `/icons/${packageName}/`;
	await setupOwner(url, OWNER);
	const session = await openSession({ screenshotsDir: SCREENSHOTS, deadlineMs: SESSION_LIMIT_MS });
	const { page, step, snapshot } = session;
	const ndv = page.locator('[data-test-id=ndv]');
	const modal = page.locator('[data-test-id=editCredential-modal]');
	try {
		await step('sign in through the form as the owner', async () => {
			await signIn(page, url, OWNER);
		});

		await step('new workflow, nodes panel, search "Comms"', async () => {
			await page.goto(`${url}/workflow/new`);
			await page.locator('[data-test-id=canvas-plus-button]').click();
			await page.locator('[data-test-id=node-creator-search-bar]').fill('Comms');
			const shown = page.locator('[data-test-id=node-creator-item-name]');
			await page.waitForFunction(
				(wanted) => {
					const names = [...document.querySelectorAll('[data-test-id=node-creator-item-name]')].map(
						(e) => e.textContent.trim(),
					);
					return wanted.every((options) => options.some((name) => names.includes(name)));
				},
				nodes.map((node) => listedNames(node.displayName)),
			);
			const names = (await shown.allInnerTexts()).map((name) => name.trim());
			for (const node of nodes) {
				const listedAs = listedNames(node.displayName).find((name) => names.includes(name));
				const item = page.locator('[data-test-id=item-iterator-item]').filter({
					has: page.locator('[data-test-id=node-creator-item-name]', {
						hasText: exactly(listedAs),
					}),
				});
				await expectIconLoaded(item, `nodes panel, "${listedAs}"`, iconPath);
			}
			log(
				`  browser: the panel lists ${nodes.map((node) => node.displayName).join(', ')}, each with its icon loaded`,
			);
		});

		await step(`add ${sendSms.node} "${sendSms.action}"`, async () => {
			await page
				.locator('[data-test-id=node-creator-item-name]', { hasText: exactly(sendSms.node) })
				.first()
				.click();
			// With an empty canvas and an app whose trigger offers several events, n8n lists the
			// triggers and folds the actions away: open the Actions category when it is folded.
			const folded = page.locator(
				'[data-category-collapsed=true] [data-test-id=node-creator-category-item][data-keyboard-nav-id=Actions]',
			);
			await page
				.locator('[data-test-id=node-creator-category-item]')
				.first()
				.waitFor({ state: 'visible' })
				.catch(() => {});
			if (await folded.count()) await folded.first().click();
			// The SMS actions include Send and Wait for Response (issue 24).
			if (sendSms.sendAndWaitAction)
				await page
					.locator('[data-test-id=node-creator-item-name]', {
						hasText: exactly(sendSms.sendAndWaitAction),
					})
					.first()
					.waitFor({ state: 'visible' });
			await page
				.locator('[data-test-id=node-creator-item-name]', { hasText: exactly(sendSms.action) })
				.first()
				.click();
			await ndv.waitFor({ state: 'visible' });
			await expectIconLoaded(ndv, 'node editor header', iconPath);
			for (const [name, expected] of [
				['resource', sendSms.resource],
				['operation', sendSms.operation],
			]) {
				const shownValue = await ndv
					.locator(`[data-test-id=parameter-input-${name}] input`)
					.first()
					.inputValue();
				if (shownValue !== expected)
					throw new E2eError(
						`the node editor opened with ${name} "${shownValue}", expected "${expected}"`,
					);
			}
		});

		await step('credential form: a wrong-prefix key shows our message', async () => {
			// A fresh n8n offers "Connect to …"; with a credential of the type already there (the
			// run imports some), n8n preselects it and the dropdown offers "Create new credential".
			const empty = ndv.locator('[data-test-id=node-credentials-empty-state]');
			if (await empty.isVisible()) await empty.click();
			else {
				await ndv.locator('[data-test-id=node-credentials-select]').click();
				await page.locator('[data-test-id=node-credentials-select-item-new]').click();
			}
			await modal.waitFor({ state: 'visible' });
			await expectIconLoaded(modal, 'credential form', iconPath);
			await modal.locator('[data-test-id=parameter-input-apiKey] input').fill('key_test_abc');
			// The installed package has no sandbox beside it: the address starts empty, shows the
			// form of a real one, and only the hint names the repository's sandbox.
			const baseUrl = modal.locator('[data-test-id=parameter-input-baseUrl] input');
			const shown = {
				value: await baseUrl.inputValue(),
				placeholder: await baseUrl.getAttribute('placeholder'),
			};
			if (shown.value !== '' || shown.placeholder !== 'https://api.example.com')
				throw new E2eError(
					`the Base URL field opened with ${JSON.stringify(shown)}, expected an empty value and the placeholder https://api.example.com`,
				);
			await modal
				.getByText('http://127.0.0.1:4010', { exact: false })
				.first()
				.waitFor({ state: 'visible' })
				.catch(async () => {
					throw new E2eError(
						`the credential form shows no hint naming the sandbox address; it shows: ${await textOf(modal)}`,
					);
				});
			// With trailing slashes, which the credential's authenticate trims (its test URL has no
			// regex): the test below passes only if n8n sends the trimmed address.
			await baseUrl.fill(`${sandbox.accountBaseUrl}///`);
			const tested = page.waitForResponse(
				(r) =>
					r.request().method() === 'POST' && new URL(r.url()).pathname === '/rest/credentials/test',
			);
			await modal.locator('[data-test-id=credential-save-button]').click();
			const verdict = (await (await tested).json()).data;
			if (verdict.status === 'OK')
				throw new E2eError('n8n\'s credential test passed with the key "key_test_abc"');
			// n8n shows "Couldn't connect with these settings"; a long message sits behind "More details".
			const message = modal.getByText('start with "acc_"', { exact: false }).first();
			const details = modal.getByText('More details', { exact: true });
			await message.or(details).first().waitFor({ state: 'visible' });
			if (!(await message.isVisible())) await details.click();
			await message.waitFor({ state: 'visible' }).catch(async () => {
				throw new E2eError(
					`the credential form did not say that Account API keys start with "acc_"; it shows: ${await textOf(modal)}`,
				);
			});
		});

		await step("credential form: the sandbox's key passes n8n's credential test", async () => {
			const name = (
				(await modal.locator('[data-test-id=credential-name]').getAttribute('title')) || ''
			).trim();
			await modal
				.locator('[data-test-id=parameter-input-apiKey] input')
				.fill(sandbox.credentials.account.unrestricted);
			const tested = page.waitForResponse(
				(r) =>
					r.request().method() === 'POST' && new URL(r.url()).pathname === '/rest/credentials/test',
			);
			await modal.locator('[data-test-id=credential-save-button]').click();
			const verdict = (await (await tested).json()).data;
			if (verdict.status !== 'OK')
				throw new E2eError(`n8n's credential test failed: ${verdict.message}`);
			// Once the saved credential's test passes, n8n closes the form (a failed test keeps it open).
			await modal.waitFor({ state: 'hidden' });
			const selected = await ndv
				.locator('[data-test-id=node-credentials-select] input')
				.first()
				.inputValue();
			if (name && selected !== name)
				throw new E2eError(`the node uses the credential "${selected}", not the new "${name}"`);
			// Opened again, the form tests the saved credential and says so.
			await ndv.locator('[data-test-id=credential-edit-button]').click();
			await modal
				.locator('[data-test-id=credentials-config-container-test-success]')
				.waitFor({ state: 'visible' });
			await modal.getByRole('button', { name: /close/i }).click();
			await modal.waitFor({ state: 'hidden' });
			log(`  browser: credential "${selected}" saved; n8n: ${verdict.message}`);
		});

		const numbers = await sandboxNumbers(sandbox);
		const main = numbers.find((number) => number.phoneDocId === sandbox.numbers.main);
		if (!main || !main.smsNumber)
			throw new E2eError(`the sandbox lists no SMS number ${sandbox.numbers.main}`);
		const cannotSms = numbers.filter((number) => !number.smsNumber || number.smsEnabled === false);

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
			const wrong = cannotSms.filter((number) =>
				offered.some((text) => text.includes(number.voiceNumber)),
			);
			if (wrong.length > 0)
				throw new E2eError(
					`SMS Send offers numbers that cannot send SMS (${wrong.map((n) => n.phoneDocId).join(', ')}): ${offered.join(' | ')}`,
				);
			await item.first().click();
			log(`  browser: the list offers ${offered.length} number(s): ${offered.join(' | ')}`);
		});

		const message = `Hello from the n8n editor (e2e ${crypto.randomBytes(3).toString('hex')})`;
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
			if (post.status !== 201)
				throw new E2eError(`the sandbox answered the SMS with ${post.status} ${post.error || ''}`);
			const expected = { phoneDocId: main.phoneDocId, to: '+447700900123', message };
			for (const [field, value] of Object.entries(expected)) {
				if (post.body[field] !== value)
					throw new E2eError(
						`the SMS's ${field} was ${JSON.stringify(post.body[field])}, expected ${JSON.stringify(value)}`,
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
			// Every run keeps this one view (the README points at it): the node editor after Execute step.
			fs.mkdirSync(SCREENSHOTS, { recursive: true });
			await page.screenshot({ path: path.join(SCREENSHOTS, 'last-run-sms-send-output.png') });
		});

		await step('the node on the canvas shows its icon', async () => {
			await page.locator('[data-test-id=ndv-close-button]').click();
			await ndv.waitFor({ state: 'hidden' });
			const type = nodes.find((node) => node.displayName === sendSms.node).type;
			const node = page.locator(`[data-test-id=canvas-node][data-node-type="${type}"]`);
			await node.first().waitFor({ state: 'visible' });
			await expectIconLoaded(node, `canvas, ${sendSms.node}`, iconPath);
		});

		if (canvas) {
			await step('every node of the package on a canvas shows its icon', async () => {
				await page.goto(`${url}/workflow/${canvas.workflowId}`);
				for (const { displayName, type } of nodes) {
					const node = page.locator(`[data-test-id=canvas-node][data-node-type="${type}"]`);
					await node.first().waitFor({ state: 'visible' });
					await expectIconLoaded(node, `canvas, ${displayName}`, iconPath);
				}
			});
		}

		if (canvas && voices) {
			await step(
				`${voices.name}: the Voice list shows the ${voices.options.length} voices`,
				async () => {
					const node = page
						.locator(`[data-test-id=canvas-node][data-node-type="${voices.type}"]`)
						.first();
					await node.dblclick();
					await ndv.waitFor({ state: 'visible' });
					await ndv.locator('[data-test-id=parameter-input-voice]').click();
					const wanted = voices.options;
					await page
						.waitForFunction((names) => {
							const shown = [...document.querySelectorAll('li, [role=option]')]
								.filter((e) => e.offsetParent !== null)
								.map((e) => e.textContent.trim());
							return names.every((name) => shown.some((text) => text.startsWith(name)));
						}, wanted)
						.catch(async () => {
							throw new E2eError(`the Voice list does not show all of ${wanted.join(' | ')}`);
						});
					log(`  browser: the Voice list shows ${wanted.join(', ')}`);
					await snapshot(`${voices.name}, Voice list`);
					await page.keyboard.press('Escape');
					// Escape may close the node editor too; close it if it is still open.
					if (await ndv.isVisible()) await page.locator('[data-test-id=ndv-close-button]').click();
					await ndv.waitFor({ state: 'hidden' });
				},
			);
		}

		for (const trigger of triggers) {
			await step(`open the published "${trigger.name}" workflow`, async () => {
				await page.goto(`${url}/workflow/${trigger.workflowId}`);
				const node = page
					.locator(`[data-test-id=canvas-node][data-node-type="${trigger.type}"]`)
					.first();
				await node.waitFor({ state: 'visible' });
				await expectIconLoaded(node, `canvas, ${trigger.name}`, iconPath);
				await node.dblclick();
				await ndv.waitFor({ state: 'visible' });
				if (trigger.webhookUrl) {
					// n8n folds the URLs away under "Webhook URLs" and shows the Test URL first.
					await ndv.getByText('Webhook URLs', { exact: true }).first().click();
					const production = ndv.getByText('Production URL', { exact: true }).first();
					await production.click();
					await ndv
						.locator('.webhook-url', { hasText: trigger.webhookUrl })
						.first()
						.waitFor({ state: 'visible' })
						.catch(async () => {
							throw new E2eError(
								`the node editor does not show a production URL ending in ${trigger.webhookUrl}; it shows: ${(await ndv.locator('.webhook-url').allInnerTexts()).join(' | ') || 'no URL'}`,
							);
						});
					log(
						`  browser: the production URL shown: ${(await textOf(ndv.locator('.webhook-url', { hasText: trigger.webhookUrl }).first())) || '?'}`,
					);
				}
				for (const text of trigger.shows || []) {
					await ndv
						.getByText(text, { exact: false })
						.first()
						.waitFor({ state: 'visible' })
						.catch(async () => {
							throw new E2eError(
								`the node editor does not show "${text}"; it shows: ${await textOf(ndv, 600)}`,
							);
						});
				}
				await snapshot(`${trigger.name}, node editor`);
				await page.locator('[data-test-id=ndv-close-button]').click();
				await ndv.waitFor({ state: 'hidden' });
			});
		}
		log(`  browser: done in ${session.elapsed().toFixed(1)}s`);
	} finally {
		await session.close();
	}
}

module.exports = { runEditorChecks, SCREENSHOTS };
