// The SMS history read by the Comms Account node (SMS, Get Many, Return All) in this process:
// 10,000 received messages injected into the sandbox, read back, timed and counted, in both
// orders a server may return them in. memory.ts reads the same history for its figures.

import { harnessModule } from '../build.ts';
import type { Sandbox } from '../../sandbox/index.ts';
import { elapsedMs, gc, gcExposed, mb, memorySampler } from './measures.ts';
import {
	accountCredentials,
	configure,
	DOCUMENTED_PER_WINDOW,
	inBothOrders,
	LATENCY_MS,
	SMS_PAGE,
	smsReads,
	WINDOW_MS,
	withSandbox,
} from './sandbox.ts';

export const HISTORY_COUNT = 10_000;
/** The sender of the benchmark's messages: not the seeded peer, so the seeded history is out. */
const BENCH_PEER = '+447700900777';

export interface InjectedHistory {
	ids: string[];
	/** When the first message was sent: the read's `since`. */
	since: string;
}

/**
 * HISTORY_COUNT received SMS from BENCH_PEER, one a second, all in the past (ending an hour
 * ago), injected 1000 at a time. Returns their ids and the first sentAt.
 */
export function injectHistory(sandbox: Sandbox): InjectedHistory {
	const first = Date.now() - (HISTORY_COUNT + 3600) * 1000;
	const ids: string[] = [];
	for (let done = 0; done < HISTORY_COUNT; done += 1000) {
		const records = sandbox.control.injectInboundSms({
			from: BENCH_PEER,
			body: 'History message',
			count: Math.min(1000, HISTORY_COUNT - done),
			sentAt: new Date(first + done * 1000).toISOString(),
			intervalSeconds: 1,
		});
		for (const record of records) ids.push(String(record.id));
	}
	return { ids, since: new Date(first).toISOString() };
}

/** Comms Account, SMS, Get Many, Return All of the injected history; timed and sampled. */
export async function readHistory(sandbox: Sandbox, { ids, since }: InjectedHistory) {
	const { runWorkflow, singleNodeWorkflow } = harnessModule();
	const workflow = singleNodeWorkflow('n8n-nodes-comms-api.commsAccount', {
		resource: 'sms',
		operation: 'getAll',
		returnAll: true,
		filters: { direction: 'received', peer: BENCH_PEER, since },
	});
	const requestsBefore = smsReads(sandbox).length;
	gc();
	const sampler = memorySampler();
	const started = process.hrtime.bigint();
	const result = await runWorkflow(workflow, { credentials: accountCredentials(sandbox) });
	const ms = elapsedMs(started);
	const memory = sampler.stop();
	const output = result.output('Node');
	const reads = smsReads(sandbox).slice(requestsBefore);
	const returned = output.map((item) => String(item.json.id));
	const unique = new Set(returned);
	const injected = new Set(ids);
	const hints = (result.task('Node')?.hints ?? []).map((hint) => hint.message);
	return {
		result,
		figures: {
			messages: output.length,
			uniqueIds: unique.size,
			duplicates: returned.length - unique.size,
			notInjected: [...unique].filter((id) => !injected.has(id)).length,
			missing: ids.filter((id) => !unique.has(id)).length,
			requests: reads.length,
			leastRequests: Math.ceil(HISTORY_COUNT / SMS_PAGE),
			// `since` is inclusive: each page after the first repeats the record at the cursor.
			leastRequestsInclusiveSince: 1 + Math.ceil((HISTORY_COUNT - SMS_PAGE + 1) / (SMS_PAGE - 1)),
			http429: reads.filter((r) => r.status === 429).length,
			error: result.error ? String(result.error.message ?? result.error) : null,
			ms: Math.round(ms),
			msPerRequest: reads.length ? +(ms / reads.length).toFixed(1) : null,
			heapGrowthMB: mb(memory.end.heapUsed - memory.start.heapUsed),
			peakHeapMB: mb(memory.peakHeap),
			peakHeapGrowthMB: mb(memory.peakHeap - memory.start.heapUsed),
			hints,
		},
		memory,
	};
}

export type HistoryRead = Awaited<ReturnType<typeof readHistory>>;

/**
 * The SMS history: 10,000 received messages read with Get Many, Return All, once with the
 * sandbox's results oldest first and once newest first.
 */
export async function historyBench() {
	harnessModule();
	return withSandbox(async (sandbox) => {
		const orders = await inBothOrders(async (order) => {
			configure(sandbox, order);
			const injected = injectHistory(sandbox);
			return (await readHistory(sandbox, injected)).figures;
		});
		return {
			scenario: `SMS Get Many, Return All, ${HISTORY_COUNT} received messages`,
			filters: `direction received, peer ${BENCH_PEER}, since the first injected (the seeded history excluded)`,
			latencyMs: LATENCY_MS,
			limit: `${DOCUMENTED_PER_WINDOW} per ${WINDOW_MS / 1000} s`,
			pageSize: SMS_PAGE,
			gcExposed: gcExposed(),
			orders,
		};
	});
}
