// Editor steps 7-8: the node on the canvas shows its icon, and so does every node of the
// package on a canvas; the Unified node's Voice list shows its voices; each published trigger
// workflow opens, with its icon, and its node editor shows what the user needs (the webhook
// trigger its production URL and the notice about it).

import { expectIconLoaded, textOf } from '../../rig/browser.ts';
import { E2eError, log } from '../../rig/proc.ts';
import type { EditorContext } from './checks.ts';

export async function canvasSteps(context: EditorContext): Promise<void> {
	const {
		page,
		step,
		ndv,
		nodes,
		sendSms,
		url,
		iconPath,
		canvas,
		voices,
		triggers = [],
		snapshot,
	} = context;
	await step('the node on the canvas shows its icon', async () => {
		await page.locator('[data-test-id=ndv-close-button]').click();
		await ndv.waitFor({ state: 'hidden' });
		const type = nodes.find((node) => node.displayName === sendSms.node)?.type;
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
					.waitForFunction((names: string[]) => {
						const shown = [...document.querySelectorAll('li, [role=option]')]
							.filter((e) => (e as HTMLElement).offsetParent !== null)
							.map((e) => (e.textContent ?? '').trim());
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
}
