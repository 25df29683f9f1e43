// The SMS trigger's polls in the queue run, as the sandbox logged them, and the check that only
// one process polls: each main's lifetime brings one activation poll and then at most one a
// minute, and no poll comes while no main runs.

import type { CommsSandbox } from '../comms.ts';
import { expect, round } from './settings.ts';

/** A main's lifetime, from spawn to SIGTERM (ms). */
export interface Lifetime {
	from: number;
	to: number | null;
}

export function smsPollRequests(sandbox: CommsSandbox) {
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
export function smsPolls(sandbox: CommsSandbox): number[] {
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
 * One poller: each main's lifetime (spawn to SIGTERM) brings one activation poll, then at most
 * one scheduled poll a minute (n8n picks a random second for "every minute" at each activation,
 * so gaps are only compared inside one lifetime); no poll while no main runs, though the workers
 * and the webhook process stay up. Adds what breaks that to `problems`; returns the figures.
 */
export function checkOnePoller(problems: string[], polls: number[], lifetimes: Lifetime[]) {
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
	return { perLifetime, outside };
}
