/**
 * What the learned limit (learnedLimit.ts) knows of a key's server, and the measures it takes
 * of it: the kinds of request it lets through, its tickets, its tunings, and the window and
 * allowance it has learnt with what bounds them; and the places its requests hold in the rate
 * windows (`Places`, below). Pure.
 */

/** How a request was let through. */
export type GrantKind =
	/** Nothing learned yet: under the documented limit only. */
	| 'open'
	/** Under the learned allowance and window. */
	| 'normal'
	/** The first of a cycle: an earlier place freed after a quiet spell. */
	| 'cycleStart'
	/** Sent when a place of a shorter window freed. */
	| 'windowProbe'
	/** One past the allowance. */
	| 'allowanceProbe';

export interface Ticket {
	number: number;
	kind: GrantKind;
	sentAt: number;
	/** The window it was sent under. */
	windowMs: number;
	/** A window probe of the bisection (not one looking for a server that allows more). */
	bisecting?: boolean;
}

/** A request may go, as `kind`, under `windowMs`; or the time until one may. */
export type Decision =
	{ kind: GrantKind; windowMs: number; bisecting?: boolean } | { waitMs: number };

/** What the limiter needs of its places (`Places`, below). */
export interface PlaceCounts {
	inFlight: number;
	count(now: number, windowMs: number): number;
	freesAt(now: number, windowMs: number, allowance: number): number;
	acceptedSentIn(from: number, to: number): number;
}

/** The window grows by a quarter when a cycle's first request is refused (before it was accepted). */
export const GROWTH = 1.25;
/** Bisection stops when the shortest window accepted is within 5% of the longest refused. */
export const CLOSE = 1.05;
/** A cycle starts after a quiet spell of a quarter window. */
export const QUIET = 1 / 4;
/** Cycles a window must see accepted before a cycle's rest follows its first request unasked. */
export const CONFIRM = 2;
/** Allowance probes in flight at once when growing starts. */
export const GROWING_IN_FLIGHT = 2;
/** Places the probes must add before they count as room in the window (fewer: refilled tokens). */
export const GROWN_KEPT = 4;
/** Refused probes allowed per request accepted (at least one). */
export const PROBE_BUDGET = 0.01;
/**
 * A key kept waiting a quarter window or more for a place probes for more once this share of
 * the documented window has passed since the last refused probe (or a cycle of its own has
 * started since), whatever the probes' budget: the other processes sharing the key may have
 * finished, and a window is long to wait. A whole window: so a process alone on a server
 * stricter than documented, which waits that long every cycle, still costs at most one refused
 * probe a window (half a window doubled its probes' 429s).
 */
export const PROBE_AGAIN = 1;
/** Round trips remembered for the documented rate's spacing. */
export const ROUND_TRIPS = 16;
/** The shortest window taken. */
export const MIN_WINDOW_MS = 100;

export abstract class LimitState {
	/** Whether a refusal has taught it anything yet; before, only the documented limit holds. */
	learned = false;
	allowance: number;
	windowMs: number;
	/** The longest window proven too short (0: none). */
	protected tooShortMs = 0;
	/** The last window that saw CONFIRM cycles through, to go back to (0: none). */
	protected settledMs = 0;
	/** Cycle starts (or window probes) accepted at the current window. */
	protected confirmed = 0;
	/** One request at a time until one is accepted. */
	protected careful = false;
	/**
	 * Allowance probes: `checking` once one was accepted (a second goes at once: if it is refused,
	 * the first took a token the server had refilled, not a free place), `growing` once both were
	 * (more go, a few at once, each accepted adding a place). `grown`: places they added.
	 */
	protected growth: 'none' | 'checking' | 'growing' = 'none';
	protected grown = 0;
	protected grownFrom = { allowance: 0, windowMs: 0 };
	/** Cycle starts left before the places probes added count as the server's (a fixed window's turn may have given them). */
	protected grownTrial = 0;
	/** The window before a probe shortened it, until the cycle the probe started is through. */
	protected trialFromMs: number | undefined;
	/** Looking for a shorter window than the settled one: its 429s are the probes'. */
	protected exploring = false;
	protected grants = 0;
	/** Requests granted when the allowance or window was last changed by a refusal. */
	protected grantsAtCut = 0;
	/** Whether that change cut the allowance to what was accepted (not the window). */
	protected allowanceCut = false;
	protected blockedSince: number | undefined;
	/** When the last request that was not a probe went, and when the current cycle started. */
	protected lastSentAt = -Infinity;
	protected cycleAt = -Infinity;
	/** When each kind of probe for more may go next, and how long after a refused one. */
	protected readonly probes: Record<'window' | 'allowance', { at: number; waitMs: number }>;
	protected acceptedCount = 0;
	/** 429s that looking for more cost, and when the last came. */
	protected probeRefusals = 0;
	protected probeRefusedAt = -Infinity;
	/**
	 * Refusals in a row that held the key (nothing of ours in the window, or a cycle refused at
	 * the longest window), when what filled the window at the first has left it (a documented
	 * window on), and when the doubling hold after the last ends.
	 */
	protected emptyRefusals = 0;
	protected emptyTurnAt = 0;
	protected emptyWakeAt = -Infinity;
	/** When the first refusal came, and whether it found an even pace (limitRefusals.ts). */
	protected learnedAt = 0;
	protected evenPace = false;
	/** Round trips (dispatch to answer) of the last accepted requests. */
	protected readonly roundTrips: number[] = [];
	/** Refusals that changed the allowance or window (for tests and benchmarks). */
	cuts = 0;
	/** When a request was last accepted (at first, when the limiter was made). */
	lastAcceptedAt: number;
	/** When the documented limit last held a request back (the key sent as fast as it allows). */
	protected documentedHeldAt = -Infinity;

	constructor(
		protected readonly documented: { perWindow: number; windowMs: number },
		now: number,
	) {
		this.lastAcceptedAt = now;
		this.allowance = documented.perWindow;
		this.windowMs = documented.windowMs;
		const waitMs = this.baseProbeWaitMs();
		this.probes = { window: { at: 0, waitMs }, allowance: { at: 0, waitMs } };
	}

	protected baseProbeWaitMs(): number {
		return this.documented.windowMs / 60;
	}

	/** The longest window it may take: two documented ones. */
	maxWindowMs(): number {
		return 2 * this.documented.windowMs;
	}

	/**
	 * The shortest window it takes for an allowance: never faster than the documented rate. A
	 * window is counted from a request's answer to the next dispatch, so half the round trip (the
	 * shortest lately seen) is part of the documented rate's spacing; the other half is margin.
	 */
	protected floorMs(allowance = this.allowance): number {
		const spacing = (allowance * this.documented.windowMs) / this.documented.perWindow;
		return Math.max(MIN_WINDOW_MS, spacing - this.roundTripMs() / 2);
	}

	/** The most a window may hold: the documented rate over it and half a round trip. */
	protected mostFor(windowMs: number): number {
		const spacing = windowMs + this.roundTripMs() / 2;
		return Math.max(
			1,
			Math.floor((spacing * this.documented.perWindow) / this.documented.windowMs + 1e-9),
		);
	}

	/** The shortest round trip of the last few accepted requests (0 before any). */
	protected roundTripMs(): number {
		return this.roundTrips.length ? Math.min(...this.roundTrips) : 0;
	}

	/** The lower end of the bisection: the longest window refused, or the floor. */
	protected lowMs(): number {
		return Math.max(this.tooShortMs, this.floorMs());
	}

	/**
	 * Whether the window, once accepted, is still further than CLOSE above one refused. (While
	 * it grows after refusals, it has not been accepted yet: no bisection before it is.)
	 */
	protected bisecting(): boolean {
		return this.confirmed > 0 && this.tooShortMs > 0 && this.windowMs / this.lowMs() > CLOSE;
	}

	/** Refused probes stay under 1% of the requests accepted, or one a documented window. */
	protected probeBudgetLeft(now: number): boolean {
		const byTime = (now - this.learnedAt) / this.documented.windowMs;
		return this.probeRefusals < Math.max(1, PROBE_BUDGET * this.acceptedCount, byTime);
	}

	protected probeAccepted(now: number, kind: 'window' | 'allowance'): void {
		const probe = this.probes[kind];
		probe.waitMs = this.baseProbeWaitMs();
		probe.at = now + probe.waitMs;
	}

	/** A probe for more refused: the next of its kind twice as late, at most a twelfth of the documented window. */
	protected probeRefused(now: number, refusals: number, kind: 'window' | 'allowance'): void {
		this.probeRefusals += refusals;
		this.probeRefusedAt = now;
		const probe = this.probes[kind];
		probe.waitMs = Math.min(
			this.documented.windowMs / 12,
			Math.max(this.baseProbeWaitMs(), probe.waitMs * 2),
		);
		probe.at = now + probe.waitMs;
	}

	/** When a key kept waiting may probe for more, its budget spent (see PROBE_AGAIN). */
	protected probeAgainAt(): number {
		return this.probeRefusedAt + this.documented.windowMs * PROBE_AGAIN;
	}

	/** No probe for more before a moment after a refusal. */
	protected holdProbes(now: number): void {
		for (const probe of Object.values(this.probes))
			probe.at = Math.max(probe.at, now + this.baseProbeWaitMs());
	}
}

/*
 * The places a key's requests hold in its rate windows, as this process counts them: a request
 * holds one from the moment it is dispatched until a window after its answer arrived (when the
 * server counted it, it was somewhere in between, so a place freed then can never land in the
 * same server window as the request that held it, whatever the latency). Requests still in
 * flight always count. A refused request holds none: servers do not count what they refuse.
 * Pure: the caller gives the time.
 */
export interface Place {
	/** When it was dispatched, and when its answer came. */
	sentAt: number;
	at: number;
	/** Whether the server accepted it (false: no answer, so it may have counted). */
	accepted: boolean;
}

/** A place frees a millisecond after its window, so that the next request is surely past it. */
const MARGIN_MS = 1;

export class Places {
	inFlight = 0;
	/** Finished requests still inside the longest window counted, oldest answer first. */
	private readonly finished: Place[] = [];

	/** A request answered at `at`: it holds its place from then on, for a window. */
	add(place: Place): void {
		this.finished.push(place);
	}

	/** Forgets answers older than `horizonMs` before `now` (no window counted is longer). */
	prune(now: number, horizonMs: number): void {
		let drop = 0;
		while (drop < this.finished.length && this.finished[drop].at + horizonMs <= now) drop++;
		if (drop) this.finished.splice(0, drop);
	}

	/** Index of the first answer inside the window of `windowMs` ending at `now`. */
	private firstInside(now: number, windowMs: number): number {
		let lo = 0;
		let hi = this.finished.length;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			// The same sum as freesAt's, so that both agree to the last bit.
			if (this.finished[mid].at + windowMs + MARGIN_MS <= now) lo = mid + 1;
			else hi = mid;
		}
		return lo;
	}

	/** Places held in the window of `windowMs` ending at `now`, those in flight included. */
	count(now: number, windowMs: number): number {
		return this.inFlight + this.finished.length - this.firstInside(now, windowMs);
	}

	/**
	 * When fewer than `allowance` places are held in a window of `windowMs`, if no request is
	 * granted meanwhile: `now` if already, Infinity if only a request in flight can free one.
	 */
	freesAt(now: number, windowMs: number, allowance: number): number {
		const first = this.firstInside(now, windowMs);
		const over = this.inFlight + this.finished.length - first - allowance;
		if (over < 0) return now;
		const index = first + over;
		return index < this.finished.length ? this.finished[index].at + windowMs + MARGIN_MS : Infinity;
	}

	/** Accepted requests dispatched in (from, to]. */
	acceptedSentIn(from: number, to: number): number {
		let count = 0;
		for (const place of this.finished)
			if (place.accepted && place.sentAt > from && place.sentAt <= to) count++;
		return count;
	}
}
