// The sandbox as the queue run needs it: the compiled sandbox with a collector beside it, its
// limits set for the bursts (no Retry-After, a sliding window, a little latency) and credit
// enough for every SMS.

import { loadSandbox, type CommsSandbox } from '../comms.ts';
import { startCollector } from '../rig/collector.ts';
import { log } from '../rig/proc.ts';
import { ACCOUNT_LIMIT, LATENCY_MS, UNIFIED_SMS_LIMIT, WINDOW_SECONDS } from './settings.ts';

export async function startQueueSandbox(): Promise<CommsSandbox> {
	const sandbox = await loadSandbox().startSandbox({ port: 0, autoSettleMs: 1000 });
	const withCollector = Object.assign(sandbox, {
		collector: await startCollector(),
	}) as CommsSandbox;
	sandbox.control.updateSettings({
		retryAfter: false,
		accountRequestsPerMinute: ACCOUNT_LIMIT,
		rateWindowSeconds: WINDOW_SECONDS,
		latencyMs: LATENCY_MS,
		unifiedLimits: { sms: { perMinute: UNIFIED_SMS_LIMIT, concurrent: 50 } },
	});
	sandbox.control.setBalances({ smsCredits: { subscription: 100000, topUp: 0 } });
	log(
		`sandbox at ${sandbox.url}: Account ${ACCOUNT_LIMIT} per ${WINDOW_SECONDS}s, Unified SMS ${UNIFIED_SMS_LIMIT} per ${WINDOW_SECONDS}s, no Retry-After, ${LATENCY_MS} ms latency`,
	);
	return withCollector;
}
