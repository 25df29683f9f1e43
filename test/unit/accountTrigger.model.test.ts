/**
 * All three events of the Comms Account Trigger (SMS Received, SMS Delivered, Call Ended)
 * against a model of the Account API's history endpoints, over random server histories:
 *
 * - both orders (oldest first, newest first), page sizes from 1 to 200, records sharing one
 *   time, records stored late (inside the Late Arrival Window and beyond it), a server that
 *   ignores `since`, entries that are not records, records without a usable time (missing or
 *   garbled) that the server returns on every page;
 * - sent SMS whose receipt comes at once, late, after the day they are watched, never, or as a
 *   failure (`failed`, `undelivered`, `rejected`); calls that end at once, late, after a day,
 *   never, or at a status nobody listed (to the trigger, still in progress); statuses in progress
 *   in any order, statuses nobody listed among them (`agent-answered`, `dialing`, `pending`,
 *   `submitted`), records with no readable status, calls without a number to look them up by;
 * - the API's clock off n8n's, either way, by up to 20 s (and now and then by minutes behind or
 *   up to 55 s ahead), the clocks stepping apart by up to 10 s either way between polls, and the
 *   history stamped up to 12 s ahead by a clock that stepped back at publishing (no further than
 *   the Late Arrival Window): the trigger starts as it does at activation (startingPoint.ts),
 *   reading the history then, and knows the API's clock only from the records it reads (for SMS
 *   Delivered, sent SMS this n8n made), as the transport learns it;
 * - polls that fail half-way (the nth request throws: nothing of the poll counts), polls that
 *   overlap (two from one stored state: one commits, the other is fenced, as n8n's durable
 *   scheduler does; the state object they share must come out unchanged), restarts (the state
 *   lives only as the JSON n8n stores), and page and look-up budgets of a few a poll.
 *
 * The model is the API as the sandbox implements it (docs/sandbox.md): `since` an inclusive
 * lower bound on the record's time, the first `limit` records in the server's order (equal
 * times in arrival order, reversed for newest first), records without a usable time first.
 *
 * The properties, for every event:
 * - **exactly once**: no record is emitted twice; nothing is emitted that does not qualify
 *   (history from before publishing, unless Include Last Minutes reaches it; an SMS never
 *   delivered; a call flagged `stillInProgress` that had ended; a call at a status not known to
 *   be final);
 * - **where it starts**: never after the moment of publishing on the API's clock, whatever
 *   n8n's clock says (nor past the newest record of a history stamped ahead); within the skew
 *   any API may have, the same moment before it (less Include Last Minutes), unless the read at
 *   activation could not see everything, and then only where it could not;
 * - **complete**: every qualifying record is emitted unless a documented limit excuses it:
 *   it was out of reach of every request at a poll after it arrived (newest first behind a
 *   page of newer ones, more than a page at its time, a server ignoring `since`) before the
 *   trigger tracked it in progress (a record it tracks is reached by a look-up by id, whatever
 *   the list returns), or it was stored later than the Late Arrival Window; a receipt after the
 *   day an SMS is watched need not be emitted;
 * - **no silent loss**: a record lost to the first of those limits was said by a poll
 *   (`newMayBeHidden`), when it was newer than the trigger's position;
 * - **bounded cost**: every poll makes at most `maxPages` list requests (+1 order probe for SMS
 *   Received), `maxLookups` look-ups and one page to look for calls without a number;
 * - **bounded lag**: each record is emitted within a bounded number of polls after it
 *   qualifies (after a look-up is due, for a record that left the window while in progress).
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import {
	type CursorSettings,
	DEFAULT_SETTINGS,
	parseState,
	type SmsOrder,
} from '../../nodes/CommsAccount/trigger/cursorState';
import { type PageRequest } from '../../nodes/CommsAccount/trigger/pageReading';
import { runPoll } from '../../nodes/CommsAccount/trigger/historyCursor';
import {
	DEFAULT_IN_PROGRESS_SETTINGS,
	type InProgressSettings,
	inProgressShape,
	type InProgressState,
} from '../../nodes/CommsAccount/trigger/inProgressRecords';
import {
	inProgressBaseline,
	parseInProgressState,
} from '../../nodes/CommsAccount/trigger/inProgressState';
import { pollInProgress } from '../../nodes/CommsAccount/trigger/inProgressPoll';
import { ACTIVATION_MAX_PAGES, activate } from '../../nodes/CommsAccount/trigger/startingPoint';
import type { SmsPage, SmsRecord } from '../../nodes/CommsAccount/api/smsPaging';
import { accountRecordTimes } from '../../nodes/CommsAccount/api/accountApi';
import {
	ApiClocks,
	apiNowEstimate,
	earliestApiTime,
	SAME_MOMENT_MS,
	UNMEASURED_SKEW_MS,
} from '../../nodes/shared/transport/serverClock';
import { replay } from '../support/replay';

type EventKind = 'smsReceived' | 'smsDelivered' | 'callEnded';

const T0 = Date.parse('2026-03-01T09:00:00.000Z');
/** The key and address whose API clock the trigger learns (one per run). */
const SCOPE = 'account:model';
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();

/** How long a pending record is watched, and the longest wait between two looks (the defaults). */
const WATCH_MS = DEFAULT_IN_PROGRESS_SETTINGS.maxPendingMs;
const RECHECK_MS = DEFAULT_IN_PROGRESS_SETTINGS.maxRecheckMs;

/** Statuses known to be final (nodes/CommsAccount/api/statuses.ts): documented, and failure words. */
const FINAL_CALL = ['completed', 'busy', 'no-answer-agent', 'failed', 'no-answer', 'Canceled'];
/** A last status nobody listed: the call has ended, but nothing says so (it is in progress to the trigger). */
const UNLISTED_END = 'wrapped-up';
/** In progress: documented, common, nobody listed (agent-answered, dialing, pending...), unreadable. */
const CALL_PROGRESS = [
	'initiated',
	'ringing-agent',
	'ringing-customer',
	'in-progress',
	'agent-answered',
	'dialing',
	'',
];
const SMS_PROGRESS = ['queued', 'sent', 'sending', 'pending', 'submitted', ''];
const SMS_FAILED = ['failed', 'undelivered', 'rejected'];

interface Rec {
	id: string;
	seq: number;
	/** The record's time (sentAt, createdAt). */
	time: number;
	dated: 'ok' | 'missing' | 'garbled';
	/** When the server first returns it. */
	arrival: number;
	/** Statuses from their time on; the last may be final. */
	timeline: Array<[number, string]>;
	/** When it reaches a status known to be final, and which (undefined: never; a call whose last status nobody listed never does). */
	finalAt?: number;
	finalStatus?: string;
	/** Whether it names what a look-up needs (calls: phoneDocId; SMS always have a messageId). */
	hasRef: boolean;
	/** Sent before the trigger's start. */
	history: boolean;
}

interface ServerBehaviour {
	order: SmsOrder;
	ignoresSince: boolean;
	junk: boolean;
}

class ModelServer {
	readonly recs: Rec[] = [];
	private readonly byId = new Map<string, Rec>();
	now = T0;

	constructor(
		readonly event: EventKind,
		readonly behaviour: ServerBehaviour,
	) {}

	add(rec: Rec): void {
		this.recs.push(rec);
		this.byId.set(rec.id, rec);
	}

	statusAt(rec: Rec, now: number): string {
		let status = rec.timeline[0][1];
		for (const [at, next] of rec.timeline) if (at <= now) status = next;
		return status;
	}

	view(rec: Rec): SmsRecord {
		const time =
			rec.dated === 'ok' ? iso(rec.time) : rec.dated === 'garbled' ? 'last Tuesday' : undefined;
		const status = this.statusAt(rec, this.now);
		if (this.event === 'callEnded')
			return {
				id: rec.id,
				callId: rec.id,
				createdAt: time,
				status: status === '' ? undefined : status,
				...(rec.hasRef ? { phoneDocId: 'pdoc_model' } : {}),
			};
		return {
			id: rec.id,
			messageId: `SM${rec.id}`,
			direction: this.event === 'smsReceived' ? 'received' : 'sent',
			sentAt: time,
			status: status === '' ? 7 : status,
		};
	}

	private visible(): Rec[] {
		return this.recs.filter((r) => r.arrival <= this.now);
	}

	/** Records without a usable time first (in arrival order), then the dated ones in the server's order. */
	private sorted(sinceMs: number | undefined): Rec[] {
		const d = this.behaviour.order === 'oldestFirst' ? 1 : -1;
		const visible = this.visible();
		const undated = visible.filter((r) => r.dated !== 'ok');
		const dated = visible
			.filter((r) => r.dated === 'ok' && (sinceMs === undefined || r.time >= sinceMs))
			.sort((a, b) => d * (a.time - b.time || a.seq - b.seq));
		return [...undated, ...dated];
	}

	list({ since, limit }: PageRequest): SmsPage {
		const sinceMs = this.behaviour.ignoresSince ? undefined : Date.parse(since);
		const page: unknown[] = this.sorted(sinceMs)
			.slice(0, limit)
			.map((r) => this.view(r));
		if (this.behaviour.junk) page.push(null, 7, 'x', []);
		return { messages: page as SmsRecord[] };
	}

	lookup(ref: string[]): SmsRecord | undefined {
		const id = this.event === 'callEnded' ? ref[0] : ref[0].replace(/^SM/, '');
		const rec = this.byId.get(id);
		return rec && rec.arrival <= this.now ? this.view(rec) : undefined;
	}

	/**
	 * The records no request could return now, even with the most favourable `since` (the
	 * record's own time): behind a page of others in the server's order.
	 */
	outOfReach(limit: number): Set<string> {
		const all = this.sorted(undefined);
		const undated = all.filter((r) => r.dated !== 'ok').length;
		const out = new Set<string>();
		all.forEach((rec, index) => {
			let ahead = index;
			if (rec.dated === 'ok' && !this.behaviour.ignoresSince) {
				// Only what sorts before it among the records at or after its time.
				let before = 0;
				for (let i = undated; i < index; i++) {
					const other = all[i];
					if (other.time >= rec.time) before++;
				}
				ahead = undated + before;
			}
			if (ahead >= limit) out.add(rec.id);
		});
		return out;
	}
}

type Step =
	| { kind: 'arrive'; count: number; lateBy: number; spread: number; undated: number }
	| { kind: 'tick'; seconds: number }
	/** The clocks step apart (an NTP correction, a restart): the API's is `byMs` further ahead. */
	| { kind: 'clock'; byMs: number }
	| { kind: 'poll'; failAt?: number; overlap?: boolean };

interface Scenario {
	event: EventKind;
	behaviour: ServerBehaviour;
	pageSize: number;
	maxPages: number;
	maxLookups: number;
	lookBackSeconds: number;
	includeLastSeconds: number;
	/** The API's clock ahead of n8n's (negative: behind), ms. */
	skewMs: number;
	history: number;
	/**
	 * How far ahead of it the API's clock stamped the history, stepping back at publishing (an NTP
	 * correction, a restart): the records after it are stamped before the newest of the history.
	 */
	historyAheadMs?: number;
	/** Per record: how its status goes (a seed into the outcome tables below). */
	fates: number[];
	steps: Step[];
}

/** What a sent SMS or a call does after it is sent, picked by its fate. */
const OUTCOME_DELAYS = [0, 5 * SECOND, 40 * SECOND, 3 * MINUTE, 20 * MINUTE, 3 * HOUR, 30 * HOUR];

function timelineOf(
	event: EventKind,
	time: number,
	fate: number,
): Pick<Rec, 'timeline' | 'finalAt' | 'finalStatus'> {
	if (event === 'smsReceived') return { timeline: [[time, 'received']] };
	const progress = event === 'callEnded' ? CALL_PROGRESS : SMS_PROGRESS;
	const timeline: Array<[number, string]> = [[time, progress[fate % progress.length]]];
	const delayPick = (fate >> 6) % (OUTCOME_DELAYS.length + 1);
	const finalAt =
		delayPick === OUTCOME_DELAYS.length ? undefined : time + OUTCOME_DELAYS[delayPick];
	// Another status in progress (in any order) before the end, if the end is not at once.
	if (finalAt === undefined || finalAt > time + 2 * SECOND)
		timeline.push([time + 2 * SECOND, progress[(fate >> 3) % progress.length]]);
	if (finalAt === undefined) return { timeline }; // never final
	const pick = (fate >> 9) % 8;
	if (event === 'callEnded' && pick === 7) {
		// It ends at a status nobody listed: to the trigger, in progress until the end of its day.
		timeline.push([finalAt, UNLISTED_END]);
		return { timeline };
	}
	const finalStatus =
		event === 'callEnded'
			? FINAL_CALL[pick % FINAL_CALL.length]
			: pick % 4 === 0
				? SMS_FAILED[(fate >> 12) % SMS_FAILED.length]
				: 'delivered';
	timeline.push([finalAt, finalStatus]);
	return { timeline, finalAt, finalStatus };
}

interface PollRecord {
	index: number;
	start: number;
	startCursor: number;
	/** The trigger's now at this poll (its position never passes it). */
	now: number;
	/** Whether it read on from where the poll before stopped (it did not read the window). */
	resumed: boolean;
	emitted: SmsRecord[];
	newMayBeHidden: boolean;
	steppedPast?: number[];
	/** List requests, and look-ups by id, this poll made. */
	listRequests: number;
	lookups: number;
}

interface RunResult {
	server: ModelServer;
	polls: PollRecord[];
	/** The first committed poll (index) after each record arrived. */
	firstPollAfter: Map<string, number>;
	/**
	 * The first committed poll at which no request could have returned the record (before it was
	 * emitted), unless the trigger tracked it in progress by then: a record it tracks is in reach
	 * of a look-up by id, whatever the list returns.
	 */
	outOfReachAt: Map<string, number>;
	emittedAt: Map<string, number[]>;
	flagged: Set<string>;
	/** The API's time when the trigger was published (its activation poll). */
	publishedMs: number;
	/** The floor of the state the activation left: records arriving later and dated before it may be missed. */
	activationFloor: number;
	settings: { cursor: CursorSettings; inProgress: InProgressSettings };
}

/** One poll of the event through the trigger's own pure modules, from the stored JSON. */
async function pollOnce(
	event: EventKind,
	stored: string,
	io: {
		fetchPage: (r: PageRequest) => Promise<SmsPage>;
		lookup: (ref: string[]) => Promise<SmsRecord | undefined>;
	},
	now: () => number,
	settings: RunResult['settings'],
	shared?: unknown,
) {
	if (event === 'smsReceived') {
		const state = (shared as ReturnType<typeof parseState>) ?? parseState(JSON.parse(stored));
		if (!state) throw new Error('the stored state did not parse');
		const polled = await runPoll(state, io.fetchPage, {
			settings: settings.cursor,
			now,
			probeOrder: async () => undefined,
		});
		return {
			state: polled.state,
			emit: polled.emit,
			newMayBeHidden: polled.newMayBeHidden,
			steppedPast: polled.steppedPast,
			cursor: state.cursor,
			resumed: state.resume !== undefined,
		};
	}
	const state =
		(shared as ReturnType<typeof parseInProgressState>) ??
		parseInProgressState(JSON.parse(stored), event);
	if (!state) throw new Error('the stored state did not parse');
	const result = await pollInProgress(state, io, { settings: settings.inProgress, now });
	return {
		state: result.state,
		emit: result.emit,
		newMayBeHidden: result.newMayBeHidden,
		steppedPast: result.steppedPast,
		cursor: state.window.cursor,
		resumed: state.window.resume !== undefined,
	};
}

async function run(scenario: Scenario): Promise<RunResult> {
	const { event } = scenario;
	const server = new ModelServer(event, scenario.behaviour);
	const lookBackMs = scenario.lookBackSeconds * SECOND;
	const cursor: CursorSettings = {
		...DEFAULT_SETTINGS,
		lookBackMs,
		pageSize: scenario.pageSize,
		maxSeen: 1_000_000,
		maxPages: scenario.maxPages,
	};
	const settings = {
		cursor,
		inProgress: {
			...DEFAULT_IN_PROGRESS_SETTINGS,
			reader: cursor,
			maxLookups: scenario.maxLookups,
			maxPending: 1_000_000,
		},
	};
	// n8n's clock, `skewMs` off the API's; what the trigger knows of the API's clock is learnt from
	// the records it reads, as the transport learns it (and SMS Delivered reads SMS this n8n sent).
	let skewMs = scenario.skewMs;
	const wall = () => server.now - skewMs;
	const clocks = new ApiClocks();
	const bounds = () => clocks.bounds(SCOPE, wall());
	const learn = (records: unknown[]) =>
		clocks.readRecords(
			SCOPE,
			accountRecordTimes(
				(event === 'callEnded' ? { calls: records } : { messages: records }) as IDataObject,
			),
		);
	const apiNow = () => apiNowEstimate(wall(), bounds());
	let stored: string | undefined;
	let activationFloor = NaN;
	const publishedMs = server.now;
	let seq = 0;
	let fate = 0;
	const nextFate = () => scenario.fates[fate++ % scenario.fates.length] ?? 0;
	const arrive = (time: number, dated: Rec['dated'], history = false) => {
		const id = `r${String(seq).padStart(4, '0')}`;
		// An SMS sent at once (not stored late) is one this n8n process sent: the node knows when.
		if (event === 'smsDelivered' && time === server.now && !history)
			clocks.madeRecord(SCOPE, [`sms:SM${id}`], wall() - 20, wall() + 20);
		const f = nextFate();
		server.add({
			id,
			seq: seq++,
			time,
			dated,
			arrival: server.now,
			...timelineOf(event, time, f),
			hasRef: event !== 'callEnded' || f % 5 !== 0,
			history,
		});
	};
	// Records from before publishing: some a moment before it, some a second.
	const includeLastMs = scenario.includeLastSeconds * SECOND;
	const aheadMs = scenario.historyAheadMs ?? 0;
	for (let i = 0; i < scenario.history; i++)
		arrive(T0 - includeLastMs - (i % 2 ? SECOND : 100) - i * 7 + aheadMs, 'ok', true);

	const polls: PollRecord[] = [];
	const firstPollAfter = new Map<string, number>();
	const outOfReachAt = new Map<string, number>();
	/** Records the trigger's stored state has tracked in progress (pending) at some point. */
	const tracked = new Set<string>();
	const emittedAt = new Map<string, number[]>();
	const flagged = new Set<string>();

	const poll = async (failAt?: number, overlap = false) => {
		// Which records this poll is the first committed one to see, and which are out of reach now.
		const pending = server.recs.filter((r) => !firstPollAfter.has(r.id) && r.arrival <= server.now);
		// Not for a record the trigger tracks (or has tracked): it is looked up by id, not read on a page.
		const outOfReach = [...server.outOfReach(scenario.pageSize)].filter((id) => !tracked.has(id));
		const counts = { list: 0, lookups: 0, made: 0 };
		const io = (count: boolean) => ({
			fetchPage: async (request: PageRequest) => {
				await Promise.resolve();
				if (count) {
					if (failAt !== undefined && counts.made++ === failAt)
						throw new Error('injected: HTTP 500');
					counts.list++;
				}
				const page = server.list(request);
				learn(page.messages);
				return page;
			},
			lookup: async (ref: string[]) => {
				await Promise.resolve();
				if (count) {
					if (failAt !== undefined && counts.made++ === failAt)
						throw new Error('injected: HTTP 500');
					counts.lookups++;
				}
				const found = server.lookup(ref);
				if (found) learn([found]);
				return found;
			},
		});
		if (stored === undefined) {
			// The activation poll: the starting point, from a read of the history from the moment
			// of publishing on n8n's clock, reaching back by all that is not known of the API's.
			const published = wall();
			const start = await activate(io(true).fetchPage, {
				publishedMs: published,
				since: () => earliestApiTime(published, bounds()),
				now: apiNow,
				includeLastMs,
				settings: settings.cursor,
				shape: event === 'smsReceived' ? undefined : inProgressShape(event),
			});
			activationFloor = start.floor;
			stored = JSON.stringify(event === 'smsReceived' ? start : inProgressBaseline(event, start));
		}
		const before: string = stored;
		try {
			let result: Awaited<ReturnType<typeof pollOnce>>;
			if (overlap) {
				// Two polls from one state object; the second is fenced (its result dropped).
				const shared =
					event === 'smsReceived'
						? parseState(JSON.parse(stored))
						: parseInProgressState(JSON.parse(stored), event);
				const frozen = JSON.stringify(shared);
				const [a] = await Promise.all([
					pollOnce(event, before, io(true), apiNow, settings, shared),
					pollOnce(event, before, io(false), apiNow, settings, shared),
				]);
				expect(JSON.stringify(shared)).toBe(frozen);
				result = a;
			} else result = await pollOnce(event, before, io(true), apiNow, settings);
			stored = JSON.stringify(result.state);
			if (event !== 'smsReceived')
				for (const [id] of (result.state as InProgressState).pending) tracked.add(id);
			const index = polls.length;
			// List requests include the order probe (SMS Received) or the page read for calls that
			// name no number (outcomes): at most one a poll.
			polls.push({
				index,
				start: server.now,
				startCursor: result.cursor,
				now: apiNow(),
				resumed: result.resumed,
				emitted: result.emit,
				newMayBeHidden: result.newMayBeHidden,
				steppedPast: result.steppedPast,
				listRequests: counts.list,
				lookups: counts.lookups,
			});
			for (const rec of pending) firstPollAfter.set(rec.id, index);
			for (const id of outOfReach)
				if (!outOfReachAt.has(id) && !emittedAt.has(id)) outOfReachAt.set(id, index);
			for (const record of result.emit) {
				const id = String(record.id);
				emittedAt.set(id, [...(emittedAt.get(id) ?? []), index]);
				if (record.stillInProgress === true) flagged.add(id);
			}
		} catch (error) {
			// A failed request: nothing of this poll counts, the stored state is untouched.
			expect(String(error)).toMatch(/injected/);
			expect(stored).toBe(before);
		}
	};

	await poll(); // activation
	for (const step of scenario.steps) {
		if (step.kind === 'tick') server.now += step.seconds * SECOND;
		else if (step.kind === 'clock')
			skewMs = Math.max(-600_000, Math.min(55_000, skewMs + step.byMs));
		else if (step.kind === 'poll') await poll(step.failAt, step.overlap);
		else {
			// Late by up to 12 s (past a narrow window: a documented loss), spread over at most that.
			const late = step.lateBy * SECOND;
			const spread = Math.min(step.spread * SECOND, late);
			for (let i = 0; i < step.count; i++)
				arrive(
					server.now - late + (step.count > 1 ? Math.floor((i * spread) / (step.count - 1)) : 0),
					'ok',
				);
			for (let i = 0; i < step.undated; i++) arrive(server.now, i % 2 ? 'garbled' : 'missing');
		}
	}
	// Then the trigger keeps polling, undisturbed: every minute for a while, then every hour for
	// more than the day a pending record is watched.
	for (let i = 0; i < 12; i++) {
		server.now += MINUTE;
		await poll();
	}
	for (let i = 0; i < 27; i++) {
		server.now += HOUR;
		await poll();
	}
	for (let i = 0; i < 12; i++) {
		server.now += MINUTE;
		await poll();
	}
	// Records whose day ended together are looked up a few a poll: poll until none is left.
	const pendingLeft = () =>
		event === 'smsReceived'
			? 0
			: (parseInProgressState(JSON.parse(stored ?? '{}'), event)?.pending.length ?? 0);
	for (let i = 0, most = Math.ceil(pendingLeft() / scenario.maxLookups) + 2; i < most; i++) {
		server.now += MINUTE;
		await poll();
	}
	return {
		server,
		polls,
		firstPollAfter,
		outOfReachAt,
		emittedAt,
		flagged,
		publishedMs,
		activationFloor,
		settings,
	};
}

/** The checks every run must pass. Returns the records a documented limit excused, and which. */
function check(
	scenario: Scenario,
	result: RunResult,
): Array<{ rec: Rec; late: boolean; lost: boolean }> {
	const { server, polls, firstPollAfter, outOfReachAt, emittedAt, flagged } = result;
	const { publishedMs, activationFloor } = result;
	const { event } = scenario;
	const lookBackMs = scenario.lookBackSeconds * SECOND;
	const includeLastMs = scenario.includeLastSeconds * SECOND;

	// Where the trigger starts is never after the moment of publishing on the API's clock, whatever
	// n8n's clock says (nor past the newest record of the history, where the clock stamped it ahead
	// and stepped back). Within what any clock may be off before anything measured it, it reaches
	// back from there by the same moment (and Include Last Minutes), unless the read at activation
	// could not see everything: then it starts past the newest record that read found.
	const newestHistory = Math.max(
		-Infinity,
		...server.recs.filter((r) => r.history && r.dated === 'ok').map((r) => r.time),
	);
	expect(activationFloor).toBeLessThanOrEqual(Math.max(publishedMs, newestHistory + 1));
	if (Math.abs(scenario.skewMs) <= UNMEASURED_SKEW_MS)
		expect(activationFloor).toBeLessThanOrEqual(
			Math.max(publishedMs - includeLastMs - SAME_MOMENT_MS, newestHistory + 1),
		);
	// Where that read saw everything (one page, oldest first, `since` honoured), not even the newest
	// record of the history moves it past that: the clock may have stamped it ahead and stepped back.
	const { order, ignoresSince, junk } = scenario.behaviour;
	if (
		Math.abs(scenario.skewMs) <= UNMEASURED_SKEW_MS &&
		order === 'oldestFirst' &&
		!ignoresSince &&
		!junk &&
		scenario.history < scenario.pageSize
	)
		expect(activationFloor).toBeLessThanOrEqual(publishedMs - includeLastMs - SAME_MOMENT_MS);

	// Bounded cost, every poll (the first also read the history at activation).
	for (const p of polls) {
		expect(p.listRequests).toBeLessThanOrEqual(
			scenario.maxPages + 1 + (p.index === 0 ? 2 * ACTIVATION_MAX_PAGES : 0),
		);
		expect(p.lookups).toBeLessThanOrEqual(event === 'smsReceived' ? 0 : scenario.maxLookups);
	}

	const excused: Array<{ rec: Rec; late: boolean; lost: boolean }> = [];
	for (const rec of server.recs) {
		const times = emittedAt.get(rec.id) ?? [];
		// Never twice.
		expect(times.length).toBeLessThanOrEqual(1);
		const at = times[0];
		// From before publishing: never, unless Include Last Minutes reaches it (then at most once).
		if (rec.history && (includeLastMs === 0 || rec.time < activationFloor))
			expect(at).toBeUndefined();
		const status = (index: number) => server.statusAt(rec, polls[index].start);
		// Nothing that does not qualify.
		if (at !== undefined) {
			if (event === 'smsDelivered') expect(status(at)).toBe('delivered');
			if (event === 'callEnded') {
				if (flagged.has(rec.id)) {
					// Flagged only a day on, and (when it can be looked up) not ended by then.
					expect(polls[at].start).toBeGreaterThanOrEqual(rec.time + WATCH_MS);
					if (rec.hasRef)
						expect(rec.finalAt === undefined || rec.finalAt > polls[at].start).toBe(true);
				} else expect(FINAL_CALL).toContain(status(at));
				if (event === 'callEnded' && !flagged.has(rec.id))
					expect(status(at)).not.toBe(UNLISTED_END);
			}
		}
		// Qualifies: received; delivered within the day it is watched; a call, always.
		const qualifies =
			event === 'smsReceived' ||
			event === 'callEnded' ||
			(rec.finalStatus === 'delivered' && (rec.finalAt as number) <= rec.time + WATCH_MS);
		if (!qualifies || rec.history) continue;
		const first = firstPollAfter.get(rec.id);
		expect(first).toBeDefined();
		// Documented limits: out of reach at a poll before it was tracked, or stored late past the window.
		// (Records from before publishing count from where the trigger started: it read them then.)
		// A record dated past its arrival moved the position no further than the trigger's now, which
		// is ahead of the API's clock where that is behind n8n's (or stepped back) and unmeasured.
		const nowThen = Math.max(
			-Infinity,
			...polls.filter((p) => p.start <= rec.arrival).map((p) => p.now),
		);
		const newestBefore = Math.max(
			-Infinity,
			...server.recs
				.filter(
					(r) => r.seq < rec.seq && r.dated === 'ok' && (!r.history || r.time >= activationFloor),
				)
				.map((r) => Math.min(r.time, Math.max(r.arrival, nowThen))),
		);
		// Stored late: before the window of the newest record already seen when it came.
		// Or dated before where the trigger started (stored late, or its clock off by more than is known).
		const lateBeyondWindow =
			rec.dated === 'ok' && (rec.time < newestBefore - lookBackMs || rec.time < activationFloor);
		const outAt = outOfReachAt.get(rec.id);
		if (lateBeyondWindow || outAt !== undefined) {
			excused.push({ rec, late: lateBeyondWindow, lost: at === undefined });
			if (outAt !== undefined && at === undefined && !lateBeyondWindow) {
				// Said by a poll, when it was newer than the trigger's position (or its group's overflow
				// was said): than its cursor, and than the newest record it had seen (the cursor stays
				// behind the records of an API whose clock is ahead of what n8n knows of it).
				const p = polls[outAt];
				const groupSaid = polls.some((q) => q.steppedPast?.includes(rec.time) && q.newMayBeHidden);
				if (rec.dated === 'ok' && rec.time >= Math.max(p.startCursor, newestBefore) && !groupSaid)
					expect(polls.slice(Math.min(first as number, outAt)).some((q) => q.newMayBeHidden)).toBe(
						true,
					);
			}
			continue;
		}
		// Complete.
		expect(at).toBeDefined();
		// A call that ended within its day, and can be looked up, is emitted as ended.
		if (event === 'callEnded' && rec.hasRef && (rec.finalAt as number) <= rec.time + WATCH_MS)
			expect(flagged.has(rec.id)).toBe(false);
		// Bounded lag: within a few polls of when it qualified, or of when a look at it was due.
		const qualifiedAt =
			event === 'smsReceived'
				? rec.arrival
				: Math.max(rec.arrival, Math.min(rec.finalAt ?? Infinity, rec.time + WATCH_MS));
		// A call no look-up can reach may wait for the end of its watch.
		const lookDue =
			event === 'callEnded' && !rec.hasRef
				? Math.max(qualifiedAt + RECHECK_MS, rec.time + WATCH_MS)
				: qualifiedAt + RECHECK_MS;
		const dueIndex = polls.findIndex((p) => p.start >= lookDue);
		// The records a poll pages through: those that arrived after publishing, and the history the
		// trigger remembered at activation (known, but returned in its window all the same).
		const readable = server.recs.filter((r) => !r.history || r.time >= activationFloor).length;
		const slack =
			2 * Math.ceil(readable / scenario.maxPages) + Math.ceil(readable / scenario.maxLookups) + 3;
		const bound = (dueIndex < 0 ? polls.length : dueIndex) + slack;
		expect(at as number).toBeLessThanOrEqual(bound);
		const firstQualified = polls.findIndex((p) => p.start >= qualifiedAt);
		// Already final (or received) when it arrived: no look-up is needed. (Not a record that is
		// never final: its statuses may all lie before its arrival, and it waits for its last look.)
		const finalOnArrival =
			event === 'smsReceived' || (rec.finalAt !== undefined && rec.finalAt <= rec.arrival);
		if (finalOnArrival && firstQualified >= 0)
			expect(at as number).toBeLessThanOrEqual(
				Math.max(firstQualified, first as number) + 2 * Math.ceil(readable / scenario.maxPages) + 2,
			);
	}
	return excused;
}

const arriveStep = fc.record({
	kind: fc.constant('arrive' as const),
	count: fc.integer({ min: 0, max: 14 }),
	lateBy: fc.oneof(
		{ weight: 3, arbitrary: fc.constant(0) },
		{ weight: 2, arbitrary: fc.integer({ min: 0, max: 12 }) },
	),
	spread: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 12 })),
	undated: fc.oneof(
		{ weight: 6, arbitrary: fc.constant(0) },
		{ weight: 1, arbitrary: fc.integer({ min: 1, max: 2 }) },
	),
});
const clockStep = fc.record({
	kind: fc.constant('clock' as const),
	byMs: fc.integer({ min: -10_000, max: 10_000 }),
});
const tickStep = fc.record({
	kind: fc.constant('tick' as const),
	seconds: fc.integer({ min: 0, max: 400 }),
});
const pollStep = fc.record(
	{
		kind: fc.constant('poll' as const),
		failAt: fc.integer({ min: 0, max: 4 }),
		overlap: fc.boolean(),
	},
	{ requiredKeys: ['kind'] },
);

function scenarios(
	event: EventKind,
	over: {
		order?: SmsOrder;
		ignoresSince?: boolean;
		skewMs?: fc.Arbitrary<number>;
		history?: fc.Arbitrary<number>;
		historyAheadMs?: fc.Arbitrary<number>;
		lookBackSeconds?: fc.Arbitrary<number>;
	} = {},
) {
	return fc
		.record({
			event: fc.constant(event),
			behaviour: fc.record({
				order: over.order
					? fc.constant(over.order)
					: fc.constantFrom<SmsOrder>('oldestFirst', 'newestFirst'),
				ignoresSince:
					over.ignoresSince !== undefined ? fc.constant(over.ignoresSince) : fc.boolean(),
				junk: fc.boolean(),
			}),
			pageSize: fc.oneof(
				{ weight: 4, arbitrary: fc.integer({ min: 1, max: 8 }) },
				{ weight: 1, arbitrary: fc.integer({ min: 1, max: 200 }) },
			),
			maxPages: fc.integer({ min: 1, max: 5 }),
			maxLookups: fc.integer({ min: 1, max: 5 }),
			lookBackSeconds: over.lookBackSeconds ?? fc.integer({ min: 0, max: 10 }),
			includeLastSeconds: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 120 })),
			// The API's clock off n8n's, either way, by up to several seconds (or not at all), and now
			// and then by more: up to a minute ahead (past that, with nothing measured, its records look
			// dated in the future: limit 5), or minutes behind.
			skewMs:
				over.skewMs ??
				fc.oneof(
					{ weight: 3, arbitrary: fc.constant(0) },
					{ weight: 3, arbitrary: fc.integer({ min: -20_000, max: 20_000 }) },
					{ weight: 1, arbitrary: fc.constantFrom(-1_200, -1_000, 2_500) },
					{ weight: 1, arbitrary: fc.integer({ min: -600_000, max: 55_000 }) },
				),
			history: over.history ?? fc.integer({ min: 0, max: 6 }),
			historyAheadMs:
				over.historyAheadMs ??
				fc.oneof(
					{ weight: 3, arbitrary: fc.constant(0) },
					{ weight: 1, arbitrary: fc.integer({ min: 0, max: 12_000 }) },
				),
			fates: fc.array(fc.nat({ max: 1 << 14 }), { minLength: 1, maxLength: 12 }),
			steps: fc.array(
				fc.oneof(
					{ weight: 4, arbitrary: arriveStep },
					{ weight: 3, arbitrary: tickStep },
					{ weight: 1, arbitrary: clockStep },
					{ weight: 4, arbitrary: pollStep },
				),
				{ maxLength: 18 },
			),
		})
		.map((scenario) => ({
			...scenario,
			// A step back is a record stored late for the trigger: by no more than the Late Arrival
			// Window here (past it, the documented loss), and where the server answers oldest first
			// (newest first, what is stamped before the history is behind it on every page: limit 1).
			historyAheadMs:
				scenario.behaviour.order === 'oldestFirst'
					? Math.min(scenario.historyAheadMs ?? 0, scenario.lookBackSeconds * SECOND)
					: 0,
		})) as fc.Arbitrary<Scenario>;
}

const RUNS = 700;

/**
 * Counterexamples the property found (CI, 2026-11-27 and 28): a history stamped 6 to 8 s ahead on
 * an API clock 47 to 54 s ahead of n8n's. The trigger started past it, where a poll took it for
 * the future and brought the floor back under it; or remembered it at now, and forgot it when
 * the floor passed that, while a later page returned it; or (the third) n8n's clock stepped back
 * about 6 s after activation, now plus the tolerance fell under the history, and the floor came
 * back there.
 */
const STAMPED_AHEAD: Scenario[] = [
	{
		event: 'callEnded',
		behaviour: { order: 'oldestFirst', ignoresSince: true, junk: false },
		pageSize: 2,
		maxPages: 1,
		maxLookups: 1,
		lookBackSeconds: 6,
		includeLastSeconds: 0,
		skewMs: 54_100,
		history: 2,
		historyAheadMs: 6000,
		fates: [0],
		steps: [],
	},
	{
		event: 'callEnded',
		behaviour: { order: 'oldestFirst', ignoresSince: false, junk: false },
		pageSize: 3,
		maxPages: 1,
		maxLookups: 1,
		lookBackSeconds: 8,
		includeLastSeconds: 0,
		skewMs: 53_008,
		history: 3,
		historyAheadMs: 8000,
		fates: [0],
		steps: [
			{ kind: 'arrive', count: 2, lateBy: 0, spread: 0, undated: 0 },
			{ kind: 'tick', seconds: 15 },
			{ kind: 'arrive', count: 1, lateBy: 0, spread: 0, undated: 0 },
		],
	},
	{
		event: 'callEnded',
		behaviour: { order: 'oldestFirst', ignoresSince: true, junk: false },
		pageSize: 2,
		maxPages: 1,
		maxLookups: 1,
		lookBackSeconds: 7,
		includeLastSeconds: 0,
		skewMs: 47_298,
		history: 2,
		historyAheadMs: 7000,
		fates: [0],
		steps: [{ kind: 'clock', byMs: 5802 }, { kind: 'poll' }],
	},
];

describe.each<EventKind>(['smsReceived', 'smsDelivered', 'callEnded'])(
	'%s against a model of the API',
	(event) => {
		it('every qualifying record once, within a bounded number of polls and requests, whatever the order, page size and history; what a documented limit loses is said', async () => {
			await fc.assert(
				fc.asyncProperty(scenarios(event), async (scenario) => {
					check(scenario, await run(scenario));
				}),
				replay(RUNS),
			);
		});

		it('a server that honours since and answers oldest first loses nothing unless more than a page share one time', async () => {
			await fc.assert(
				fc.asyncProperty(
					scenarios(event, { order: 'oldestFirst', ignoresSince: false }),
					async (scenario) => {
						const result = await run(scenario);
						const excused = check(scenario, result);
						const groups = new Map<number, number>();
						for (const r of result.server.recs)
							if (r.dated === 'ok') groups.set(r.time, (groups.get(r.time) ?? 0) + 1);
						const undated = result.server.recs.filter((r) => r.dated !== 'ok').length;
						// Lost only when stored late, or behind a page of records at its time (and undated ones).
						for (const { rec, late, lost } of excused)
							if (lost && !late)
								expect((groups.get(rec.time) ?? 0) + undated).toBeGreaterThan(scenario.pageSize);
					},
				),
				replay(200),
			);
		});

		it('a history stamped past the moment of publishing, on an API clock up to 55 s ahead of n8n that nothing measured, is never emitted', async () => {
			// Where the read at activation cannot see everything, the trigger starts past the newest
			// record it read; with the API's clock ahead, that may be past what a poll takes for now
			// (plus its minute's tolerance), which a poll brings the floor back to.
			await fc.assert(
				fc.asyncProperty(
					scenarios(event, {
						order: 'oldestFirst',
						skewMs: fc.integer({ min: 40_000, max: 55_000 }),
						history: fc.integer({ min: 1, max: 6 }),
						historyAheadMs: fc.integer({ min: 0, max: 12_000 }),
						lookBackSeconds: fc.integer({ min: 5, max: 12 }),
					}),
					async (scenario) => {
						check(scenario, await run(scenario));
					},
				),
				{
					...replay(300),
					examples: STAMPED_AHEAD.map((found): [Scenario] => [{ ...found, event }]),
				},
			);
		});
	},
);

describe('the cases found by trying the trigger as a user would', () => {
	const base = (over: Partial<Scenario>): Scenario => ({
		event: 'smsReceived',
		behaviour: { order: 'oldestFirst', ignoresSince: false, junk: false },
		pageSize: 5,
		maxPages: 10,
		maxLookups: 10,
		lookBackSeconds: 10,
		includeLastSeconds: 0,
		skewMs: 0,
		history: 0,
		fates: [0],
		steps: [],
		...over,
	});
	/** An SMS arriving every minute, each followed by a poll, `minutes` times. */
	const oneAMinute = (minutes: number): Step[] =>
		Array.from({ length: minutes }, (): Step[] => [
			{ kind: 'arrive', count: 1, lateBy: 0, spread: 0, undated: 0 },
			{ kind: 'tick', seconds: 60 },
			{ kind: 'poll' },
		]).flat();
	/** Sent SMS, oldest first, pages of 2: the first never delivered, the others at once. */
	const neverDelivered = (over: Partial<Scenario>) =>
		base({
			event: 'smsDelivered',
			pageSize: 2,
			// Fates: the delay 'never' for the first, 0 then 'delivered' for the others.
			fates: [7 << 6, ...Array.from({ length: 11 }, () => 512)],
			steps: oneAMinute(60),
			...over,
		});
	/**
	 * SMS Delivered, pages of 3, a Late Arrival Window of 5 s, the API's clock 40 s ahead: a poll
	 * reads two SMS at 0 s and one stored a second late, then an SMS with no readable time (on
	 * every page) arrives, and `late` follows 5 s on.
	 */
	const fillsLater = (late: Step[]) =>
		base({
			event: 'smsDelivered',
			pageSize: 3,
			maxPages: 3,
			maxLookups: 1,
			lookBackSeconds: 5,
			skewMs: 40_000,
			history: 3,
			historyAheadMs: 101,
			fates: [512],
			steps: [
				{ kind: 'arrive', count: 2, lateBy: 0, spread: 0, undated: 0 },
				{ kind: 'arrive', count: 1, lateBy: 1, spread: 0, undated: 0 },
				{ kind: 'poll' },
				{ kind: 'arrive', count: 0, lateBy: 0, spread: 0, undated: 1 },
				{ kind: 'tick', seconds: 5 },
				...late,
			],
		});
	const cases: Array<[string, Scenario]> = [
		[
			'SMS Delivered, newest first, 8 SMS between two polls with pages of 5',
			base({
				event: 'smsDelivered',
				behaviour: { order: 'newestFirst', ignoresSince: false, junk: false },
				// Delivered at once (fate: delay 0, then 'delivered').
				fates: [512],
				steps: [
					{ kind: 'arrive', count: 8, lateBy: 0, spread: 0, undated: 0 },
					{ kind: 'tick', seconds: 30 },
					{ kind: 'poll' },
				],
			}),
		],
		[
			'SMS Delivered, oldest first, one SMS never delivered, then 12 a minute for an hour',
			neverDelivered({}),
		],
		[
			'SMS Received, a record without a readable sentAt that the server keeps returning, an SMS a minute beside it',
			base({
				steps: [{ kind: 'arrive', count: 0, lateBy: 0, spread: 0, undated: 1 }, ...oneAMinute(30)],
			}),
		],
		[
			'SMS Delivered, oldest first, one SMS never delivered, then 12 a minute for an hour (no page budget)',
			neverDelivered({ maxPages: 20 }),
		],
		[
			'SMS Received, six SMS a moment before publishing and pages of one: the SMS after them comes once the polls have paged past them',
			base({
				pageSize: 1,
				maxPages: 1,
				maxLookups: 1,
				lookBackSeconds: 0,
				skewMs: -1_200,
				history: 6,
				steps: [{ kind: 'arrive', count: 1, lateBy: 0, spread: 0, undated: 0 }],
			}),
		],
		[
			'SMS Received, oldest first, exactly a page at one sent time, then more',
			base({
				steps: [
					{ kind: 'arrive', count: 5, lateBy: 0, spread: 0, undated: 0 },
					{ kind: 'poll' },
					{ kind: 'tick', seconds: 5 },
					{ kind: 'arrive', count: 3, lateBy: 0, spread: 2, undated: 0 },
				],
			}),
		],
		[
			// Found by CI on the property below: the poll that resumed past 0 s could not see the
			// record; the next re-read of the window ran out of pages before it; the one after found
			// the page at 0 s full and stepped past it without saying so, as it was under the cursor.
			'SMS Delivered, a group at one time that a record stored late and an undated record fill only after the trigger read past it, is said',
			fillsLater([{ kind: 'arrive', count: 2, lateBy: 5, spread: 1, undated: 0 }]),
		],
		[
			// Found by a sweep of the property's seeds: the check for records final when they came
			// took calls that never end, whose statuses all lay before they were stored, for final.
			'Call Ended, twelve calls stored up to 3 s late that never end, pages of one and a look-up a poll',
			base({
				event: 'callEnded',
				pageSize: 1,
				maxPages: 4,
				maxLookups: 1,
				lookBackSeconds: 0,
				fates: [10688],
				steps: [
					{ kind: 'arrive', count: 7, lateBy: 3, spread: 1, undated: 0 },
					{ kind: 'arrive', count: 5, lateBy: 1, spread: 1, undated: 0 },
				],
			}),
		],
	];
	// Found by review (2026-11-28): a call still in progress after its day, let go flagged, was
	// remembered at the time it was tracked at (now plus the tolerance, with the API's clock more
	// than a minute ahead), forgotten, and emitted again when the list returned it.
	const ahead = (skewMs: number, over: Partial<Scenario>) =>
		base({
			event: 'callEnded',
			pageSize: 1,
			maxPages: 1,
			maxLookups: 1,
			lookBackSeconds: 0,
			skewMs,
			history: 1,
			...over,
		});
	cases.push(
		[
			"Call Ended, the API's clock 61.1 s ahead: a call from publishing that never ends is emitted once, flagged",
			ahead(61_101, { includeLastSeconds: 1, fates: [2432] }),
		],
		[
			"Call Ended, the API's clock 60 s ahead: six calls stored a second late, one that never ends: each emitted once",
			ahead(60_001, {
				fates: [14270, 0],
				steps: [
					{ kind: 'arrive', count: 6, lateBy: 1, spread: 1, undated: 0 },
					{ kind: 'poll' },
					{ kind: 'poll' },
				],
			}),
		],
	);
	// Reported against the version that learnt the API's clock from Date headers and took any
	// status not on its list for an ending (issue 36).
	const reported: Array<[string, Scenario]> = [
		...[-1_200, -1_000, 2_500].map((skewMs): [string, Scenario] => [
			`SMS Received, the API's clock ${Math.abs(skewMs)} ms ${skewMs < 0 ? 'behind' : 'ahead of'} n8n's: an SMS half a second after publishing`,
			base({
				skewMs,
				history: 3,
				steps: [
					{ kind: 'tick', seconds: 0.5 },
					{ kind: 'arrive', count: 1, lateBy: 0, spread: 0, undated: 0 },
					{ kind: 'poll' },
				],
			}),
		]),
		[
			'Call Ended, a manual call through agent-answered and dialing before it completes',
			base({
				event: 'callEnded',
				// Fate 158: agent-answered, then dialing, then completed 40 s after it was made.
				fates: [158],
				steps: [
					{ kind: 'arrive', count: 1, lateBy: 0, spread: 0, undated: 0 },
					{ kind: 'tick', seconds: 1 },
					{ kind: 'poll' },
					{ kind: 'tick', seconds: 10 },
					{ kind: 'poll' },
				],
			}),
		],
		[
			'SMS Delivered, an SMS through pending and submitted before it is delivered',
			base({
				event: 'smsDelivered',
				// Fate 657: pending, then submitted, then delivered 40 s after it was sent.
				fates: [657],
				steps: [
					{ kind: 'arrive', count: 1, lateBy: 0, spread: 0, undated: 0 },
					{ kind: 'tick', seconds: 1 },
					{ kind: 'poll' },
					{ kind: 'tick', seconds: 10 },
					{ kind: 'poll' },
				],
			}),
		],
	];
	it.each(cases)('%s', async (_name, scenario) => {
		check(scenario, await run(scenario));
	});
	// Found by review (2026-11-28): with one remembered group, two groups of more than a page in
	// the window were said at every poll (54 in 27 hours), the warning naming the quiet one; and a
	// group under the position that a record stored late filled was stepped past quietly.
	it.each<EventKind>(['smsReceived', 'smsDelivered', 'callEnded'])(
		'%s: two groups of more than a page inside the window are said once, not at every poll',
		async (event) => {
			const scenario = base({
				event,
				pageSize: 2,
				lookBackSeconds: 300,
				fates: [512],
				steps: [
					{ kind: 'tick', seconds: 1 },
					{ kind: 'arrive', count: 2, lateBy: 0, spread: 0, undated: 0 },
					{ kind: 'tick', seconds: 1 },
					{ kind: 'arrive', count: 2, lateBy: 0, spread: 0, undated: 0 },
					{ kind: 'poll' },
				],
			});
			const result = await run(scenario);
			check(scenario, result);
			const said = result.polls.filter((p) => p.newMayBeHidden);
			expect(said.map((p) => p.steppedPast)).toEqual([[T0 + SECOND, T0 + 2 * SECOND]]);
		},
	);
	it('SMS Delivered, a record stored late into a group under the position, filled by an undated record: a poll after it came says so', async () => {
		const scenario = fillsLater([
			{ kind: 'arrive', count: 1, lateBy: 4, spread: 0, undated: 0 },
			{ kind: 'arrive', count: 1, lateBy: 5, spread: 0, undated: 0 },
		]);
		const result = await run(scenario);
		check(scenario, result);
		const lost = result.server.recs.filter((r) => !r.history && !result.emittedAt.has(r.id));
		expect(lost.length).toBeGreaterThan(0);
		for (const rec of lost)
			expect(result.polls.some((p) => p.start >= rec.arrival && p.newMayBeHidden)).toBe(true);
	});
	it.each(reported)('%s', async (_name, scenario) => {
		const result = await run(scenario);
		check(scenario, result);
		// Each reported record was emitted, once, and (a call) as ended, not flagged.
		for (const rec of result.server.recs.filter((r) => !r.history))
			expect(result.emittedAt.get(rec.id)).toHaveLength(1);
		expect(result.flagged.size).toBe(0);
	});
});
