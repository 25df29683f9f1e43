/**
 * The replay window, as pure logic: the event's own `timestamp` must lie within the window of
 * now, and a repeat delivery of an event already taken inside the window starts nothing.
 *
 * Repeats are remembered in two places, because n8n's workflow static data alone cannot do it:
 * each live webhook request loads static data before the node runs and saves the whole object
 * after, so two deliveries arriving together both load the state from before either, and the
 * second save overwrites the first. An in-process registry (one per n8n process, keyed by
 * workflow, node and mode) is checked and updated synchronously, so within a process the
 * second of two simultaneous deliveries always sees the first. Static data carries the same
 * entries across restarts and to other processes, where it holds for repeats that arrive after
 * the first delivery's save.
 */
import { createHash } from 'crypto';

/** Most events remembered per trigger; beyond that the oldest-remembered are forgotten first. */
export const MAX_REMEMBERED_EVENTS = 10_000;

/** The longest window accepted: 7 days. */
export const MAX_WINDOW_SECONDS = 7 * 24 * 60 * 60;

/** ISO 8601 date and time with an explicit offset (`Z` or ±hh:mm); without one it is ambiguous. */
const ISO_WITH_OFFSET =
	/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

export type TimestampVerdict =
	| { ok: true; atMs: number }
	| { ok: false; reason: 'missing' | 'malformed' | 'tooOld' | 'tooFarAhead' };

/**
 * Whether an event stamped `timestamp` is within `windowSeconds` of `nowMs`, either side (a
 * sender's clock may run a little ahead of ours).
 */
export function checkTimestamp(
	timestamp: unknown,
	nowMs: number,
	windowSeconds: number,
): TimestampVerdict {
	if (timestamp === undefined || timestamp === null || timestamp === '')
		return { ok: false, reason: 'missing' };
	if (typeof timestamp !== 'string' || !ISO_WITH_OFFSET.test(timestamp.trim()))
		return { ok: false, reason: 'malformed' };
	const atMs = Date.parse(timestamp.trim());
	if (!Number.isFinite(atMs)) return { ok: false, reason: 'malformed' };
	const windowMs = windowSeconds * 1000;
	if (atMs < nowMs - windowMs) return { ok: false, reason: 'tooOld' };
	if (atMs > nowMs + windowMs) return { ok: false, reason: 'tooFarAhead' };
	return { ok: true, atMs };
}

/**
 * What makes two deliveries the same event: its name and the id of the call or message it is
 * about (a call completes once); without such an id, the exact bytes. Hashed, so the key is
 * short and carries nothing of the payload.
 */
export function eventKey(
	payload: { event?: unknown; data?: unknown },
	rawBody: Uint8Array | string,
): string {
	const data =
		payload.data && typeof payload.data === 'object'
			? (payload.data as Record<string, unknown>)
			: {};
	const id = [data.call_id, data.message_id, data.id].find(
		(value) => typeof value === 'string' && value !== '',
	) as string | undefined;
	const hash = createHash('sha256');
	if (id !== undefined && typeof payload.event === 'string')
		hash.update(`event\u0000${payload.event}\u0000${id}`);
	else hash.update('body\u0000').update(rawBody);
	return hash.digest('hex').slice(0, 32);
}

/** Remembered events as static data keeps them: key → when the memory may end (epoch ms). */
export type RememberedEvents = Record<string, number>;

/** The entries of a stored value that are still current, oldest expiry first; junk is dropped. */
function currentEntries(stored: unknown, nowMs: number): Array<[string, number]> {
	if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return [];
	return Object.entries(stored as Record<string, unknown>)
		.filter((entry): entry is [string, number] => typeof entry[1] === 'number' && entry[1] > nowMs)
		.sort((a, b) => a[1] - b[1]);
}

interface Scope {
	entries: Map<string, number>;
	/** The latest expiry in `entries`: once past, the whole scope can go. */
	latest: number;
}

export interface ClaimInput {
	/** Which trigger: workflow, node and mode (test or production). */
	scope: string;
	key: string;
	/** Until when this event must be remembered (its timestamp plus the window). */
	expiresAtMs: number;
	nowMs: number;
	/** What static data holds (loaded at the start of this request). */
	stored: unknown;
}

export interface ClaimResult {
	/** The event was already taken: acknowledge it and start nothing. */
	duplicate: boolean;
	/** What static data should now hold: every event still remembered, this one included. */
	remembered: RememberedEvents;
}

/** Recently taken events of every trigger in this process. */
export class ReplayRegistry {
	private readonly scopes = new Map<string, Scope>();

	constructor(private readonly maxEntries = MAX_REMEMBERED_EVENTS) {}

	/**
	 * Takes the event if neither this process nor static data has seen it. Synchronous on
	 * purpose: two deliveries in one process cannot interleave between the check and the mark.
	 */
	claim({ scope: name, key, expiresAtMs, nowMs, stored }: ClaimInput): ClaimResult {
		this.forgetExpiredScopes(nowMs);
		const scope = this.scopes.get(name) ?? { entries: new Map<string, number>(), latest: 0 };
		this.scopes.set(name, scope);
		for (const [entryKey, expiry] of scope.entries)
			if (expiry <= nowMs) scope.entries.delete(entryKey);
		// What another process (or an earlier life of this one) saved counts too.
		for (const [entryKey, expiry] of currentEntries(stored, nowMs)) {
			if (!scope.entries.has(entryKey)) scope.entries.set(entryKey, expiry);
		}
		const duplicate = scope.entries.has(key);
		if (!duplicate) scope.entries.set(key, expiresAtMs);
		while (scope.entries.size > this.maxEntries) {
			const oldest = scope.entries.keys().next().value as string;
			scope.entries.delete(oldest);
		}
		for (const expiry of scope.entries.values()) if (expiry > scope.latest) scope.latest = expiry;
		return { duplicate, remembered: Object.fromEntries(scope.entries) };
	}

	/** How many events are remembered for a scope (for tests). */
	size(scope: string): number {
		return this.scopes.get(scope)?.entries.size ?? 0;
	}

	/** Forgets everything (for tests). */
	clear(): void {
		this.scopes.clear();
	}

	private forgetExpiredScopes(nowMs: number): void {
		for (const [name, scope] of this.scopes) if (scope.latest <= nowMs) this.scopes.delete(name);
	}
}

/** The registry of this n8n process. */
export const recentEvents = new ReplayRegistry();
