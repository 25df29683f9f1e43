// Scenario 4 of the queue run: the Comms Account Trigger polls only on the main (one poller, not
// one per process), and a graceful restart of the main during a burst of inbound SMS loses and
// repeats nothing.

import type { CommsSandbox } from '../comms.ts';
import { waitFor } from '../rig/n8n-server.ts';
import { log, sleep } from '../rig/proc.ts';
import { expect, round } from './settings.ts';
import { checkOnePoller, smsPollRequests, smsPolls, type Lifetime } from './sms-polls.ts';

/**
 * Scenario 4: polls only on the main; inbound SMS arrive every 0.5 s from 3 s before a SIGTERM
 * of the main until it serves again; each reaches the workflow exactly once.
 */
export async function smsTriggerScenario({
	sandbox,
	restartMain,
	lifetimes,
}: {
	sandbox: CommsSandbox;
	restartMain: () => Promise<{ stopSeconds: number; startSeconds: number }>;
	lifetimes: Lifetime[];
}) {
	const problems: string[] = [];
	const delivered = () => sandbox.collector.bodies('/sms');
	await waitFor("the SMS trigger's activation poll", () => smsPolls(sandbox).length >= 1, {
		timeoutMs: 60000,
	});
	const ids: string[] = [];
	let injecting = true;
	let n = 0;
	const injector = (async () => {
		while (injecting) {
			n += 1;
			const [message] = sandbox.control.injectInboundSms({
				from: '+447700900778',
				body: `queue-sms ${n}`,
			});
			ids.push(String(message.id));
			await sleep(500);
		}
	})();
	await sleep(3000);
	const restart = await restartMain();
	injecting = false;
	await injector;
	log(
		`  ${ids.length} inbound SMS arrived from 3 s before the SIGTERM until the main served again`,
	);
	await waitFor(
		`all ${ids.length} SMS to reach the workflow`,
		() => new Set(delivered().map((b: { id: string }) => b.id)).size >= ids.length,
		{ timeoutMs: 150000, intervalMs: 1000 },
	).catch((error: Error) => problems.push(error.message));
	// One more poll after that: nothing may come twice.
	const pollsNow = smsPolls(sandbox).length;
	await waitFor('one more poll', () => smsPolls(sandbox).length > pollsNow, {
		timeoutMs: 90000,
	}).catch((error: Error) => problems.push(error.message));
	await sleep(4000);
	const got = delivered().map((b: { id: string }) => b.id);
	const unique = new Set(got);
	const lost = ids.filter((id) => !unique.has(id));
	const repeated = got.length - unique.size;
	const unexpected = got.filter((id) => !ids.includes(id));
	expect(problems, lost.length === 0, `${lost.length} SMS never reached the workflow`);
	expect(problems, repeated === 0, `${repeated} SMS reached the workflow twice`);
	expect(
		problems,
		unexpected.length === 0,
		`${unexpected.length} SMS from before the burst reached the workflow`,
	);
	lifetimes[lifetimes.length - 1].to = Date.now();
	const polls = smsPolls(sandbox);
	const pollRequests = smsPollRequests(sandbox);
	const { perLifetime, outside } = checkOnePoller(problems, polls, lifetimes);
	const spanMinutes = polls.length > 1 ? (polls[polls.length - 1] - polls[0]) / 60000 : 0;
	return {
		injected: ids.length,
		delivered: got.length,
		lost: lost.length,
		repeated,
		restart: {
			stopSeconds: round(restart.stopSeconds, 1),
			startSeconds: round(restart.startSeconds, 1),
		},
		polls: polls.length,
		pollSpanMinutes: round(spanMinutes, 2),
		pollsWhileNoMainRan: outside,
		pollRequestsAnswered429: pollRequests.filter((r) => r.status === 429).length,
		pollRequests: pollRequests.map((r) => [
			round((Date.parse(r.time) - lifetimes[0].from) / 1000, 1),
			r.status,
		]),
		mains: perLifetime,
		problems,
	};
}
