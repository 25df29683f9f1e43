/**
 * The replay window, as pure logic: the event's own `timestamp` must be no older than the window
 * (and not far ahead of now), and a repeat delivery of an event already taken inside the window
 * starts nothing.
 *
 * Repeats are remembered in two places, because n8n's workflow static data alone cannot do it:
 * each live webhook request loads static data before the node runs and saves the whole object
 * after (only if it was changed through the object n8n handed out), so two deliveries arriving
 * together both load the state from before either, and the second save overwrites the first. An
 * in-process registry (one per n8n process, keyed by workflow, node and mode) is checked and
 * updated synchronously, so within a process the second of two simultaneous deliveries always
 * sees the first, and every save carries everything the process remembers (a save that lost the
 * race is repaired by the next). Static data carries the same entries across restarts and to
 * other processes, where it holds for repeats that arrive after the first delivery's save.
 *
 * The store is compact: each event is 12 characters (72 bits of a SHA-256), kept in buckets by
 * the time its memory may end. A bucket is one string of keys, so pruning drops whole buckets
 * whose time has passed, taking an event appends 12 characters to one bucket, and nothing is
 * sorted or rebuilt per event. When the store holds `capacity` events still inside the window, a
 * new event is not taken (and not silently accepted either): the caller asks the sender to retry
 * once the oldest bucket has expired.
 */
import { createHash } from 'crypto';

/** Most events remembered per trigger (12 characters each: 240 KB of static data when full). */
export const MAX_REMEMBERED_EVENTS = 20_000;

/** The default window: one hour (see docs/nodes.md, Comms Unified Trigger, for why). */
export const DEFAULT_WINDOW_SECONDS = 3600;

/** The longest window accepted: 7 days. */
export const MAX_WINDOW_SECONDS = 7 * 24 * 60 * 60;

/** How far ahead of our clock a sender's timestamp may be (clock skew), at most the window. */
export const MAX_AHEAD_SECONDS = 300;

/** Characters per remembered event: base64url of 9 bytes of a SHA-256. */
export const KEY_LENGTH = 12;

/** Buckets per window: an event is remembered at most a sixteenth of the window too long. */
const BUCKETS_PER_WINDOW = 16;

/** ISO 8601 date and time with an explicit offset (`Z` or ±hh:mm); without one it is ambiguous. */
const ISO_WITH_OFFSET =
	/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

export type TimestampVerdict =
	| { ok: true; atMs: number }
	| { ok: false; reason: 'missing' | 'malformed' | 'tooOld' | 'tooFarAhead' };

/**
 * Whether an event stamped `timestamp` is no older than `windowSeconds` before `nowMs`, and no
 * further ahead of it than the sender's clock may plausibly run (`MAX_AHEAD_SECONDS`, at most
 * the window).
 */
export function checkTimestamp(
	timestamp: unknown,
	nowMs: number,
	windowSeconds: number,
): TimestampVerdict {
	if (timestamp === undefined || timestamp === null || timestamp === '')
		return { ok: false, reason: 'missing' };
	if (typeof timestamp !== 'string' || timestamp.length > 64)
		return { ok: false, reason: 'malformed' };
	const text = timestamp.trim();
	if (!ISO_WITH_OFFSET.test(text)) return { ok: false, reason: 'malformed' };
	const atMs = Date.parse(text);
	if (!Number.isFinite(atMs)) return { ok: false, reason: 'malformed' };
	if (atMs < nowMs - windowSeconds * 1000) return { ok: false, reason: 'tooOld' };
	if (atMs > nowMs + Math.min(windowSeconds, MAX_AHEAD_SECONDS) * 1000)
		return { ok: false, reason: 'tooFarAhead' };
	return { ok: true, atMs };
}

/** The call or message an event is about, if it names one: `data.call_id`, `data.message_id` or `data.id`. */
function subjectOf(payload: { data?: unknown }): string | undefined {
	const data =
		payload.data && typeof payload.data === 'object'
			? (payload.data as Record<string, unknown>)
			: {};
	return [data.call_id, data.message_id, data.id].find(
		(value) => typeof value === 'string' && value !== '',
	) as string | undefined;
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
	const id = subjectOf(payload);
	const hash = createHash('sha256');
	if (id !== undefined && typeof payload.event === 'string')
		hash.update(`event\u0000${payload.event}\u0000${id}`);
	else hash.update('body\u0000').update(rawBody);
	return hash.digest().subarray(0, 9).toString('base64url');
}

/**
 * The same identity as `eventKey`, readable, for the item's `eventId`: the event's name and the
 * id of the call or message it is about (`call.completed:call_123`); without such an id,
 * `sha256:` and the hash of the exact bytes. Every copy of one event has the same `eventId`, so a
 * workflow can drop a copy the trigger could not catch (several webhook processes at once).
 */
export function eventIdOf(
	payload: { event?: unknown; data?: unknown },
	rawBody: Uint8Array | string,
): string {
	const id = subjectOf(payload);
	if (id !== undefined && typeof payload.event === 'string') return `${payload.event}:${id}`;
	return `sha256:${createHash('sha256').update(rawBody).digest('hex')}`;
}

/**
 * Remembered events as static data keeps them: `v` the format, `b` the buckets, each the time
 * its memory ends (epoch seconds, as text) to the keys it holds, end to end.
 */
export interface RememberedEvents {
	v: 2;
	b: Record<string, string>;
}

/** The bucket an event remembered until `expiresAtMs` goes in: its end, in epoch seconds. */
export function bucketEnd(expiresAtMs: number, windowSeconds: number): number {
	const span = Math.max(1, Math.ceil(windowSeconds / BUCKETS_PER_WINDOW));
	return Math.ceil(expiresAtMs / 1000 / span) * span;
}

/** Whether `keys` (a bucket) holds `key` at a key boundary. */
function holds(keys: string, key: string): boolean {
	for (let at = keys.indexOf(key); at !== -1; at = keys.indexOf(key, at + 1))
		if (at % KEY_LENGTH === 0) return true;
	return false;
}

const HEX_KEY = /^[0-9a-f]{18,}$/;
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The key of the format before this one (hex), as this one writes it: its first 9 bytes, base64url. */
function hexToKey(hex: string): string {
	let key = '';
	for (let at = 0; at < 18; at += 6) {
		const group = parseInt(hex.slice(at, at + 6), 16);
		for (let shift = 18; shift >= 0; shift -= 6) key += BASE64URL[(group >> shift) & 63];
	}
	return key;
}
const BUCKET_KEYS = new RegExp(`^(?:[A-Za-z0-9_-]{${KEY_LENGTH}})*$`);

/**
 * The buckets of a stored value that are still current; junk is dropped. The format before this
 * one (`{ [32 hex digits]: expiry ms }`) is read too: its keys are the same SHA-256, so they
 * carry over.
 */
export function storedBuckets(
	stored: unknown,
	nowMs: number,
	windowSeconds: number,
): Map<number, string> {
	const buckets = new Map<number, string>();
	if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return buckets;
	const record = stored as Record<string, unknown>;
	if (record.v === 2 && record.b && typeof record.b === 'object') {
		for (const [end, keys] of Object.entries(record.b as Record<string, unknown>)) {
			const endSeconds = Number(end);
			if (!Number.isSafeInteger(endSeconds) || endSeconds * 1000 <= nowMs) continue;
			if (typeof keys !== 'string' || !BUCKET_KEYS.test(keys)) continue;
			buckets.set(endSeconds, keys);
		}
		return buckets;
	}
	for (const [hex, expiry] of Object.entries(record)) {
		if (typeof expiry !== 'number' || expiry <= nowMs || !HEX_KEY.test(hex)) continue;
		const key = hexToKey(hex);
		const end = bucketEnd(expiry, windowSeconds);
		const keys = buckets.get(end) ?? '';
		if (!holds(keys, key)) buckets.set(end, keys + key);
	}
	return buckets;
}

export interface ClaimInput {
	/** Which trigger: workflow, node and mode (test or production). */
	scope: string;
	key: string;
	/** Until when this event must be remembered (its timestamp plus the window). */
	expiresAtMs: number;
	nowMs: number;
	windowSeconds: number;
	/** What static data holds (loaded at the start of this request). */
	stored: unknown;
}

export type ClaimResult =
	/** Taken: start the workflow, and save `remembered` in static data. */
	| { kind: 'taken'; remembered: RememberedEvents }
	/** Already taken inside the window: acknowledge it and start nothing. */
	| { kind: 'duplicate' }
	/**
	 * The store is full of events still inside the window: neither take nor drop this one, ask the
	 * sender to retry after `retryAfterSeconds` (when the oldest bucket ends).
	 */
	| { kind: 'full'; held: number; retryAfterSeconds: number };

/** Recently taken events of every trigger in this process. */
export class ReplayRegistry {
	private readonly scopes = new Map<string, Map<number, string>>();

	constructor(private readonly capacity = MAX_REMEMBERED_EVENTS) {}

	/**
	 * Takes the event if neither this process nor static data has seen it. Synchronous on
	 * purpose: two deliveries in one process cannot interleave between the check and the mark.
	 */
	claim({ scope: name, key, expiresAtMs, nowMs, windowSeconds, stored }: ClaimInput): ClaimResult {
		this.forgetExpiredScopes(nowMs);
		const scope = this.scopes.get(name) ?? new Map<number, string>();
		this.scopes.set(name, scope);
		for (const end of scope.keys()) if (end * 1000 <= nowMs) scope.delete(end);
		// What another process (or an earlier life of this one) saved counts too. In the usual
		// case static data is what this process saved last, so each bucket is compared, not read.
		for (const [end, keys] of storedBuckets(stored, nowMs, windowSeconds)) {
			const mine = scope.get(end);
			if (mine === undefined || (keys.length > mine.length && keys.startsWith(mine)))
				scope.set(end, keys);
			else if (mine !== keys && !mine.startsWith(keys)) {
				// Two writers appended to one bucket: only what follows their common part is new.
				let common = 0;
				while (common < mine.length && mine[common] === keys[common]) common++;
				let merged = mine;
				for (let at = common - (common % KEY_LENGTH); at < keys.length; at += KEY_LENGTH) {
					const other = keys.slice(at, at + KEY_LENGTH);
					if (!holds(merged, other)) merged += other;
				}
				scope.set(end, merged);
			}
		}
		let held = 0;
		for (const keys of scope.values()) {
			if (holds(keys, key)) return { kind: 'duplicate' };
			held += keys.length / KEY_LENGTH;
		}
		if (held >= this.capacity) {
			const oldest = Math.min(...scope.keys());
			return {
				kind: 'full',
				held,
				retryAfterSeconds: Math.max(1, Math.ceil(oldest - nowMs / 1000)),
			};
		}
		const end = bucketEnd(expiresAtMs, windowSeconds);
		scope.set(end, (scope.get(end) ?? '') + key);
		return { kind: 'taken', remembered: { v: 2, b: Object.fromEntries(scope) } };
	}

	/** How many events are remembered for a scope (for tests). */
	size(scope: string): number {
		let held = 0;
		for (const keys of this.scopes.get(scope)?.values() ?? []) held += keys.length / KEY_LENGTH;
		return held;
	}

	/** Forgets everything (for tests). */
	clear(): void {
		this.scopes.clear();
	}

	private forgetExpiredScopes(nowMs: number): void {
		for (const [name, scope] of this.scopes) {
			let latest = 0;
			for (const end of scope.keys()) latest = Math.max(latest, end);
			if (latest * 1000 <= nowMs) this.scopes.delete(name);
		}
	}
}

/** The registry of this n8n process. */
export const recentEvents = new ReplayRegistry();
