'use strict';
// The editor in a real browser: headless Chromium (Debian's package, driven by
// playwright-core, which downloads no browser of its own) against the running n8n, doing what
// a new user does:
//   1. sets up the owner account through n8n's form;
//   2. searches "Comms" in the nodes panel: every node of the package is listed, each icon an
//      image that actually loaded;
//   3. adds Comms Account "Send an SMS"; creates its credential through the form: a key with
//      the wrong prefix shows our message, the right key passes n8n's credential test;
//   4. opens Phone Number "From list": the sandbox's SMS number is offered, numbers that cannot
//      send SMS are not;
//   5. fills To and Message, runs the step, and sees the output; the sandbox got the SMS;
//   6. the node on the canvas shows its icon; each trigger of the package opens with its icon
//      (the webhook trigger with its URL notice).
// On failure it keeps full-page screenshots and the page's HTML in .e2e/screenshots/.

const fs = require('node:fs');
const path = require('node:path');
const { E2eError, log } = require('./proc');

const SCREENSHOTS = path.join(__dirname, '..', '..', '.e2e', 'screenshots');
const STEP_TIMEOUT_MS = 60000;
const OWNER = { email: 'owner@example.com', firstName: 'Owner', lastName: 'E2E', password: 'E2e-password-1' };

function chromiumPath() {
	const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean);
	const found = candidates.find((file) => fs.existsSync(file));
	if (!found) throw new E2eError(`no Chromium at ${candidates.join(' or ')}: run scripts/ensure-chromium.sh (Debian's chromium package)`);
	return found;
}

async function launch() {
	const { chromium } = require('playwright-core');
	return chromium.launch({
		executablePath: chromiumPath(),
		headless: true,
		// As root, on a machine with a closed network: no sandbox, no background connections.
		args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
	});
}

/** Image elements whose source is one of the package's icons, with whether each loaded. */
async function packageIcons(scope, packageName) {
	return scope.$$eval(
		'img',
		(images, name) => images.filter((img) => img.src.includes(`/icons/${name}/`)).map((img) => ({ src: img.src, loaded: img.complete && img.naturalWidth > 0 })),
		packageName,
	);
}

async function expectIconsLoaded(page, where, packageName, atLeast) {
	// Give late images a moment, then judge.
	await page.waitForFunction(
		(name) => [...document.images].filter((img) => img.src.includes(`/icons/${name}/`)).every((img) => img.complete),
		packageName,
		{ timeout: STEP_TIMEOUT_MS },
	);
	const icons = await packageIcons(page, packageName);
	if (icons.length < atLeast) throw new E2eError(`${where}: ${icons.length} of the package's icons shown, expected at least ${atLeast}`);
	const broken = icons.filter((icon) => !icon.loaded);
	if (broken.length) throw new E2eError(`${where}: broken icon image(s): ${broken.map((icon) => icon.src).join(', ')}`);
	return icons.length;
}

/**
 * Runs the editor checks. `nodes` are the package's node display names; `sandbox` the running
 * sandbox; `workflows` the published live workflows by name (to open the triggers).
 */
async function runEditorChecks({ url, packageName, nodes, sandbox, triggers = [] }) {
	const browser = await launch();
	const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
	context.setDefaultTimeout(STEP_TIMEOUT_MS);
	const page = await context.newPage();
	let step = 'start';
	const at = (name) => {
		step = name;
		log(`  browser: ${name}`);
	};
	try {
		at('owner set-up through the form');
		await page.goto(`${url}/setup`);
		await page.fill('input[name=email]', OWNER.email);
		await page.fill('input[name=firstName]', OWNER.firstName);
		await page.fill('input[name=lastName]', OWNER.lastName);
		await page.fill('input[name=password]', OWNER.password);
		await page.click('[data-test-id=form-submit-button]');
		await page.waitForURL((u) => !u.pathname.startsWith('/setup'));

		at('nodes panel search "Comms"');
		await page.goto(`${url}/workflow/new`);
		await page.click('[data-test-id=canvas-plus-button]');
		await page.fill('[data-test-id=node-creator-search-bar]', 'Comms');
		// n8n lists a trigger under its name without " Trigger" when that reads as a service
		// ("Comms Unified Trigger" shows as "Comms Unified"), so either form counts.
		await page.waitForFunction(
			(names) => {
				const shown = [...document.querySelectorAll('[data-test-id=node-creator-item-name]')].map((e) => e.textContent.trim());
				return names.every((name) => shown.includes(name) || shown.includes(name.replace(/ Trigger$/, '')));
			},
			nodes,
			{ timeout: STEP_TIMEOUT_MS },
		);
		const panelIcons = await expectIconsLoaded(page, 'nodes panel', packageName, nodes.length);
		log(`  browser: the panel lists ${nodes.join(', ')}, ${panelIcons} icon(s) loaded`);

		at('add Comms Account "Send an SMS"');
		await page.locator('[data-test-id=node-creator-item-name]', { hasText: /^Comms Account$/ }).first().click();
		await page.getByText('Send an SMS', { exact: true }).click();
		const ndv = page.locator('[data-test-id=ndv]');
		await ndv.waitFor({ state: 'visible' });
		await expectIconsLoaded(page, 'node editor', packageName, 1);

		at('credential form: a wrong-prefix key shows our message');
		// A fresh n8n offers "Connect to Comms Account"; with a credential of that type already
		// there, n8n preselects it and the dropdown offers "Create new credential".
		const connect = ndv.getByText('Connect to Comms Account');
		if (await connect.isVisible()) await connect.click();
		else {
			await ndv.locator('[data-test-id=node-credentials-select]').click();
			await page.locator('[data-test-id=node-credentials-select-item-new]').click();
		}
		const dialog = page.locator('[data-test-id=credential-edit-dialog]');
		await dialog.waitFor({ state: 'visible' });
		await expectIconsLoaded(page, 'credential dialog', packageName, 1);
		await dialog.locator('input[type=password]').first().fill('key_test_wrongprefix123');
		await dialog.locator('input[placeholder="https://api.example.com"]').fill(sandbox.accountBaseUrl);
		await page.click('[data-test-id=credential-save-button]');
		await dialog.getByText('More details').click();
		await dialog.getByText('start with "acc_"', { exact: false }).first().waitFor({ state: 'visible' });

		at('credential form: the right key passes the credential test');
		await dialog.locator('input[type=password]').first().fill(sandbox.credentials.account.unrestricted);
		await page.click('[data-test-id=credential-save-button]');
		// n8n closes the dialog once the saved credential's test passes; a failed test keeps it open.
		await dialog.waitFor({ state: 'hidden' });

		at('Phone Number "From list" offers the sandbox\'s SMS number only');
		await ndv.locator('[data-test-id=rlc-input]').first().click();
		const mainItem = page.locator('[data-test-id=rlc-item]', { hasText: 'Main line' }).first();
		await mainItem.waitFor({ state: 'visible' });
		const offered = await page.$$eval('[data-test-id=rlc-item]', (items) => items.map((item) => item.textContent.trim()));
		if (offered.some((text) => /no SMS|SMS disabled/i.test(text))) throw new E2eError(`SMS Send offered numbers that cannot send SMS: ${offered.join(' | ')}`);
		await mainItem.click();

		at('To and Message, then Execute step');
		await ndv.locator('[data-test-id=parameter-input-to] input').fill('+44 7700 900123');
		await ndv.locator('[data-test-id=parameter-input-message] textarea').fill('Hello from the n8n editor');
		const before = sandbox.requests().filter((r) => r.method === 'POST' && r.path === '/v1/sms' && r.status === 201).length;
		await ndv.locator('[data-test-id=node-execute-button]').first().click();
		await page.locator('[data-test-id=output-panel]').getByText('messageId', { exact: false }).first().waitFor({ state: 'visible' });
		const sent = sandbox.requests().filter((r) => r.method === 'POST' && r.path === '/v1/sms' && r.status === 201);
		if (sent.length !== before + 1) throw new E2eError(`the sandbox accepted ${sent.length - before} SMS from the editor, expected 1`);
		if (sent[sent.length - 1].body.to !== '+447700900123') throw new E2eError(`the SMS went to ${sent[sent.length - 1].body.to}, not the E.164 form of what was typed`);

		fs.mkdirSync(SCREENSHOTS, { recursive: true });
		await page.screenshot({ path: path.join(SCREENSHOTS, 'last-run-sms-send-output.png') });

		at('the node on the canvas shows its icon');
		await page.click('[data-test-id=ndv-close-button]');
		await ndv.waitFor({ state: 'hidden' });
		await expectIconsLoaded(page, 'canvas', packageName, 1);

		for (const trigger of triggers) {
			at(`open "${trigger.name}"`);
			await page.goto(`${url}/workflow/${trigger.workflowId}`);
			await page.locator('[data-test-id=canvas-node]').first().waitFor({ state: 'visible' });
			await expectIconsLoaded(page, `${trigger.name} on the canvas`, packageName, 1);
			await page.locator('[data-test-id=canvas-node]').first().dblclick();
			await ndv.waitFor({ state: 'visible' });
			for (const text of trigger.shows || []) await ndv.getByText(text, { exact: false }).first().waitFor({ state: 'visible' });
			await page.click('[data-test-id=ndv-close-button]');
		}
	} catch (error) {
		fs.mkdirSync(SCREENSHOTS, { recursive: true });
		const base = path.join(SCREENSHOTS, `${new Date().toISOString().replace(/[:.]/g, '-')}-${step.replace(/\W+/g, '-').slice(0, 60)}`);
		await page.screenshot({ path: `${base}.png`, fullPage: true }).catch(() => undefined);
		fs.writeFileSync(`${base}.html`, await page.content().catch(() => ''));
		throw new E2eError(`browser, at "${step}": ${error.message.split('\n')[0]} (screenshot: ${path.relative(process.cwd(), `${base}.png`)})`);
	} finally {
		await browser.close();
	}
}

module.exports = { runEditorChecks };
