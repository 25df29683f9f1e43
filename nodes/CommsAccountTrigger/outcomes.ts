/**
 * Outcomes read back through the history endpoints: a call reaching a final state (GET
 * /v1/calls) and a sent SMS becoming `delivered` (GET /v1/sms?direction=sent). Pure: no n8n,
 * no clock, no I/O; the node reads the records and stores the state this returns.
 *
 * Neither outcome has a time of its own to page by: a record keeps the time it was created
 * (a call's `createdAt`, an SMS's `sentAt`) while its status changes. So the tracker:
 * - remembers each record it has seen in progress (`pending`, by id, with its time and last
 *   status) until it is final, and asks with `since` no later than the oldest pending one;
 * - emits a record once, the first time it is seen final (or, for a call, still in progress
 *   `maxPendingMs` after it was created: then with its last status and `stillInProgress`);
 * - remembers what it emitted or dropped (`done`) for as long as a poll can return it again,
 *   so nothing is emitted twice;
 * - counts nothing created before its baseline, and never moves past the caller's clock.
 *
 * Calls come most recent first, at most 200 a request, with no paging cursor: when 200 or
 * more calls were created since the oldest pending one, the older ones cannot be read. Those
 * that ended are missed (the node warns); those still pending are emitted with their last
 * status and `stillInProgress` a day after they were created.
 */
import { isSmsRecord, type SmsRecord } from '../shared/smsPaging';

export type OutcomeKind = 'callEnded' | 'smsDelivered';

export interface OutcomeState {
	v: 1;
	kind: OutcomeKind;
	/** Epoch ms: records created before it are history. */
	floor: number;
	/** Epoch ms: the newest record time seen (never past the clock). */
	cursor: number;
	/** `[id, time ms, last status]` of records seen in progress. */
	pending: Array<[string, number, string]>;
	/** `[id, time ms]` of records emitted or dropped, while a poll may return them again. */
	done: Array<[string, number]>;
	/** What the state is for (event and filters). */
	fp?: string;
}

export interface OutcomeSettings {
	/** How far before the cursor each poll looks again, for records stored late. */
	lookBackMs: number;
	/** How long a call may stay in progress before it is emitted as it is. */
	maxPendingMs: number;
	/** The most ids remembered in `pending` and in `done` each. */
	maxRemembered: number;
}

export const DEFAULT_OUTCOME_SETTINGS: OutcomeSettings = {
	lookBackMs: 5 * 60_000,
	maxPendingMs: 24 * 60 * 60_000,
	maxRemembered: 5000,
};

/**
 * Call statuses that are not final. The API names only `completed` (manual calls also
 * `ringing-agent`, `no-answer-agent`, `busy`); these are the in-progress states of a call as
 * telephony providers name them. Anything else counts as final.
 */
export const CALL_IN_PROGRESS = new Set([
	'initiated',
	'queued',
	'ringing',
	'ringing-agent',
	'ringing-customer',
	'in-progress',
	'answered',
	'connecting',
	'bridged',
]);

/** SMS statuses on the way to `delivered`; any other status (failed, undelivered...) ends the wait. */
const SMS_IN_PROGRESS = new Set(['queued', 'accepted', 'sending', 'sent']);

export function outcomeBaseline(kind: OutcomeKind, startMs: number, fp?: string): OutcomeState {
	return {
		v: 1,
		kind,
		floor: startMs,
		cursor: startMs,
		pending: [],
		done: [],
		...(fp === undefined ? {} : { fp }),
	};
}

const finite = (value: unknown): value is number =>
	typeof value === 'number' && Number.isFinite(value);

/** A stored state of this kind, checked; undefined when there is none or it is not one of ours. */
export function parseOutcomeState(value: unknown, kind: OutcomeKind): OutcomeState | undefined {
	if (!value || typeof value !== 'object') return undefined;
	const state = value as Partial<OutcomeState>;
	if (
		state.v !== 1 ||
		state.kind !== kind ||
		!finite(state.floor) ||
		!finite(state.cursor) ||
		!Array.isArray(state.pending) ||
		!Array.isArray(state.done)
	)
		return undefined;
	const pendingOk = state.pending.every(
		(e) => Array.isArray(e) && typeof e[0] === 'string' && finite(e[1]) && typeof e[2] === 'string',
	);
	const doneOk = state.done.every(
		(e) => Array.isArray(e) && typeof e[0] === 'string' && finite(e[1]),
	);
	if (!pendingOk || !doneOk) return undefined;
	return {
		v: 1,
		kind,
		floor: state.floor,
		cursor: state.cursor,
		pending: state.pending,
		done: state.done,
		...(typeof state.fp === 'string' ? { fp: state.fp } : {}),
	};
}

/** The `since` of the next request: the oldest pending record, or the window before the cursor. */
export function outcomeSince(state: OutcomeState, settings: OutcomeSettings): number {
	let since = state.cursor - settings.lookBackMs;
	for (const [, at] of state.pending) since = Math.min(since, at);
	return Math.max(since, state.floor);
}

/** A record's id, time (ms, NaN if none) and status. */
export function describeRecord(
	kind: OutcomeKind,
	record: SmsRecord,
): { id: string | undefined; at: number; status: string } {
	const rawId =
		kind === 'callEnded' ? (record.id ?? record.callSid) : (record.id ?? record.messageId);
	const id = typeof rawId === 'string' || typeof rawId === 'number' ? String(rawId) : undefined;
	const time =
		kind === 'callEnded'
			? (record.createdAt ?? record.startedAt)
			: (record.sentAt ?? record.createdAt);
	const at = typeof time === 'string' ? Date.parse(time) : NaN;
	const status = typeof record.status === 'string' ? record.status : '';
	return { id, at, status };
}

export interface OutcomeResult {
	state: OutcomeState;
	/** What to emit, oldest first, each once. */
	emit: SmsRecord[];
	/** Entries that were not records, skipped. */
	skipped: number;
}

/** One poll: the records the API returned for `outcomeSince(start)`, and the caller's clock. */
export function trackOutcomes(
	start: OutcomeState,
	records: unknown[],
	nowMs: number,
	settings: OutcomeSettings = DEFAULT_OUTCOME_SETTINGS,
): OutcomeResult {
	const kind = start.kind;
	const inProgress = kind === 'callEnded' ? CALL_IN_PROGRESS : SMS_IN_PROGRESS;
	const lowerMs = outcomeSince(start, settings);
	const done = new Map(start.done);
	const pending = new Map(start.pending.map(([id, at, status]) => [id, { at, status }]));
	const emit: Array<{ record: SmsRecord; at: number }> = [];
	let cursor = Math.min(start.cursor, nowMs);
	let skipped = 0;
	const seenNow = new Map<string, SmsRecord>();

	for (const entry of records) {
		if (!isSmsRecord(entry)) {
			skipped++;
			continue;
		}
		const { id, at, status } = describeRecord(kind, entry);
		if (id === undefined || Number.isNaN(at) || done.has(id) || seenNow.has(id)) continue;
		seenNow.set(id, entry);
		// Before the baseline, or older than what this poll asked for and not tracked: not ours.
		if (at < start.floor || (at < lowerMs && !pending.has(id))) continue;
		cursor = Math.max(cursor, Math.min(at, nowMs));
		const time = Math.min(at, nowMs);
		if (inProgress.has(status)) {
			pending.set(id, { at: time, status });
			continue;
		}
		pending.delete(id);
		done.set(id, time);
		if (kind === 'callEnded' || status === 'delivered') emit.push({ record: entry, at });
	}

	// A call in progress for longer than a day: emitted as it was last seen, flagged.
	const overdue = nowMs - settings.maxPendingMs;
	for (const [id, { at, status }] of pending) {
		if (at >= overdue) continue;
		pending.delete(id);
		done.set(id, at);
		if (kind === 'callEnded')
			emit.push({
				record: { ...(seenNow.get(id) ?? { id, status }), stillInProgress: true },
				at,
			});
	}

	emit.sort((a, b) => a.at - b.at);
	const next: OutcomeState = {
		v: 1,
		kind,
		floor: start.floor,
		cursor,
		pending: [...pending]
			.map(([id, { at, status }]): [string, number, string] => [id, at, status])
			.sort((a, b) => a[1] - b[1])
			.slice(-settings.maxRemembered),
		done: [],
		...(start.fp === undefined ? {} : { fp: start.fp }),
	};
	// Remember what was emitted or dropped while a later poll may return it again; no later
	// poll reads before that (a wider window would otherwise bring back what was forgotten).
	const keepFrom = outcomeSince({ ...next, done: [] }, settings);
	next.floor = Math.max(next.floor, Math.min(keepFrom, nowMs + 1));
	let kept = [...done].filter(([, at]) => at >= keepFrom);
	if (kept.length > settings.maxRemembered) {
		kept.sort((a, b) => b[1] - a[1]);
		const boundary = kept[settings.maxRemembered][1];
		kept = kept.filter(([, at]) => at > boundary);
		// Past the ids dropped for room, never past now: no poll reads before it again.
		next.floor = Math.min(Math.max(next.floor, boundary + 1), nowMs + 1);
	}
	next.done = kept.sort((a, b) => a[1] - b[1]);
	return { state: next, emit: emit.map((e) => e.record), skipped };
}
