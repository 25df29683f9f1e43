// What the in-process benchmarks share: a sandbox of their own, set to the documented limit
// with the client paced alike, the node's credentials for it, and its log of SMS reads.

import { harnessModule, sandboxModule, smsPagingModule } from '../build.ts';
import type { RequestLogEntry, Sandbox, SmsOrder } from '../../sandbox/index.ts';

export const LATENCY_MS = 20;
export const DOCUMENTED_PER_WINDOW = 600;
export const WINDOW_MS = 60_000;
/** The API's largest page for GET /v1/sms (nodes/CommsAccount/api/smsPaging.ts MAX_PAGE_SIZE). */
export const SMS_PAGE = smsPagingModule().MAX_PAGE_SIZE;
/** Both orders a server may return GET /v1/sms in; every reading benchmark runs both. */
const ORDERS: SmsOrder[] = ['oldestFirst', 'newestFirst'];

/** Runs `bench` with a sandbox of its own on a free port, stopped after. */
export async function withSandbox<T>(bench: (sandbox: Sandbox) => Promise<T>): Promise<T> {
	const sandbox = await sandboxModule().startSandbox({ port: 0 });
	try {
		return await bench(sandbox);
	} finally {
		await sandbox.stop();
	}
}

/** `measure` for each order, one after the other: its figures keyed by the order. */
export async function inBothOrders<T>(
	measure: (order: SmsOrder) => Promise<T>,
): Promise<Record<string, T>> {
	const orders: [SmsOrder, T][] = [];
	for (const order of ORDERS) orders.push([order, await measure(order)]);
	return Object.fromEntries(orders);
}

/** The sandbox at the documented limit, every request held LATENCY_MS; the client paced alike. */
export function configure(sandbox: Sandbox, smsOrder: SmsOrder): void {
	sandbox.reset();
	sandbox.control.updateSettings({
		smsOrder,
		latencyMs: LATENCY_MS,
		rateWindowSeconds: WINDOW_MS / 1000,
		accountRequestsPerMinute: DOCUMENTED_PER_WINDOW,
	});
	const { setSharedLimit, limiterScope } = harnessModule();
	setSharedLimit(
		limiterScope('account', sandbox.credentials.account.unrestricted, sandbox.accountBaseUrl),
		{ perWindow: DOCUMENTED_PER_WINDOW, windowMs: WINDOW_MS, concurrency: 10 },
	);
}

/** The Comms Account credential for this sandbox, as the harness takes credentials. */
export function accountCredentials(sandbox: Sandbox) {
	return {
		commsAccountApi: {
			apiKey: sandbox.credentials.account.unrestricted,
			baseUrl: sandbox.accountBaseUrl,
		},
	};
}

/** Every GET /v1/sms the sandbox has logged. */
export function smsReads(sandbox: Sandbox): RequestLogEntry[] {
	return sandbox.requests().filter((r) => r.method === 'GET' && r.path === '/v1/sms');
}
