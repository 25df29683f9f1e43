// Editor step 4, the credential form: a key with the wrong prefix shows our message (keys start
// with "acc_"); the sandbox's key and address pass n8n's credential test, the node uses the new
// credential, and opening it again shows "Connection tested successfully".

import { expectIconLoaded, textOf } from '../../rig/browser.ts';
import { E2eError, log } from '../../rig/proc.ts';
import type { EditorContext } from './checks.ts';

export async function credentialSteps(context: EditorContext): Promise<void> {
	const { page, step, ndv, modal, sandbox, iconPath } = context;
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
}
