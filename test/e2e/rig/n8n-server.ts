// A running n8n (`n8n start`) for the end-to-end checks that need one: published workflows
// with triggers (polling, webhooks) and the editor in a browser. Generic: nothing here knows
// the Comms API.
//
// startN8n(n8n, env) starts the server on the environment's loopback port, waits until it
// answers /healthz, and resolves to { url, exited() }. The owner account is set up
// over REST (setupOwner); the editor check then signs in through n8n's form, and checks that
// only need the API use ownerSession().

import type { N8nInstall } from './n8n-install.ts';
import { E2eError, log, run, sleep, type RunResult } from './proc.ts';
import type { Json } from './types.ts';

/** How long `n8n start` may take to serve requests (E2E_N8N_START_TIMEOUT_MS; default 3 min). */
export const N8N_START_TIMEOUT_MS = Number(process.env.E2E_N8N_START_TIMEOUT_MS) || 3 * 60 * 1000;

/** `n8n start` in the background; resolves once it serves requests. */
export interface RunningN8n {
	url: string;
	exited: () => Exited | null;
}

type Exited = RunResult | { error: Error };

export async function startN8n(n8n: N8nInstall, env: NodeJS.ProcessEnv): Promise<RunningN8n> {
	const url = `http://127.0.0.1:${env.N8N_PORT}`;
	const lines: string[] = [];
	let exited = null as Exited | null;
	const child = run(n8n.node, [n8n.n8nBin, 'start'], {
		cwd: env.N8N_USER_FOLDER!,
		env,
		capture: false,
		check: false,
		label: 'n8n start',
		echo: process.env.E2E_VERBOSE === '1' ? '  n8n start| ' : undefined,
	});
	child.then(
		(result) => {
			exited = result;
			lines.push(result.stdout, result.stderr);
		},
		(error: Error) => {
			exited = { error };
		},
	);
	const began = Date.now();
	for (;;) {
		if (exited)
			throw new E2eError(
				'n8n start exited before it served requests',
				['error' in exited ? exited.error.message : '', ...lines]
					.filter(Boolean)
					.join('\n')
					.slice(-4000),
			);
		try {
			const response = await fetch(`${url}/healthz/readiness`);
			if (response.ok) break;
		} catch {
			// Not listening yet.
		}
		if (Date.now() - began > N8N_START_TIMEOUT_MS)
			throw new E2eError(
				`n8n start did not answer /healthz/readiness within ${N8N_START_TIMEOUT_MS / 1000}s`,
			);
		await sleep(500);
	}
	log(`n8n start: serving at ${url} after ${((Date.now() - began) / 1000).toFixed(1)}s`);
	return { url, exited: () => exited };
}

/** The one owner account every live check uses (n8n has a single owner). */
export interface Owner {
	email: string;
	firstName: string;
	lastName: string;
	password: string;
}

export const OWNER: Owner = {
	email: 'owner@example.com',
	firstName: 'Owner',
	lastName: 'E2E',
	password: 'E2e-password-1',
};

/**
 * Sets up n8n's owner account over REST (POST /rest/owner/setup), as the set-up form does.
 * An instance whose owner is already set up answers 400; that is fine, the owner is the same.
 */
export async function setupOwner(url: string, owner: Owner = OWNER): Promise<Owner> {
	// n8n 1.x answers /healthz/readiness before it has mounted its REST API (404 until then).
	const setup = await waitFor('n8n to serve its REST API', async () => {
		const answer = await fetch(`${url}/rest/owner/setup`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(owner),
		});
		return answer.status === 404 ? null : answer;
	});
	if (!setup.ok && setup.status !== 400)
		throw new E2eError(
			`owner set-up answered ${setup.status}: ${(await setup.text()).slice(0, 300)}`,
		);
	return owner;
}

/**
 * Cookie-authenticated REST calls as the owner (set up here if nobody has yet); each resolves to
 * the answer's `data`.
 */
export interface OwnerSession {
	/** The session cookie, for a request whose answer is not `{ data }`. */
	cookie: string;
	get(path: string): Promise<Json>;
	post(path: string, body: unknown): Promise<Json>;
}

export async function ownerSession(url: string, owner: Owner = OWNER): Promise<OwnerSession> {
	const json = { 'content-type': 'application/json' };
	await setupOwner(url, owner);
	const login = await fetch(`${url}/rest/login`, {
		method: 'POST',
		headers: json,
		body: JSON.stringify({ emailOrLdapLoginId: owner.email, password: owner.password }),
	});
	if (!login.ok)
		throw new E2eError(`login answered ${login.status}: ${(await login.text()).slice(0, 300)}`);
	const cookie = (login.headers.getSetCookie?.() ?? [login.headers.get('set-cookie')])
		.map((c) => String(c).split(';')[0])
		.join('; ');
	return {
		cookie,
		async get(path: string) {
			const response = await fetch(`${url}${path}`, { headers: { cookie } });
			if (!response.ok) throw new E2eError(`GET ${path} answered ${response.status}`);
			return ((await response.json()) as { data: unknown }).data;
		},
		async post(path: string, body: unknown) {
			const response = await fetch(`${url}${path}`, {
				method: 'POST',
				headers: { ...json, cookie },
				body: JSON.stringify(body),
			});
			if (!response.ok)
				throw new E2eError(
					`POST ${path} answered ${response.status}: ${(await response.text()).slice(0, 300)}`,
				);
			return ((await response.json()) as { data: unknown }).data;
		},
	};
}

/** Polls `probe` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(
	what: string,
	probe: () => T | Promise<T>,
	{ timeoutMs = 60000, intervalMs = 500 } = {},
): Promise<NonNullable<T>> {
	const began = Date.now();
	let last: T;
	for (;;) {
		last = await probe();
		if (last) return last as NonNullable<T>;
		if (Date.now() - began > timeoutMs)
			throw new E2eError(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
		await sleep(intervalMs);
	}
}

/**
 * Waits until n8n serves the production webhook at `url`: a GET to a registered POST-only
 * webhook answers "Did you mean to make a POST request?", an unregistered one a plain 404.
 */
export async function waitForProductionWebhook(url: string, timeoutMs = 60000): Promise<void> {
	await waitFor(
		`the production webhook ${url}`,
		async () => {
			const probe = await fetch(url).catch(() => null);
			return probe !== null && (probe.status !== 404 || /POST request/i.test(await probe.text()));
		},
		{ timeoutMs },
	);
}
