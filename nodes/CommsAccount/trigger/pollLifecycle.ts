/**
 * What the trigger needs to stay exactly once under n8n's real lifecycle (n8n 2.41), apart
 * from the cursor itself:
 *
 * - **One poll at a time.** n8n's default poll path starts each scheduled poll without
 *   waiting for the one before; two polls reading the same cursor would both emit what they
 *   find. A poll that finds another one of the same workflow and node still running in this
 *   process returns nothing and leaves the cursor alone (`claimPoll`).
 * - **No wait longer than the interval allows** (`waitLimitMs`): a 429's wait is cut to half
 *   the shortest poll interval (and to what is left of the poll's budget), so a poll never
 *   waits into the next one; a longer wait ends the poll with the wait declared, for n8n's
 *   poll backoff.
 * - **The baseline survives the publish-time poll** (`BASELINES_KEY`). n8n commits a poller's
 *   state from the poll it runs when a workflow is published only if that poll emits: with
 *   durable cursors (N8N_POLLER_DURABLE_CURSORS_ENABLED) the first scheduled poll then found
 *   no state and took its baseline again, past every message that arrived in between. n8n
 *   does save the workflow's own static data after publishing, so the starting state (where
 *   it starts, and the ids of what was there) is also kept there, by node, and a poll that
 *   finds no cursor starts from it.
 * - **A cursor knows what it is for** (`fingerprint`): another event or other filters start
 *   afresh from now, instead of reading everything since the last message of the old filter.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { baseline, type CursorState, parseState } from './cursorState';

/** Where, in the workflow's global static data, each trigger node's baseline is kept. */
const BASELINES_KEY = 'commsAccountTriggerBaselines';

/** A poll older than this is taken as dead (its process would have ended it long before). */
const STALE_POLL_MS = 15 * 60_000;

const running = new Map<string, { startedMs: number }>();

function pollKey(ctx: IPollFunctions): string {
	const node = ctx.getNode();
	return `${ctx.getWorkflow().id ?? ''}|${node.id ?? node.name}`;
}

/**
 * Claims the right to poll for this workflow and node in this process. Returns the release
 * function, or undefined when another poll of the same trigger is still running.
 */
export function claimPoll(ctx: IPollFunctions, nowMs: number): (() => void) | undefined {
	const key = pollKey(ctx);
	const current = running.get(key);
	if (current && nowMs - current.startedMs < STALE_POLL_MS) return undefined;
	const claim = { startedMs: nowMs };
	running.set(key, claim);
	return () => {
		if (running.get(key) === claim) running.delete(key);
	};
}

const MINUTE = 60_000;

/** The shortest interval between two scheduled polls, as far as Poll Times tell (1 minute if unknown). */
export function shortestIntervalMs(pollTimes: unknown): number {
	const items = (pollTimes as { item?: unknown })?.item;
	if (!Array.isArray(items) || items.length === 0) return MINUTE;
	let shortest = Infinity;
	for (const item of items as IDataObject[]) {
		const value = Number(item.value);
		switch (item.mode) {
			case 'everyX':
				shortest = Math.min(
					shortest,
					(Number.isFinite(value) && value > 0 ? value : 1) *
						(item.unit === 'hours' ? 60 : 1) *
						MINUTE,
				);
				break;
			case 'everyHour':
				shortest = Math.min(shortest, 60 * MINUTE);
				break;
			case 'everyDay':
			case 'everyWeek':
			case 'everyMonth':
				shortest = Math.min(shortest, 24 * 60 * MINUTE);
				break;
			default:
				// Every minute, or a custom cron (which can be every minute).
				shortest = Math.min(shortest, MINUTE);
		}
	}
	return shortest;
}

/** The longest wait a poll may make: half the shortest interval, and within its budget. */
export function waitLimitMs(intervalMs: number, budgetLeftMs: number): number {
	return Math.max(1000, Math.min(intervalMs / 2, budgetLeftMs));
}

/** What a cursor is for: the event and every filter that changes what the API returns. */
export function fingerprint(parts: Record<string, string>): string {
	return JSON.stringify(
		Object.keys(parts)
			.sort()
			.map((key) => [key, parts[key]]),
	);
}

function nodeKeyOf(ctx: IPollFunctions): string {
	const node = ctx.getNode();
	return node.id ?? node.name;
}

/**
 * The starting state kept for this node when it was published, if it is for the same fingerprint.
 * A baseline kept by an earlier version is a time alone (`at`): a trigger starting from it.
 */
export function savedBaseline(ctx: IPollFunctions, fp: string): CursorState | undefined {
	const all = ctx.getWorkflowStaticData('global')[BASELINES_KEY] as IDataObject | undefined;
	const saved = all?.[nodeKeyOf(ctx)] as
		{ at?: unknown; fp?: unknown; state?: unknown } | undefined;
	if (!saved || saved.fp !== fp) return undefined;
	if (saved.state !== undefined) return parseState(saved.state);
	return typeof saved.at === 'number' && Number.isFinite(saved.at)
		? baseline(saved.at, fp)
		: undefined;
}

/** Keeps the starting state in the workflow's static data, which n8n saves after publishing. */
export function keepBaseline(ctx: IPollFunctions, state: CursorState, fp: string): void {
	const global = ctx.getWorkflowStaticData('global');
	const all = (global[BASELINES_KEY] as IDataObject | undefined) ?? {};
	global[BASELINES_KEY] = { ...all, [nodeKeyOf(ctx)]: { state, fp } };
}

/**
 * Whether this poll may be the one n8n runs when it publishes or starts a workflow. The durable
 * scheduler runs its scheduled polls as `update`; the default path keeps the activation's mode
 * for every poll, where a cursor is always in memory after the first one.
 */
export function isActivationPoll(ctx: IPollFunctions): boolean {
	const mode = ctx.getActivationMode();
	return mode === 'activate' || mode === 'init' || mode === 'leadershipChange';
}
