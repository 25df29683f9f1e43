// The editor in a real browser (headless Chromium driven by playwright-core; see rig/browser.ts)
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

import type { Locator, Page } from 'playwright-core';
import { REPO, type CommsSandbox } from '../../comms.ts';
import { openSession, signIn, type BrowserSession } from '../../rig/browser.ts';
import { OWNER, setupOwner } from '../../rig/n8n-server.ts';
import { log } from '../../rig/proc.ts';
import path from 'node:path';
import type { PackageNode, sendSmsTexts, voiceCheck } from '../package-nodes.ts';
import { canvasSteps } from './canvas.ts';
import { credentialSteps } from './credential.ts';
import { nodesPanelSteps } from './nodes-panel.ts';
import { readmePictureStep } from './readme-picture.ts';
import { sendSmsSteps } from './send-sms.ts';

export const SCREENSHOTS = path.join(REPO, '.e2e', 'screenshots');
/** The whole browser session (about 40 s on an idle 2-core machine) may take at most this long. */
const SESSION_LIMIT_MS = Number(process.env.E2E_BROWSER_SESSION_MS) || 4 * 60 * 1000;

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
export interface EditorTrigger {
	name: string;
	type: string;
	workflowId: string;
	shows: string[];
	webhookUrl: string | undefined;
}

export interface EditorChecks {
	url: string;
	packageName: string;
	nodes: PackageNode[];
	sendSms: ReturnType<typeof sendSmsTexts>;
	sandbox: CommsSandbox;
	canvas?: { workflowId: string };
	voices?: ReturnType<typeof voiceCheck>;
	triggers?: EditorTrigger[];
}

/** What every group of steps works with: the checks' input, the page, the session's steps. */
export interface EditorContext extends EditorChecks {
	page: Page;
	step: BrowserSession['step'];
	snapshot: BrowserSession['snapshot'];
	/** The node editor (NDV) and the credential modal. */
	ndv: Locator;
	modal: Locator;
	/** Where n8n serves the package's icons. */
	iconPath: string;
}

export async function runEditorChecks(checks: EditorChecks): Promise<void> {
	const { url } = checks;
	await setupOwner(url, OWNER);
	const session = await openSession({ screenshotsDir: SCREENSHOTS, deadlineMs: SESSION_LIMIT_MS });
	const { page, step, snapshot } = session;
	const context: EditorContext = {
		...checks,
		page,
		step,
		snapshot,
		ndv: page.locator('[data-test-id=ndv]'),
		modal: page.locator('[data-test-id=editCredential-modal]'),
		iconPath: `/icons/${checks.packageName}/`,
	};
	try {
		await step('sign in through the form as the owner', async () => {
			await signIn(page, url, OWNER);
		});
		await readmePictureStep(context);
		await nodesPanelSteps(context);
		await credentialSteps(context);
		await sendSmsSteps(context);
		await canvasSteps(context);
		log(`  browser: done in ${session.elapsed().toFixed(1)}s`);
	} finally {
		await session.close();
	}
}
