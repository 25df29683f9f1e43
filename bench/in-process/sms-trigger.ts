// The Comms Account Trigger's cost in requests, in this process: the trigger alone, polled as
// n8n polls it (the harness's PollHarness), an idle poll and then a burst of 1,000 inbound
// messages, in both orders a server may return them in.

import { harnessModule } from '../build.ts';
import type { PollHarness } from '../../harness/index.ts';
import type { Sandbox, SmsOrder } from '../../sandbox/index.ts';
import {
	accountCredentials,
	configure,
	inBothOrders,
	LATENCY_MS,
	SMS_PAGE,
	smsReads,
	withSandbox,
} from './sandbox.ts';

const BURST_COUNT = 1000;

interface MeasuredPoll {
	ids: string[];
	/** The poll returned nothing (null), as n8n sees an empty poll. */
	empty: boolean;
	requests: number;
	ms: number;
}

/** The trigger as the tests run it: the trigger alone, as n8n polls it (PollHarness). */
function triggerHarness(sandbox: Sandbox): PollHarness {
	const { PollHarness, CREDENTIAL_REFS } = harnessModule();
	return new PollHarness(
		{
			nodes: [
				{
					id: 'trigger',
					name: 'SMS received',
					type: 'n8n-nodes-comms-api.commsAccountTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: { options: { includeLastMinutes: 60 } },
					credentials: CREDENTIAL_REFS,
				},
			],
			connections: {},
		},
		{ credentials: accountCredentials(sandbox) },
	);
}

/** One poll: what it emitted, the requests it made, its time; a failing poll throws. */
async function measuredPoll(sandbox: Sandbox, trigger: PollHarness): Promise<MeasuredPoll> {
	const before = smsReads(sandbox).length;
	const run = await trigger.poll();
	if (run.error) throw run.error;
	return {
		ids: (run.items ?? []).map((item) => String(item.json.id)),
		empty: run.items === null,
		requests: smsReads(sandbox).length - before,
		ms: run.durationMs,
	};
}

/** BURST_COUNT inbound messages, one every 10 ms, the first 15 minutes ago; their ids. */
function injectBurst(sandbox: Sandbox): string[] {
	const start = Date.now() - 15 * 60_000;
	return sandbox.control
		.injectInboundSms({
			sentAts: Array.from({ length: BURST_COUNT }, (_, i) =>
				new Date(start + i * 10).toISOString(),
			),
		})
		.map((record) => String(record.id));
}

/** Polls until a poll brings nothing (at most 20): the polls that deliver, and the one that confirms. */
async function pollUntilEmpty(sandbox: Sandbox, trigger: PollHarness) {
	const delivering: MeasuredPoll[] = [];
	for (let i = 0; i < 20; i++) {
		const poll = await measuredPoll(sandbox, trigger);
		if (poll.empty) return { delivering, confirming: poll };
		delivering.push(poll);
	}
	return { delivering, confirming: undefined };
}

async function triggerOrder(sandbox: Sandbox, order: SmsOrder) {
	configure(sandbox, order);
	const trigger = triggerHarness(sandbox);
	const activation = await trigger.activate();
	if (activation.error) throw activation.error;
	// Quiet for a while: the window before the cursor holds a few messages (as the test does).
	sandbox.control.injectInboundSms({
		sentAt: new Date(Date.now() - 20 * 60_000).toISOString(),
		count: 3,
		intervalSeconds: 60,
	});
	await measuredPoll(sandbox, trigger);
	const idle = await measuredPoll(sandbox, trigger);

	const sent = injectBurst(sandbox);
	const { delivering, confirming } = await pollUntilEmpty(sandbox, trigger);
	const emitted = delivering.flatMap((poll) => poll.ids);
	const unique = new Set(emitted);
	const burst = new Set(sent);
	const first = delivering[0] ?? { ids: [], requests: 0, ms: 0 };
	return {
		idlePoll: {
			requests: idle.requests,
			targetRequests: 1,
			emitted: idle.ids.length,
			ms: Math.round(idle.ms),
		},
		burst: {
			sent: BURST_COUNT,
			firstPoll: {
				requests: first.requests,
				emitted: first.ids.length,
				ms: Math.round(first.ms),
			},
			targetRequests: Math.ceil(BURST_COUNT / SMS_PAGE) + 1,
			pollsDelivering: delivering.length,
			requestsDelivering: delivering.reduce((sum, poll) => sum + poll.requests, 0),
			msDelivering: Math.round(delivering.reduce((sum, poll) => sum + poll.ms, 0)),
			emitted: emitted.length,
			uniqueIds: unique.size,
			duplicates: emitted.length - unique.size,
			notInBurst: [...unique].filter((id) => !burst.has(id)).length,
			missing: sent.filter((id) => !unique.has(id)).length,
			inOrder: emitted.every((id, i) => id === sent[sent.length - emitted.length + i]),
			confirmingPoll: confirming
				? { requests: confirming.requests, ms: Math.round(confirming.ms) }
				: 'none: 20 polls all brought messages',
		},
	};
}

/**
 * The Comms Account Trigger, polled as n8n polls it, in both orders: an idle poll, then a
 * burst of 1,000 inbound messages, polled until a poll brings nothing.
 */
export async function smsTriggerBench() {
	harnessModule();
	return withSandbox(async (sandbox) => ({
		scenario: `Comms Account Trigger: an idle poll, and a burst of ${BURST_COUNT}`,
		latencyMs: LATENCY_MS,
		pageSize: SMS_PAGE,
		orders: await inBothOrders((order) => triggerOrder(sandbox, order)),
	}));
}
