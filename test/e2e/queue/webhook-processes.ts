// Scenario 4 of the queue run: the provider's deliveries spread over two webhook processes, as
// a load balancer does. Signed Comms Unified events to a workflow whose trigger is followed by
// the recipe of docs/queue-mode.md (dedupe-recipe.ts): 10 events each posted to both processes at
// the same moment, and events posted to one process and, 2 s later, to the other. Counted: how
// often the workflow started for each event (the trigger alone: reported, as neither case can be
// closed inside the node on n8n 2.41, see docs/guarantees.md), and how often each reached the
// steps after the recipe (must be once).

import { answered, post } from '../comms.ts';
import { waitForProductionWebhook } from '../rig/n8n-server.ts';
import { sleep } from '../rig/proc.ts';
import type { Json } from '../rig/types.ts';
import { sign, unifiedEvent } from '../signed-events.ts';
import { RECIPE_ALL, RECIPE_ONCE } from './dedupe-recipe.ts';
import { expect } from './settings.ts';
import type { QueueRun } from './start.ts';

const AT_ONCE = 10;
const LATER = 3;
const LATER_MS = 2000;

/** How many bodies at `path` carry each eventId. */
function countsByEvent(bodies: Json[]): Map<string, number> {
	const counts = new Map<string, number>();
	for (const body of bodies) counts.set(body.eventId, (counts.get(body.eventId) ?? 0) + 1);
	return counts;
}

export async function twoWebhookProcessesScenario(run: QueueRun): Promise<Json> {
	const { sandbox, webhookProcs, workflows } = run;
	const problems: string[] = [];
	const secret = sandbox.credentials.webhookSecret;
	const webhookId = workflows.twoWebhookProcesses.webhookId as string;
	const urls = webhookProcs.map((proc) => `${proc.url}/webhook/${webhookId}/webhook`);
	await Promise.all(urls.map((url) => waitForProductionWebhook(url, 90000)));
	const signedPost = (url: string, body: string) =>
		post(url, body, { 'x-signature': sign(body, secret) });

	// 1. Each event to both processes at the same moment.
	const stamp = Date.now();
	const atOnce = Array.from({ length: AT_ONCE }, (_, i) =>
		unifiedEvent('call.completed', `call_multi_${stamp}_${i}`),
	);
	const answers = await Promise.all(
		atOnce.flatMap((body) => urls.map((url) => signedPost(url, body))),
	);
	expect(
		problems,
		answers.every((a) => a.status === 200),
		`simultaneous deliveries answered ${answers.map(answered).join(', ')}`,
	);
	// 2. Each event to one process, and 2 s later to the other.
	const later = Array.from({ length: LATER }, (_, i) =>
		unifiedEvent('sms.delivered', `sms_multi_${stamp}_${i}`),
	);
	await Promise.all(
		later.map(async (body) => {
			const first = await signedPost(urls[0], body);
			await sleep(LATER_MS);
			const second = await signedPost(urls[1], body);
			expect(
				problems,
				first.status === 200 && second.status === 200,
				`a delivery and its repeat 2 s later answered ${answered(first)} and ${answered(second)}`,
			);
		}),
	);
	// Time for the executions to run on the workers.
	const ids = [...atOnce, ...later].map((body) => {
		const event = JSON.parse(body);
		return `${event.event}:${event.data.call_id ?? event.data.message_id}`;
	});
	const deadline = Date.now() + 60_000;
	while (
		Date.now() < deadline &&
		ids.some((id) => !countsByEvent(sandbox.collector.bodies(RECIPE_ONCE)).has(id))
	)
		await sleep(1000);
	await sleep(5000);
	const started = countsByEvent(sandbox.collector.bodies(RECIPE_ALL));
	const once = countsByEvent(sandbox.collector.bodies(RECIPE_ONCE));
	const startsOf = (list: string[]) => list.map((id) => started.get(id) ?? 0);
	const atOnceStarts = startsOf(ids.slice(0, AT_ONCE));
	const laterStarts = startsOf(ids.slice(AT_ONCE));
	const afterRecipe = ids.map((id) => once.get(id) ?? 0);
	expect(
		problems,
		afterRecipe.every((n) => n === 1),
		`after the recipe, events reached the workflow ${afterRecipe.join(', ')} times (each must be once)`,
	);
	expect(
		problems,
		atOnceStarts.every((n) => n >= 1) && laterStarts.every((n) => n >= 1),
		'an event started nothing',
	);
	return {
		processes: urls.length,
		atTheSameMoment: {
			events: AT_ONCE,
			startedTwice: atOnceStarts.filter((n) => n > 1).length,
			starts: atOnceStarts,
		},
		twoSecondsLater: {
			events: LATER,
			startedTwice: laterStarts.filter((n) => n > 1).length,
			starts: laterStarts,
		},
		afterRecipe,
		problems,
	};
}
