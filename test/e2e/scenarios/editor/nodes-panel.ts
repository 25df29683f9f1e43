// Editor steps 2-3: the nodes panel lists every node of the package (search "Comms"), each
// with its icon; Comms Account's SMS actions include Send and Wait; SMS Send opens the node
// editor on resource SMS, operation Send, and the node is named after the action.

import { expectIconLoaded } from '../../rig/browser.ts';
import { E2eError, log } from '../../rig/proc.ts';
import type { EditorContext } from './checks.ts';

const exactly = (text: string) =>
	new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);

/** Names n8n may list a node under: a trigger is grouped under its service's name without " Trigger". */
function listedNames(displayName: string): string[] {
	return displayName.endsWith(' Trigger')
		? [displayName, displayName.slice(0, -' Trigger'.length)]
		: [displayName];
}

export async function nodesPanelSteps(context: EditorContext): Promise<void> {
	const { page, step, ndv, nodes, sendSms, url, iconPath } = context;
	await step('new workflow, nodes panel, search "Comms"', async () => {
		await page.goto(`${url}/workflow/new`);
		await page.locator('[data-test-id=canvas-plus-button]').click();
		await page.locator('[data-test-id=node-creator-search-bar]').fill('Comms');
		const shown = page.locator('[data-test-id=node-creator-item-name]');
		await page.waitForFunction(
			(wanted) => {
				const names = [...document.querySelectorAll('[data-test-id=node-creator-item-name]')].map(
					(e) => (e.textContent ?? '').trim(),
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
					hasText: exactly(listedAs ?? node.displayName),
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
		await page
			.locator('[data-test-id=node-creator-category-item]')
			.first()
			.waitFor({ state: 'visible' })
			.catch(() => {});
		const folded = page.locator(
			'[data-category-collapsed=true] [data-test-id=node-creator-category-item][data-keyboard-nav-id=Actions]',
		);
		if (await folded.count()) await folded.first().click();
		// The SMS actions include Send and Wait for Response.
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
		// n8n names a node added from an action after it: the action's short name.
		await page
			.locator(`[data-test-id=canvas-node][data-node-name="${sendSms.action}"]`)
			.first()
			.waitFor({ state: 'attached', timeout: 10_000 })
			.catch(async () => {
				const names = await page
					.locator('[data-test-id=canvas-node]')
					.evaluateAll((all) => all.map((node) => node.getAttribute('data-node-name')));
				throw new E2eError(
					`the node added from "${sendSms.action}" is not named after it: the canvas holds ${JSON.stringify(names)}`,
				);
			});
	});
}
