/**
 * A soak of the Comms Account Trigger: all three events, on both of n8n's poll paths at once,
 * against one in-process sandbox over HTTP, through n8n-core's PollContext (harness/poll.ts).
 *
 * For `seconds`, at random (one seeded generator): the API's clock is set off n8n's, either way,
 * by up to 8 seconds (`clockSkewMs`, drawn once); received SMS arrive one by one, late (inside
 * the Late Arrival Window), and in bursts (spread, or sharing one sent time, sometimes more than
 * a page); SMS are sent (delivered 10 s later, failed, or never receipted), sometimes more than
 * a page between two polls; calls are made (ending in 9 to 35 s, or never); now and then, for a
 * while, calls and sent SMS pass through statuses nobody listed (the sandbox's `unlistedStatuses`:
 * `agent-answered`, `dialing`, `submitted`, `pending`, a failure ending `undelivered`); the API
 * answers 429s, 500s and 502s and holds answers up to `maxLatencyMs`; the SMS order switches from
 * oldest first to newest first halfway; each trigger polls (sometimes two polls at once), is
 * restarted gracefully (a new n8n process from what was stored) or hard (n8n stops after a poll
 * has read its records: on the default path the records were handed on and the state not
 * saved; on the durable path neither, as n8n commits both in one transaction). Then arrivals and
 * faults stop, everything that ends ends, and each trigger polls for what it still owes, for as
 * many polls as the guarantee gives it (see the quiet phase below): not for a fixed time, as a
 * record tracked in progress on a newest-first server is reached only by look-ups, 10 a poll,
 * and the six triggers share the key's 600 requests a minute.
 *
 * Every record is then accounted for, per trigger: emitted once; or not emitted (nor due: an SMS
 * never delivered, a call that never ended); or a documented limit, counted by kind — out of
 * reach of every request at a poll after it arrived (more than a page sharing one time; newest
 * first, behind a page of newer ones) and never tracked by id in the trigger's stored state (a
 * record it tracks is reached by a look-up whatever the list returns), stored later than the
 * Late Arrival Window, let go for room while 1,000 are tracked, emitted twice by a hard restart
 * on the default path. Anything else is unexplained, and the short soak in the test suite fails
 * on it.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { PollHarness, type PollRun } from '../../harness';
import { CLOCK_PRECISION_MS } from '../../nodes/CommsAccount/trigger/cursorState';
import { DEFAULT_IN_PROGRESS_SETTINGS } from '../../nodes/CommsAccount/trigger/inProgressRecords';
import { PHONE_DOC_IDS, type Sandbox, TEST_NUMBERS } from '../../sandbox';
import { accountApi, accountCredentials } from './sandbox';
import { accountTriggerWorkflow } from './workflows';

export type SoakEvent = 'smsReceived' | 'smsDelivered' | 'callEnded';
export type SoakPath = 'default' | 'durable';
export const SOAK_EVENTS: SoakEvent[] = ['smsReceived', 'smsDelivered', 'callEnded'];
export const SOAK_PATHS: SoakPath[] = ['default', 'durable'];

const PAGE = 200;
/** How Call Ended and SMS Delivered look up records in progress: 10 a poll, half their age apart. */
const OUTCOMES = DEFAULT_IN_PROGRESS_SETTINGS;
/** The trigger dates its looks by its own clock, which nothing here measures against the API's. */
const CLOCK_MARGIN_MS = CLOCK_PRECISION_MS;
/** The most the API's clock is set off n8n's, either way. */
const MAX_SKEW_MS = 8_000;
/** The trigger's Late Arrival Window in the soak: 12 s, so records leave it (and are looked up) within the run. */
const WINDOW_MINUTES = 0.2;
const WINDOW_MS = WINDOW_MINUTES * 60_000;

export interface SoakOptions {
	seconds: number;
	seed: number;
	/** The longest an answer is held. */
	maxLatencyMs: number;
	/** The poll's time budget (getPollBudgetMs). */
	budgetMs: number;
	/**
	 * Once arrivals and faults stop, each trigger has the polls the guarantee gives it; this bounds
	 * the wait in seconds as well (default 240), in case polls keep failing.
	 */
	quietSeconds?: number;
	/** The API's clock off n8n's (ms; negative: behind); drawn from the seed when not given. */
	clockSkewMs?: number;
	/** Logs every poll: where it started, its requests, what it emitted. */
	verbose?: boolean;
	log?: (line: string) => void;
}

/** A record as the sandbox ordered it. */
interface Rec {
	/** The id the trigger emits it by. */
	id: string;
	event: SoakEvent;
	time: number;
	seq: number;
	/** Whether (and when, ms) it qualifies: received at once; delivered; a call that ended. */
	final: 'yes' | 'never' | 'notQualifying';
	arrivedAt: number;
}

interface Tally {
	records: number;
	/** Sent before the trigger was published: never emitted. */
	history: number;
	qualifying: number;
	emittedOnce: number;
	/** Documented limits. */
	outOfReach: number;
	late: number;
	/** Tracked in progress, and let go while the trigger tracked its most (1,000; limit 7). */
	letGoForRoom: number;
	duplicatedByHardRestart: number;
	/** Not documented: a failure. */
	unexplainedLost: string[];
	/** Of those lost, how many the trigger still tracked in progress at the end. */
	lostStillTracked: number;
	unexplainedTwice: string[];
	emittedNotQualifying: string[];
	polls: number;
	failedPolls: number;
	skippedOrFenced: number;
	requests: number;
	maxRequestsPerPoll: number;
	/** Look-ups by id among the requests. */
	lookups: number;
}

export interface SoakReport {
	seconds: number;
	seed: number;
	/** The API's clock off n8n's, ms. */
	clockSkewMs: number;
	/** Records made while calls and SMS passed through statuses nobody listed. */
	unlisted: number;
	arrivals: Record<SoakEvent, number>;
	faults: { status429: number; status500: number; status502: number; slowPeriods: number };
	restarts: { graceful: number; hard: number };
	/** Receipts that came late and calls that ended after all (after they had been left pending). */
	resolvedLate: number;
	tallies: Record<string, Tally>;
	warnings: string[];
}

/** mulberry32: a small seeded generator, so a soak can be run again exactly. */
function generator(seed: number) {
	let a = seed >>> 0;
	const next = () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	return {
		next,
		int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
		chance: (p: number) => next() < p,
		pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)],
	};
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seqOf = (id: string) => Number(/(\d+)$/.exec(id)?.[1] ?? NaN);

/** One trigger under soak: its harness and what it emitted. */
class Trigger {
	harness: PollHarness;
	readonly emitted = new Map<string, number>();
	readonly emittedByCrash = new Set<string>();
	/**
	 * Records out of reach of every request at a poll before they were emitted: never read by a
	 * poll whose state was kept (else the trigger tracks them by id, and a look-up reaches them).
	 */
	readonly outOfReach = new Set<string>();
	/** Records stored later than the window of the cursor the trigger next read the window from. */
	readonly late = new Set<string>();
	/** Records the trigger's stored state has tracked in progress, at any poll. */
	readonly everTracked = new Set<string>();
	/** Records it stopped tracking, without emitting them, while it tracked its most (limit 7). */
	readonly letGoForRoom = new Set<string>();
	/** Where the trigger started (publishing): older records are history. */
	baseline = -Infinity;
	readonly tally: Tally = {
		records: 0,
		history: 0,
		qualifying: 0,
		emittedOnce: 0,
		outOfReach: 0,
		letGoForRoom: 0,
		late: 0,
		duplicatedByHardRestart: 0,
		unexplainedLost: [],
		lostStillTracked: 0,
		unexplainedTwice: [],
		emittedNotQualifying: [],
		polls: 0,
		failedPolls: 0,
		skippedOrFenced: 0,
		requests: 0,
		maxRequestsPerPoll: 0,
		lookups: 0,
	};

	constructor(
		readonly event: SoakEvent,
		readonly path: SoakPath,
		private readonly sandbox: Sandbox,
		private readonly budgetMs: number,
	) {
		this.harness = this.build();
	}

	get name(): string {
		return `${this.event} (${this.path})`;
	}

	build(): PollHarness {
		const parameters: INodeParameters = {
			event: this.event,
			...(this.event === 'callEnded' ? { callMode: 'manual' } : {}),
			options: { lookBackMinutes: WINDOW_MINUTES },
		};
		const harness = new PollHarness(accountTriggerWorkflow(parameters), {
			credentials: accountCredentials(this.sandbox),
			cursors: this.path === 'durable' ? 'durable' : 'staticData',
			keepContext: this.path === 'default',
			budgetMs: this.budgetMs,
			workflowId: `soak-${this.event}-${this.path}`,
		});
		if (this.harness) harness.restore(this.harness.storedStaticData);
		return harness;
	}

	/**
	 * The trigger's position, whether it reads on from where the last poll stopped, and the
	 * records it tracks in progress (looked up by id, whatever the list returns).
	 */
	position(): { cursor: number; resume: boolean; tracked: Set<string> } | undefined {
		const data = this.harness.nodeStaticData();
		const outcomes = (data.callOutcomes ?? data.deliveryOutcomes) as IDataObject | undefined;
		const state = (this.event === 'smsReceived' ? data.smsCursor : outcomes?.window) as
			{ cursor?: number; resume?: number } | undefined;
		const pending = (outcomes?.pending ?? []) as Array<[string]>;
		return typeof state?.cursor === 'number'
			? {
					cursor: state.cursor,
					resume: state.resume !== undefined,
					tracked: new Set(pending.map(([id]) => id)),
				}
			: undefined;
	}

	record(run: PollRun, { crashed }: { crashed: boolean }): void {
		if (run.error) {
			this.tally.failedPolls++;
			return;
		}
		if (run.fenced) this.tally.skippedOrFenced++;
		for (const item of run.items ?? []) {
			const id = String(item.json.id ?? item.json.callId);
			this.emitted.set(id, (this.emitted.get(id) ?? 0) + 1);
			if (crashed) this.emittedByCrash.add(id);
		}
	}
}

export async function runSoak(sandbox: Sandbox, options: SoakOptions): Promise<SoakReport> {
	const random = generator(options.seed);
	const control = sandbox.control;
	const api = accountApi(sandbox, sandbox.credentials.account.unrestricted);
	const say = options.log ?? (() => undefined);
	control.setAccountRateLimit(6000);
	control.setBalances({
		minutes: { subscription: 1_000_000 },
		smsCredits: { subscription: 1_000_000 },
	});
	control.setSmsOrder('oldestFirst');
	const clockSkewMs =
		options.clockSkewMs ?? random.int(-MAX_SKEW_MS / 100, MAX_SKEW_MS / 100) * 100;
	control.setClockSkew(clockSkewMs / 1000);
	/** How far the trigger's own clock may be off the API's: the look it dates may come that late. */
	const margin = CLOCK_MARGIN_MS + Math.abs(clockSkewMs);

	const triggers = SOAK_PATHS.flatMap((path) =>
		SOAK_EVENTS.map((event) => new Trigger(event, path, sandbox, options.budgetMs)),
	);
	const records = new Map<string, Rec>();
	/** Per event, the records in the server's order key (time, then seq). */
	const byEvent: Record<SoakEvent, Rec[]> = { smsReceived: [], smsDelivered: [], callEnded: [] };
	const report: SoakReport = {
		seconds: options.seconds,
		seed: options.seed,
		clockSkewMs,
		unlisted: 0,
		arrivals: { smsReceived: 0, smsDelivered: 0, callEnded: 0 },
		faults: { status429: 0, status500: 0, status502: 0, slowPeriods: 0 },
		restarts: { graceful: 0, hard: 0 },
		resolvedLate: 0,
		tallies: {},
		warnings: [],
	};

	const add = (rec: Rec) => {
		records.set(`${rec.event}:${rec.id}`, rec);
		if (rec.event !== 'smsReceived' && control.settings().unlistedStatuses) report.unlisted++;
		const list = byEvent[rec.event];
		// Kept sorted by (time, seq): most arrive last, late ones are put in place.
		let i = list.length;
		while (
			i > 0 &&
			(list[i - 1].time > rec.time || (list[i - 1].time === rec.time && list[i - 1].seq > rec.seq))
		)
			i--;
		list.splice(i, 0, rec);
		report.arrivals[rec.event]++;
	};

	/**
	 * Whether a trigger still owes a record: it qualifies (and is not history), and it was neither
	 * emitted nor explained by a documented limit (out of reach at a poll, stored late).
	 */
	const owed = (trigger: Trigger, rec: Rec) =>
		rec.time >= trigger.baseline &&
		rec.final === 'yes' &&
		!trigger.emitted.has(rec.id) &&
		!trigger.outOfReach.has(rec.id) &&
		!trigger.late.has(rec.id) &&
		!trigger.letGoForRoom.has(rec.id);

	/** Records no request could return now: behind a page of others in the server's order. */
	const outOfReachNow = (event: SoakEvent, pending: Rec[]): Rec[] => {
		const list = byEvent[event];
		const order = event === 'callEnded' ? 'newestFirst' : control.settings().smsOrder;
		const index = new Map(list.map((rec, i) => [rec, i]));
		return pending.filter((rec) => {
			const i = index.get(rec) as number;
			if (order === 'newestFirst') return list.length - 1 - i >= PAGE;
			let first = i;
			while (first > 0 && list[first - 1].time === rec.time) first--;
			return i - first >= PAGE;
		});
	};

	// Arrivals.
	const receive = () => {
		const kind = random.next();
		// Dated by the API's clock, as the sandbox dates what it receives.
		const now = Date.now() + clockSkewMs;
		let sentAts: number[];
		if (kind < 0.65) sentAts = [now - (random.chance(0.3) ? random.int(0, WINDOW_MS / 2) : 0)];
		else if (kind < 0.88)
			sentAts = Array.from(
				{ length: random.int(5, 60) },
				(_, i) => now - 3000 + i * random.int(0, 30),
			);
		else if (kind < 0.98) sentAts = Array.from({ length: random.int(20, 120) }, () => now);
		// More than a page at one time.
		else sentAts = Array.from({ length: random.int(201, 240) }, () => now);
		inbound(sentAts);
	};
	/** Received SMS with these sent times. */
	const inbound = (sentAts: number[]) => {
		const created = control.injectInboundSms({
			sentAts: sentAts.map((ms) => new Date(ms).toISOString()),
			body: 'Soak',
		});
		for (const record of created)
			add({
				id: String(record.id),
				event: 'smsReceived',
				time: Date.parse(String(record.sentAt)),
				seq: seqOf(String(record.id)),
				final: 'yes',
				arrivedAt: Date.now(),
			});
	};
	/** `count` SMS, each to a recipient drawn at random (or to `recipient`). */
	const send = async (count: number, recipient?: string) => {
		for (let i = 0; i < count; i++) {
			const roll = recipient === undefined ? random.next() : 0;
			const to =
				recipient ??
				(roll < 0.85
					? TEST_NUMBERS.customer
					: roll < 0.93
						? TEST_NUMBERS.deliveryFails
						: TEST_NUMBERS.noReceipt);
			const res = await api.post('/v1/sms', {
				phoneDocId: PHONE_DOC_IDS.main,
				to,
				message: 'Soak',
			});
			if (res.status !== 201) continue; // an injected failure met the soak's own request
			const view = await control.get((res.body as { messageId: string }).messageId);
			add({
				id: String(view.record.id),
				event: 'smsDelivered',
				time: Date.parse(String(view.record.sentAt)),
				seq: seqOf(String(view.record.id)),
				final:
					to === TEST_NUMBERS.customer
						? 'yes'
						: to === TEST_NUMBERS.noReceipt
							? 'never'
							: 'notQualifying',
				arrivedAt: Date.now(),
			});
		}
	};
	/** `count` calls, each to a number drawn at random (or to `callee`). */
	const dial = async (count: number, callee?: string) => {
		for (let i = 0; i < count; i++) {
			const to =
				callee ??
				random.pick([
					TEST_NUMBERS.customerBusy,
					TEST_NUMBERS.customerBusy,
					TEST_NUMBERS.customerHangsUpEarly,
					TEST_NUMBERS.customerNoAnswer,
					TEST_NUMBERS.customerNeverHangsUp,
				]);
			const res = await api.post('/v1/calls', { phoneDocId: PHONE_DOC_IDS.main, to });
			if (res.status !== 201) continue;
			const callId = (res.body as { callId: string }).callId;
			const view = await control.get(callId);
			add({
				id: callId,
				event: 'callEnded',
				time: Date.parse(String(view.record.createdAt)),
				seq: seqOf(callId),
				final: to === TEST_NUMBERS.customerNeverHangsUp ? 'never' : 'yes',
				arrivedAt: Date.now(),
			});
		}
	};

	/** The soak's own sends and calls are answered at once: the slow answers are for the triggers. */
	const quickly = async (act: () => Promise<void>) => {
		const latencyMs = control.settings().latencyMs;
		control.setLatency(0);
		try {
			await act();
		} finally {
			control.setLatency(latencyMs);
		}
	};

	/** A receipt that comes late, or a call that ends after all: one of those that had not. */
	const resolveOne = async () => {
		const waiting = [...records.values()].filter((rec) => rec.final === 'never');
		if (waiting.length === 0) return;
		const rec = random.pick(waiting);
		await control.setOutcome(rec.id, rec.event === 'callEnded' ? 'early-hangup' : 'delivered');
		rec.final = 'yes';
		report.resolvedLate++;
	};

	/**
	 * One poll of a trigger, its requests counted (nothing else talks to the API meanwhile).
	 * Whether it (or one of two overlapping polls) succeeded.
	 */
	const poll = async (
		trigger: Trigger,
		{ overlap = false, crash = false } = {},
	): Promise<boolean> => {
		control.clearRequests();
		const started = Date.now();
		const position = trigger.position();
		for (const id of position?.tracked ?? []) trigger.everTracked.add(id);
		const runs = await Promise.all(
			(overlap ? [0, 1] : [0]).map(() => trigger.harness.poll({ crashBeforeSave: crash })),
		);
		const requests = control.requests();
		if (options.verbose)
			say(
				`poll ${trigger.name} at ${started} from ${JSON.stringify(position && { cursor: position.cursor, resume: position.resume })}: ${requests.map((r) => `${r.query.since ?? r.query.messageId ?? r.query.callId ?? '-'} ${r.status}`).join(', ')} -> ${runs.map((run) => (run.error ? `error ${run.error.message.slice(0, 60)}` : `${run.items?.length ?? 0} items`)).join(', ')}${crash ? ' (hard restart)' : ''}`,
			);
		trigger.tally.requests += requests.length;
		trigger.tally.lookups += requests.filter((r) => r.query.messageId || r.query.callId).length;
		trigger.tally.maxRequestsPerPoll = Math.max(trigger.tally.maxRequestsPerPoll, requests.length);
		for (const run of runs) {
			trigger.tally.polls++;
			// A hard restart on the durable path: n8n commits the execution with the cursor, so
			// neither happened.
			if (crash && trigger.path === 'durable') continue;
			trigger.record(run, { crashed: crash });
		}
		if (runs.every((run) => run.error)) return false;
		// What was out of reach of every request at this poll, of what arrived before it. Never a
		// record the trigger tracks or has tracked by id: a look-up reaches it whatever the list
		// returns, and the trigger keeps it until it is final (or a day, or for room: below).
		const waiting = byEvent[trigger.event].filter(
			(rec) =>
				rec.arrivedAt <= started &&
				!trigger.emitted.has(rec.id) &&
				!trigger.outOfReach.has(rec.id) &&
				!trigger.everTracked.has(rec.id),
		);
		// Records let go for room: no longer tracked, not emitted, while the trigger tracks its most.
		const after = trigger.position();
		if (position && after && after.tracked.size >= OUTCOMES.maxPending)
			for (const id of position.tracked)
				if (!after.tracked.has(id) && !trigger.emitted.has(id)) trigger.letGoForRoom.add(id);
		for (const rec of outOfReachNow(trigger.event, waiting)) {
			trigger.outOfReach.add(rec.id);
		}
		// A poll that read the window: what arrived before it and lies before its window is late.
		if (position && !position.resume)
			for (const rec of waiting)
				if (rec.time < position.cursor - WINDOW_MS) {
					trigger.late.add(rec.id);
				}
		if (crash) {
			report.restarts.hard++;
			trigger.harness.restart();
		}
		return true;
	};

	say(
		`soak: ${options.seconds} s, seed ${options.seed}, 6 triggers (3 events x 2 poll paths), the API's clock ${clockSkewMs} ms off n8n's`,
	);
	for (const trigger of triggers) {
		trigger.record(await trigger.harness.activate(), { crashed: false });
		// Kept in the workflow's static data by the publish-time poll (on both paths): where it starts.
		const global = trigger.harness.storedStaticData.global as IDataObject | undefined;
		const baselines = global?.commsAccountTriggerBaselines as
			Record<string, { state?: { floor?: number } }> | undefined;
		trigger.baseline = baselines?.trigger?.state?.floor ?? -Infinity;
	}

	// One record of each event first, drawn from no random number: a seed whose draws make no
	// call (or send or receive no SMS) before the traffic ends still gives every trigger one to
	// emit, so that each trigger's count of records emitted once (above 0) means something.
	inbound([Date.now() + clockSkewMs]);
	await quickly(() => send(1, TEST_NUMBERS.customer));
	await quickly(() => dial(1, TEST_NUMBERS.customerBusy));

	const end = Date.now() + options.seconds * 1000;
	let switched = false;
	while (Date.now() < end) {
		if (!switched && Date.now() > end - (options.seconds * 1000) / 2) {
			control.setSmsOrder('newestFirst');
			switched = true;
			say('soak: the SMS order is now newest first');
		}
		const roll = random.next();
		if (roll < 0.15) receive();
		else if (roll < 0.3)
			await quickly(() => send(random.chance(0.03) ? random.int(201, 240) : random.int(1, 4)));
		else if (roll < 0.38) await quickly(() => dial(random.int(1, 2)));
		else if (roll < 0.42) await resolveOne();
		else if (roll < 0.48) {
			const status = random.pick([429, 500, 502] as const);
			control.injectFailure({
				status,
				path: random.pick(['/v1/sms', '/v1/calls']),
				count: random.int(1, 4),
				...(status === 429 ? { retryAfterSeconds: 1 } : {}),
			});
			report.faults[`status${status}`]++;
		} else if (roll < 0.51) {
			control.setLatency(random.chance(0.5) ? 0 : random.int(50, options.maxLatencyMs));
			report.faults.slowPeriods++;
		} else if (roll < 0.52) {
			// For a while, calls and sent SMS pass through statuses nobody listed (or no longer do).
			control.setUnlistedStatuses(!control.settings().unlistedStatuses);
		} else if (roll < 0.54) {
			const trigger = random.pick(triggers);
			trigger.harness.restart();
			trigger.harness = trigger.build();
			report.restarts.graceful++;
		} else if (roll < 0.58) await poll(random.pick(triggers), { crash: true });
		else await poll(random.pick(triggers), { overlap: random.chance(0.1) });
		await sleep(random.int(0, 40));
	}

	// Quiet: no arrivals, no faults, and what ends is ended now (`endedAt`). From here, what a
	// trigger still owes (a record that qualifies, not emitted, not explained by a documented
	// limit) is owed within a number of polls, not of seconds (docs/guarantees.md, "What is in
	// progress"): a record it tracks in progress is due for a look at most half its age (at least
	// a second, at most an hour) after it was last seen, so by `dueAt`; each poll then looks up
	// the 10 due earliest, and a record looked at after `dueAt` is due again only later, so a
	// record waits at most a poll for every 10 records tracked at `dueAt`. A record on the list
	// is read by the polls after, a few pages each when a budget cuts one short, and one pass
	// over the window after a catch-up. So each trigger that owes records polls, a second apart,
	// until `dueAt`, then at most tracked / 10 + list pages + 3 polls more, and stops as soon as
	// it owes nothing. What it owes after those is lost. (A fixed time is not enough: on a newest-
	// first server, a burst of a few hundred SMS seen in progress is reached only by look-ups,
	// and the six triggers share the key's 600 requests a minute, which holds polls back.)
	control.clearFailures();
	control.setLatency(0);
	for (const rec of records.values())
		if (rec.final === 'yes' && rec.event !== 'smsReceived')
			await control.advance(rec.id, { untilFinal: true }).catch(() => undefined);
	const endedAt = Date.now();
	const owes = (trigger: Trigger) => byEvent[trigger.event].filter((rec) => owed(trigger, rec));
	const quietUntil = endedAt + (options.quietSeconds ?? 240) * 1000;
	/** Per trigger: when every record it tracks is due, and the polls it is owed from then on. */
	const plans = new Map<Trigger, { dueAt: number; polls?: number }>();
	for (const trigger of triggers) {
		const oldest = Math.min(...owes(trigger).map((rec) => rec.time));
		const halfAge = Math.min(
			OUTCOMES.maxRecheckMs,
			Math.max(OUTCOMES.minRecheckMs, (endedAt - oldest) / 2),
		);
		plans.set(trigger, { dueAt: endedAt + halfAge + margin });
	}
	const planOf = (trigger: Trigger) => plans.get(trigger) as { dueAt: number; polls?: number };
	for (;;) {
		const owing = triggers.filter(
			(trigger) => owes(trigger).length > 0 && planOf(trigger).polls !== 0,
		);
		if (owing.length === 0) break;
		if (Date.now() >= quietUntil) {
			say(
				`soak: stopped waiting after ${options.quietSeconds ?? 240} s quiet, with polls still owed to ${owing.map((t) => t.name).join(', ')}`,
			);
			break;
		}
		for (const trigger of owing) {
			const plan = planOf(trigger);
			if (plan.polls === undefined && Date.now() >= plan.dueAt) {
				const tracked = trigger.position()?.tracked.size ?? 0;
				plan.polls =
					Math.ceil(tracked / OUTCOMES.maxLookups) +
					Math.ceil(byEvent[trigger.event].length / PAGE) +
					3;
				if (options.verbose)
					say(
						`soak: ${trigger.name} owes ${owes(trigger).length} records, tracks ${tracked}, all due: at most ${plan.polls} polls more`,
					);
			}
			if ((await poll(trigger)) && plan.polls !== undefined) plan.polls--;
		}
		if (owing.some((trigger) => planOf(trigger).polls === undefined)) await sleep(1000);
	}
	// Then every trigger polls on, a second apart, for a Late Arrival Window from when everything
	// ended, and two rounds more: nothing may be emitted again meanwhile.
	while (Date.now() < endedAt + WINDOW_MS + margin) {
		for (const trigger of triggers) await poll(trigger);
		await sleep(1000);
	}
	for (let round = 0; round < 2; round++) for (const trigger of triggers) await poll(trigger);

	// The accounts.
	for (const trigger of triggers) {
		const tally = trigger.tally;
		for (const rec of byEvent[trigger.event]) {
			tally.records++;
			const times = trigger.emitted.get(rec.id) ?? 0;
			if (rec.time < trigger.baseline) {
				tally.history++;
				if (times > 0) tally.emittedNotQualifying.push(rec.id);
				continue;
			}
			const qualifies = rec.final === 'yes';
			if (qualifies) tally.qualifying++;
			if (times === 1) tally.emittedOnce++;
			if (times > 0 && !qualifies) tally.emittedNotQualifying.push(rec.id);
			if (times > 1) {
				if (trigger.emittedByCrash.has(rec.id) && trigger.path === 'default')
					tally.duplicatedByHardRestart++;
				else tally.unexplainedTwice.push(rec.id);
			}
			if (times === 0 && qualifies) {
				if (trigger.outOfReach.has(rec.id)) tally.outOfReach++;
				else if (trigger.letGoForRoom.has(rec.id)) tally.letGoForRoom++;
				else if (trigger.late.has(rec.id)) tally.late++;
				else tally.unexplainedLost.push(rec.id);
			}
		}
		const tracked = trigger.position()?.tracked ?? new Set<string>();
		tally.lostStillTracked = tally.unexplainedLost.filter((id) => tracked.has(id)).length;
		report.tallies[trigger.name] = tally;
	}
	return report;
}

/** The report as lines: one per trigger. */
export function describeSoak(report: SoakReport): string[] {
	const lines = [
		`soak ${report.seconds} s (seed ${report.seed}, the API's clock ${report.clockSkewMs} ms off n8n's): arrivals ${JSON.stringify(report.arrivals)} (${report.unlisted} calls and sent SMS through statuses nobody listed), ${report.resolvedLate} resolved late, faults ${JSON.stringify(report.faults)}, restarts ${JSON.stringify(report.restarts)}`,
	];
	for (const [name, t] of Object.entries(report.tallies))
		lines.push(
			`${name}: ${t.records} records (${t.history} history), ${t.qualifying} qualifying, ${t.emittedOnce} emitted once; documented: ${t.outOfReach} out of reach, ${t.late} late, ${t.letGoForRoom ? `${t.letGoForRoom} let go for room, ` : ''}${t.duplicatedByHardRestart} twice after a hard restart; unexplained: ${t.unexplainedLost.length} lost${t.lostStillTracked ? ` (${t.lostStillTracked} still tracked in progress)` : ''}, ${t.unexplainedTwice.length} twice, ${t.emittedNotQualifying.length} not qualifying; ${t.polls} polls (${t.failedPolls} failed, ${t.skippedOrFenced} skipped or fenced), ${t.requests} requests (${t.lookups} look-ups), at most ${t.maxRequestsPerPoll} in one poll`,
		);
	return lines;
}
