// Scenario 3 of the queue run: signed, forged, repeated and simultaneous Comms Unified events
// at the webhook process; the executions run on the workers.

import { answered, post, type CommsSandbox } from '../comms.ts';
import type { ExecutionReader } from '../rig/executions.ts';
import { waitFor, waitForProductionWebhook } from '../rig/n8n-server.ts';
import { sleep } from '../rig/proc.ts';
import { executionsByWorker, type QueueProcess } from '../rig/queue-processes.ts';
import type { Json } from '../rig/types.ts';
import { postCopiesAtOnce, sign, unifiedEvent } from '../signed-events.ts';
import { expect } from './settings.ts';

/** Scenario 3: signed, forged, repeated and simultaneous events at the webhook process. */
export async function webhookTriggerScenario({
	sandbox,
	hook,
	mainHook,
}: {
	sandbox: CommsSandbox;
	hook: string;
	mainHook: string;
}) {
	const problems: string[] = [];
	const secret = sandbox.credentials.webhookSecret;
	const events = () => sandbox.collector.bodies('/events');
	await waitForProductionWebhook(hook, 90000);
	// 1. A signed event: 200 and one execution on a worker.
	const first = unifiedEvent('call.completed', `call_queue_${Date.now()}`);
	const signed = { 'x-signature': sign(first, secret) };
	const accepted = await post(hook, first, signed);
	expect(problems, accepted.status === 200, `a signed event answered ${answered(accepted)}`);
	await waitFor('the call.completed execution', () => events().length >= 1, { timeoutMs: 60000 });
	// 2. Forged: 401 each.
	const forged: [string, string, Record<string, string>][] = [
		['altered body', first.replace('"duration":42', '"duration":43'), signed],
		['no signature', first, {}],
		['wrong signature', first, { 'x-signature': sign(first, 'not-the-secret') }],
	];
	const refused: Record<string, number> = {};
	for (const [what, body, headers] of forged) {
		const answer = await post(hook, body, headers);
		refused[what] = answer.status;
		expect(problems, answer.status === 401, `${what}: answered ${answered(answer)}, expected 401`);
	}
	// 3. The same delivery again at the webhook process, then at the main: 200, nothing new.
	const repeat = await post(hook, first, signed);
	expect(problems, repeat.status === 200, `a repeat answered ${answered(repeat)}`);
	const repeatViaMain = await post(mainHook, first, signed);
	// 4. Three copies of a fresh event at the same moment: one execution.
	const fresh = unifiedEvent('sms.delivered', `sms_queue_${Date.now()}`);
	const copies = await postCopiesAtOnce(hook, fresh, secret);
	expect(
		problems,
		copies.every((status) => status === 200),
		`simultaneous copies answered ${copies.join(', ')}`,
	);
	await waitFor('the sms.delivered execution', () => events().length >= 2, { timeoutMs: 60000 });
	await sleep(5000);
	const got = events().map((e: { event: string }) => e.event);
	expect(
		problems,
		JSON.stringify(got) === JSON.stringify(['call.completed', 'sms.delivered']),
		`the workflow ran for ${JSON.stringify(got)}, expected call.completed and sms.delivered once each`,
	);
	return {
		signedAnswered: accepted.status,
		forgedAnswered: refused,
		repeatAtWebhookProcess: repeat.status,
		repeatAtMain: repeatViaMain.status,
		simultaneousCopies: copies,
		workflowRanFor: got,
		problems,
	};
}

/**
 * Scenario 3's verdict on what ran: two executions of the trigger workflow, each on a worker.
 * Adds the executions to `figures` and any problem to figures.problems.
 */
export async function checkRanOnWorkers(
	figures: Json,
	reader: ExecutionReader,
	workflowId: string,
	workers: QueueProcess[],
): Promise<void> {
	const runs = (await reader.list()).filter((e) => e.workflowId === workflowId);
	const onWorkers = executionsByWorker(workers);
	figures.executions = runs.map((r) => ({
		id: String(r.id),
		status: r.status,
		worker: onWorkers.get(String(r.id)) || null,
	}));
	expect(
		figures.problems,
		figures.executions.length === 2,
		`${figures.executions.length} executions of the trigger workflow, expected 2`,
	);
	expect(
		figures.problems,
		figures.executions.every((e: Json) => e.worker),
		`not every trigger execution ran on a worker: ${JSON.stringify(figures.executions)}`,
	);
}
