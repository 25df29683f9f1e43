// The webhook trigger's time from request to execution start in the real n8n: signed events to
// the Comms Unified Trigger beside plain ones to n8n's Webhook node, with Header Auth and with
// none, one at a time, read back from the executions' start times.

import crypto from 'node:crypto';
import { finishedExecutions } from '../../test/e2e/rig/executions.ts';
import { waitForProductionWebhook } from '../../test/e2e/rig/n8n-server.ts';
import { sleep } from '../../test/e2e/rig/proc.ts';
import { median, round } from './bursts.ts';
import { WEBHOOK_HEADER_VALUE } from './scenarios.ts';
import type { BenchN8n } from './server.ts';

const WEBHOOK_EVENTS = 20;

/** The workflows compared: n8n's Webhook node (plain, Header Auth) and ours (verified). */
type Receiver = 'plain' | 'headerAuth' | 'verified';

export interface WebhookTiming {
	events: number;
	medianResponseMs: number | null;
	medianRequestToStartMs: number | null;
}

/** An sms.delivered event for `key`, with the header its receiver checks. */
function event(key: Receiver, i: number, secret: string) {
	const body = JSON.stringify({
		event: 'sms.delivered',
		timestamp: new Date().toISOString(),
		data: {
			message_id: `usms_bench_${key}_${i}_${crypto.randomUUID()}`,
			to: '+447700900123',
			status: 'delivered',
			segments: 1,
		},
	});
	const headers: Record<string, string> = { 'content-type': 'application/json' };
	if (key === 'verified')
		headers['x-signature'] = crypto.createHmac('sha256', secret).update(body).digest('hex');
	if (key === 'headerAuth') headers['x-signature'] = WEBHOOK_HEADER_VALUE;
	return { body, headers };
}

/** WEBHOOK_EVENTS events (after one to warm up) to the `key` workflow, one at a time: request to start. */
async function timeReceiver(bench: BenchN8n, key: Receiver): Promise<WebhookTiming> {
	const secret = bench.sandboxes.unified.credentials.webhookSecret;
	const workflow = bench.workflows[key];
	const url = `${bench.url}/webhook/${workflow.webhookPath}`;
	await waitForProductionWebhook(url);
	const sent: number[] = [];
	const answered: number[] = [];
	for (let i = 0; i < WEBHOOK_EVENTS + 1; i++) {
		const { body, headers } = event(key, i, secret);
		const began = Date.now();
		const t0 = process.hrtime.bigint();
		const response = await fetch(url, { method: 'POST', headers, body });
		await response.text();
		if (response.status !== 200) throw new Error(`${key} webhook answered ${response.status}`);
		answered.push(Number(process.hrtime.bigint() - t0) / 1e6);
		sent.push(began);
		await sleep(150);
	}
	const executions = await finishedExecutions(bench.reader, workflow.id, sent.length, 120000);
	// The first is a warm-up (n8n loads the node on first use).
	const starts = executions.map((e, i) => Date.parse(e.startedAt) - sent[i]).slice(1);
	return {
		events: WEBHOOK_EVENTS,
		medianResponseMs: round(median(answered.slice(1)), 1),
		medianRequestToStartMs: round(median(starts), 1),
	};
}

/** Plain events to n8n's Webhook node (with none and with Header Auth), signed ones to ours. */
export async function webhookLatency(bench: BenchN8n) {
	return {
		plain: await timeReceiver(bench, 'plain'),
		headerAuth: await timeReceiver(bench, 'headerAuth'),
		verified: await timeReceiver(bench, 'verified'),
	};
}
