// Editor step 1b: the package's nodes on a canvas, saved as the README's picture
// (docs/images/editor-workflow.png; commit it when the editor or the nodes' look changes).

import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { REPO } from '../../comms.ts';
import { log } from '../../rig/proc.ts';
import type { EditorContext } from './checks.ts';

/** The README's picture of the package's nodes on the canvas: 1280x800, zoomed to fit. */
const README_PICTURE = path.join(REPO, 'docs', 'images', 'editor-workflow.png');

async function saveReadmePicture(page: Page): Promise<void> {
	const viewport = page.viewportSize();
	await page.setViewportSize({ width: 1280, height: 800 });
	try {
		// n8n's zoom-to-fit button, then the mouse away from every node (no hover outline).
		await page.locator('[data-test-id=zoom-to-fit]').click();
		await page.mouse.move(0, 0);
		await page.waitForTimeout(1000); // the canvas animates the zoom
		fs.mkdirSync(path.dirname(README_PICTURE), { recursive: true });
		await page.screenshot({ path: README_PICTURE });
		log(`  browser: saved ${path.relative(REPO, README_PICTURE)}`);
	} finally {
		if (viewport) await page.setViewportSize(viewport);
	}
}

/** Step 1b: the package's nodes on a canvas, saved as the README's picture. */
export async function readmePictureStep({
	page,
	step,
	url,
	nodes,
	canvas,
}: EditorContext): Promise<void> {
	if (!canvas) return;
	await step('the package on a canvas, as the README shows it', async () => {
		await page.goto(`${url}/workflow/${canvas.workflowId}`);
		for (const { type } of nodes)
			await page
				.locator(`[data-test-id=canvas-node][data-node-type="${type}"]`)
				.first()
				.waitFor({ state: 'visible' });
		await saveReadmePicture(page);
	});
}
