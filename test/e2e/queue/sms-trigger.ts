// Scenario 4 of the queue run: the Comms Account Trigger polls only on the main (one poller, not
// one per process), and a graceful restart of the main during a burst of inbound SMS loses and
// repeats nothing.

import type { CommsSandbox } from '../comms.ts';
import { waitFor } from '../rig/n8n-server.ts';
import { log } from '../rig/proc.ts';
import { sleep } from '../rig/queue-processes.ts';
import { expect, round } from './settings.ts';

/** A main's lifetime, from spawn to SIGTERM (ms). */
export interface Lifetime {
	from: number;
	to: number | null;
}

function smsPollRequests(sandbox: CommsSandbox) {
	return sandbox
		.requests()
		.filter((r) => r.method === 'GET' && r.path === '/v1/sms' && r.query?.direction === 'received');
}

/**
 * The SMS trigger's polls, as the times (ms) they began. A request is part of the poll before
 * it when it follows a 429 (the trigger shares the key with the bursts, and its transport
 * retries a 429 inside the same poll) or comes less than 5 s after the one before (a poll may
 * read several pages).
 */
function smsPolls(sandbox: CommsSandbox): number[] {
	const polls: number[] = [];
	let previous: ReturnType<typeof smsPollRequests>[number] | null = null;
	for (const request of smsPollRequests(sandbox)) {
		const at = Date.parse(request.time);
		const samePoll = previous && (previous.status === 429 || at - Date.parse(previous.time) < 5000);
		if (!samePoll) polls.push(at);
		previous = request;
	}
	return polls;
}

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
	// One poller: each main's lifetime (spawn to SIGTERM) brings one activation poll, then at
	// most one scheduled poll a minute (n8n picks a random second for "every minute" at each
	// activation, so gaps are only compared inside one lifetime); no poll while no main runs,
	// though the workers and the webhook process stay up.
	lifetimes[lifetimes.length - 1].to = Date.now();
	const polls = smsPolls(sandbox);
	const pollRequests = smsPollRequests(sandbox);
	const poll429s = pollRequests.filter((r) => r.status === 429).length;
	const runStart = lifetimes[0].from;
	const perLifetime = lifetimes.map((life, index) => {
		const inside = polls.filter((t) => t >= life.from && t <= life.to!);
		const scheduled = inside.slice(1);
		const gaps = scheduled.slice(1).map((t, i) => (t - scheduled[i]) / 1000);
		const seconds = (life.to! - life.from) / 1000;
		return {
			main: index + 1,
			seconds: round(seconds, 1),
			polls: inside.length,
			mostAllowed: 2 + Math.floor(seconds / 60),
			secondsBetweenScheduledPolls: gaps.map((g) => round(g, 1)),
		};
	});
	const outside = polls.filter((t) => !lifetimes.some((l) => t >= l.from && t <= l.to!)).length;
	expect(problems, outside === 0, `${outside} poll(s) while no main was running`);
	for (const life of perLifetime) {
		expect(
			problems,
			life.polls <= life.mostAllowed,
			`main #${life.main} ran ${life.seconds}s and ${life.polls} polls reached the sandbox (one poller: at most ${life.mostAllowed})`,
		);
		expect(
			problems,
			life.secondsBetweenScheduledPolls.every((g) => g >= 45),
			`main #${life.main}: scheduled polls ${life.secondsBetweenScheduledPolls.join(', ')}s apart: more than one poller`,
		);
	}
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
		pollRequestsAnswered429: poll429s,
		pollRequests: pollRequests.map((r) => [
			round((Date.parse(r.time) - runStart) / 1000, 1),
			r.status,
		]),
		mains: perLifetime,
		problems,
	};
}
