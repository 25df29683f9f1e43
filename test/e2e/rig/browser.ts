// A real browser for the end-to-end run: headless Chromium from the distribution (Debian's
// `chromium` package, see scripts/ensure-chromium.sh), driven by playwright-core, which never
// downloads a browser of its own. Generic: nothing here knows the Comms API; the n8n-specific
// helpers (sign-in form, node icons) use only n8n's own `data-test-id` attributes.
//
//   const session = await openSession({ screenshotsDir, deadlineMs });
//   await session.step('sign in', async (page) => { ... });
//   await session.close();
//
// A step that fails leaves a full-page screenshot and the page's HTML in screenshotsDir and
// rethrows with the step's name and the screenshot's path. E2E_SCREENSHOTS=all also keeps a
// screenshot after every step that passed (to look at the editor as a user sees it).

import fs from 'node:fs';
import path from 'node:path';
import {
	chromium,
	type Browser,
	type BrowserContext,
	type Locator,
	type Page,
} from 'playwright-core';
import { E2eError, log } from './proc.ts';

/** How long one action or wait may take; the machine may be small and busy. */
const ACTION_TIMEOUT_MS = Number(process.env.E2E_BROWSER_TIMEOUT_MS) || 60000;

/** Flags for a headless Chromium running as root on a machine without network access. */
const CHROMIUM_ARGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

function chromiumPath(): string {
	const candidates = [
		process.env.CHROMIUM_PATH,
		'/usr/bin/chromium',
		'/usr/bin/chromium-browser',
	].filter((file): file is string => Boolean(file));
	const found = candidates.find((file) => fs.existsSync(file));
	if (!found)
		throw new E2eError(
			`no Chromium at ${candidates.join(' or ')}: run scripts/ensure-chromium.sh (installs Debian's chromium package) or set CHROMIUM_PATH`,
		);
	return found;
}

function fileSafe(text: string): string {
	return text
		.replace(/[^A-Za-z0-9]+/g, '-')
		.replace(/^-|-$/g, '')
		.slice(0, 60);
}

/**
 * Launches Chromium and opens one page. `deadlineMs` bounds the whole session: past it the
 * browser is closed, so whatever step is waiting fails at once instead of running on.
 */
export interface SessionOptions {
	screenshotsDir: string;
	deadlineMs?: number;
	viewport?: { width: number; height: number };
}

export interface BrowserSession {
	browser: Browser;
	context: BrowserContext;
	page: Page;
	elapsed(): number;
	consoleErrors(): string[];
	step<T>(name: string, fn: (page: Page) => Promise<T>): Promise<T>;
	snapshot(name: string): Promise<void>;
	close(): Promise<void>;
}

export async function openSession({
	screenshotsDir,
	deadlineMs = 5 * 60 * 1000,
	viewport = { width: 1440, height: 900 },
}: SessionOptions): Promise<BrowserSession> {
	const executablePath = chromiumPath();
	const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
	const context = await browser.newContext({ viewport });
	context.setDefaultTimeout(ACTION_TIMEOUT_MS);
	const page = await context.newPage();
	const consoleErrors: string[] = [];
	page.on('console', (message) => {
		if (message.type() === 'error') consoleErrors.push(message.text());
	});
	const began = Date.now();
	let expired = false;
	const deadline = setTimeout(() => {
		expired = true;
		log(
			`  browser: the session passed its ${Math.round(deadlineMs / 1000)}s limit; closing the browser`,
		);
		browser.close().catch(() => undefined);
	}, deadlineMs);
	const keepAll = process.env.E2E_SCREENSHOTS === 'all';
	let count = 0;

	/** Saves a full-page screenshot and the HTML; resolves to the screenshot's path. */
	async function keep(name: string): Promise<string> {
		fs.mkdirSync(screenshotsDir, { recursive: true });
		const base = path.join(
			screenshotsDir,
			`${new Date().toISOString().replace(/[:.]/g, '-')}-${String(count).padStart(2, '0')}-${fileSafe(name)}`,
		);
		await page
			.screenshot({ path: `${base}.png`, fullPage: true, timeout: 20000 })
			.catch(() => undefined);
		fs.writeFileSync(`${base}.html`, await page.content().catch(() => '(the page was gone)'));
		return `${base}.png`;
	}

	return {
		browser,
		context,
		page,
		/** Seconds since the browser started. */
		elapsed: () => (Date.now() - began) / 1000,
		/** Browser console errors seen so far (for a report; n8n logs some of its own). */
		consoleErrors: () => [...consoleErrors],
		/**
		 * Runs one step a person would take. On failure: screenshot and HTML, then an E2eError
		 * naming the step, the cause and where the screenshot is.
		 */
		async step<T>(name: string, fn: (page: Page) => Promise<T>): Promise<T> {
			count += 1;
			log(`  browser: ${name}`);
			try {
				const result = await fn(page);
				if (keepAll) await keep(name);
				return result;
			} catch (error) {
				const cause = expired
					? `the browser session passed its ${Math.round(deadlineMs / 1000)}s limit`
					: String(error.message || error).split('\n')[0];
				const shot = expired ? null : await keep(`FAILED-${name}`);
				const where = shot
					? ` (screenshot and HTML: ${path.relative(process.cwd(), shot)}; folder ${screenshotsDir})`
					: '';
				throw new E2eError(
					`browser, at "${name}": ${cause}${where}`,
					error instanceof E2eError ? error.details : undefined,
				);
			}
		},
		/** With E2E_SCREENSHOTS=all, a screenshot in the middle of a step (a list open, a panel expanded). */
		async snapshot(name: string) {
			if (keepAll) await keep(name);
		},
		async close() {
			clearTimeout(deadline);
			await browser.close().catch(() => undefined);
		},
	};
}

/** Signs in through n8n's sign-in form, as a person does. */
export async function signIn(
	page: Page,
	url: string,
	{ email, password }: { email: string; password: string },
): Promise<void> {
	await page.goto(`${url}/signin`);
	await page.locator('[data-test-id=emailOrLdapLoginId] input').fill(email);
	await page.locator('[data-test-id=password] input').fill(password);
	await page.locator('[data-test-id=form-submit-button]').click();
	await page.waitForURL((u) => !u.pathname.startsWith('/signin'));
}

/**
 * The images inside `scope` (a Locator) whose address contains `srcPart`, once every one of
 * them has finished loading or failing: [{ src, loaded }]. A missing icon shows as an <img>
 * whose naturalWidth is 0.
 */
async function iconsIn(
	scope: Locator,
	srcPart: string,
): Promise<{ src: string; loaded: boolean }[]> {
	const read = () =>
		scope.evaluateAll(
			(elements, part) =>
				elements
					.flatMap((element) => [...element.querySelectorAll('img')])
					.filter((img) => img.src.includes(part))
					.map((img) => ({
						src: img.src,
						complete: img.complete,
						loaded: img.complete && img.naturalWidth > 0,
					})),
			srcPart,
		);
	const began = Date.now();
	let icons = await read();
	while (icons.some((icon) => !icon.complete) && Date.now() - began < ACTION_TIMEOUT_MS) {
		await new Promise((resolve) => setTimeout(resolve, 250));
		icons = await read();
	}
	return icons.map(({ src, loaded }) => ({ src, loaded }));
}

/** Throws unless `scope` shows at least one image from `srcPart` and every such image loaded. */
export async function expectIconLoaded(
	scope: Locator,
	what: string,
	srcPart: string,
): Promise<number> {
	const icons = await iconsIn(scope, srcPart);
	if (icons.length === 0)
		throw new E2eError(
			`${what}: no icon image from ${srcPart} (n8n shows a placeholder when a node's icon is missing)`,
		);
	const broken = icons.filter((icon) => !icon.loaded);
	if (broken.length > 0)
		throw new E2eError(
			`${what}: icon image did not load (naturalWidth 0): ${[...new Set(broken.map((icon) => icon.src))].join(', ')}`,
		);
	return icons.length;
}

/** The visible text of a locator, squeezed to one line, for error messages. */
export async function textOf(locator: Locator, max = 400): Promise<string> {
	const text = await locator.innerText({ timeout: 5000 }).catch(() => '');
	return text.replace(/\s+/g, ' ').trim().slice(0, max);
}
