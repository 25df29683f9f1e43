/**
 * What a key's server really allows, learned from what it does with our requests, with no
 * header to say it and no Retry-After: the API documents a limit (600 a minute), the server may
 * enforce it over a shorter window, a token bucket, a stricter or looser limit, or share it with
 * other processes on the key. Pure: the limiter (pacing.ts) gives the time and its places.
 *
 * The model is a sliding window of its own: at most `allowance` requests in any `windowMs`
 * (the places of places.ts), under the documented limit, which is never exceeded. Sending
 * `allowance` at once and each further one as an earlier one's place frees is the fastest any
 * of those servers allows once the window and the allowance are right: a sliding window of
 * that size and length, a fixed one (the sends fall just after its turns), a token bucket (a
 * burst of its size, then its rate).
 *
 * - **First refusal.** The requests accepted before it are the allowance, and the window is
 *   first taken as the one over which that many would be the documented rate (4 s for 40 at
 *   600 a minute, less half a round trip, as the window runs from answer to dispatch): a server
 *   enforcing the documented rate over a shorter window is right at once. Never shorter: the
 *   pacer never goes faster than the documented rate over the window it learnt.
 * - **A cycle's first request refused** (sent when an earlier place freed, after a quiet spell),
 *   or one refused alone right after a cut: the window is longer. By a quarter while it has not
 *   been accepted, by 5% once it had (a fixed window's turn drifting into the cycle), back to the
 *   last settled one if shorter; with half the documented limit or more, or once it would reach
 *   three quarters of the documented window, the documented window next (other processes share
 *   it, and only there does the allowance grow when they leave room). One request at a time
 *   until a cycle's first is accepted.
 * - **Bisection.** Between the longest window refused and the shortest accepted, probes (a
 *   cycle's first request, sent when a place of the window in between frees), until they are
 *   within 5%; the shorter window a probe found goes back if its cycle is refused midway.
 * - **Any other refusal** (mid-cycle: a token bucket ran dry, another process took part of the
 *   window): the allowance is cut to what the server had of ours in the window (the share; in
 *   the first cycles, what this cycle got, as the first burst may have crossed a fixed window's
 *   turn). A refusal with nothing of ours in the window (someone else's) holds the key, longer
 *   each time; a single refusal at a window that has held for cycles lengthens it by 5%.
 * - **Probes for more** (no ratchet that only goes down): in the documented window, one request
 *   past the allowance, and a second at once; both accepted, more follow, doubling, until one is
 *   refused (a few only: refilled tokens, not room; they go back); in a shorter window, one
 *   request a little before the window frees (accepted: bisection resumes, down to the
 *   documented rate). The next of each twice as late after a refused one (1 s, at most 5 s), and
 *   the 429s they cost under 1% of the requests accepted, or one a documented window.
 * - After any refusal, and for a window's first two cycles, a cycle's first request goes alone:
 *   a refusal then costs one 429, not every request in flight.
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

/** What the limiter needs of its places (places.ts). */
export interface PlaceCounts {
	inFlight: number;
	count(now: number, windowMs: number): number;
	freesAt(now: number, windowMs: number, allowance: number): number;
	acceptedSentIn(from: number, to: number): number;
}

/** The window grows by half when a cycle's first request is refused. */
const GROWTH = 1.25;
/** Bisection stops when the shortest window accepted is within 5% of the longest refused. */
const CLOSE = 1.05;
/** A cycle starts after a quiet spell of a quarter window. */
const QUIET = 1 / 4;
/** Cycles a window must see accepted before a cycle's rest follows its first request unasked. */
const CONFIRM = 2;
/** Allowance probes in flight at once when growing starts. */
const GROWING_IN_FLIGHT = 2;
/** Places the probes must add before they count as room in the window (fewer: refilled tokens). */
const GROWN_KEPT = 4;
/** Refused probes allowed per request accepted (at least one). */
const PROBE_BUDGET = 0.01;
/** Round trips remembered for the documented rate's spacing. */
const ROUND_TRIPS = 16;
/** The shortest window taken. */
const MIN_WINDOW_MS = 100;

export class LearnedLimit {
	/** Whether a refusal has taught it anything yet; before, only the documented limit holds. */
	learned = false;
	allowance: number;
	windowMs: number;
	/** The longest window proven too short (0: none). */
	private tooShortMs = 0;
	/** The last window that saw CONFIRM cycles through, to go back to (0: none). */
	private settledMs = 0;
	/** Cycle starts (or window probes) accepted at the current window. */
	private confirmed = 0;
	/** One request at a time until one is accepted. */
	private careful = false;
	/**
	 * Allowance probes: `checking` once one was accepted (a second goes at once: if it is refused,
	 * the first took a token the server had refilled, not a free place), `growing` once both were
	 * (more go, a few at once, each accepted adding a place). `grown`: places they added.
	 */
	private growth: 'none' | 'checking' | 'growing' = 'none';
	private grown = 0;
	private grownFrom = { allowance: 0, windowMs: 0 };
	/** Cycle starts left before the places probes added count as the server's (a fixed window's turn may have given them). */
	private grownTrial = 0;
	/** The window before a probe shortened it, until the cycle the probe started is through. */
	private trialFromMs: number | undefined;
	/** Looking for a shorter window than the settled one: its 429s are the probes'. */
	private exploring = false;
	private grants = 0;
	/** Requests granted when the allowance or window was last changed by a refusal. */
	private grantsAtCut = 0;
	/** Whether that change cut the allowance to what was accepted (not the window). */
	private allowanceCut = false;
	private blockedSince: number | undefined;
	/** When the last request that was not a probe went, and when the current cycle started. */
	private lastSentAt = -Infinity;
	private cycleAt = -Infinity;
	/** When each kind of probe for more may go next, and how long after a refused one. */
	private readonly probes: Record<'window' | 'allowance', { at: number; waitMs: number }>;
	private acceptedCount = 0;
	/** 429s that looking for more cost. */
	private probeRefusals = 0;
	private emptyRefusals = 0;
	/** When the first refusal came. */
	private learnedAt = 0;
	/** Round trips (dispatch to answer) of the last accepted requests. */
	private readonly roundTrips: number[] = [];
	/** Refusals that changed the allowance or window (for tests and benchmarks). */
	cuts = 0;
	/** When a request was last accepted (at first, when the limiter was made). */
	lastAcceptedAt: number;

	constructor(
		private readonly documented: { perWindow: number; windowMs: number },
		now: number,
	) {
		this.lastAcceptedAt = now;
		this.allowance = documented.perWindow;
		this.windowMs = documented.windowMs;
		const waitMs = this.baseProbeWaitMs();
		this.probes = { window: { at: 0, waitMs }, allowance: { at: 0, waitMs } };
	}

	private baseProbeWaitMs(): number {
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
	private floorMs(allowance = this.allowance): number {
		const spacing = (allowance * this.documented.windowMs) / this.documented.perWindow;
		return Math.max(MIN_WINDOW_MS, spacing - this.roundTripMs() / 2);
	}

	/** The most a window may hold: the documented rate over it and half a round trip. */
	private mostFor(windowMs: number): number {
		const spacing = windowMs + this.roundTripMs() / 2;
		return Math.max(
			1,
			Math.floor((spacing * this.documented.perWindow) / this.documented.windowMs + 1e-9),
		);
	}

	/** The shortest round trip of the last few accepted requests (0 before any). */
	private roundTripMs(): number {
		return this.roundTrips.length ? Math.min(...this.roundTrips) : 0;
	}

	/** The lower end of the bisection: the longest window refused, or the floor. */
	private lowMs(): number {
		return Math.max(this.tooShortMs, this.floorMs());
	}

	/**
	 * Whether the window, once accepted, is still further than CLOSE above one refused. (While
	 * it grows after refusals, it has not been accepted yet: no bisection before it is.)
	 */
	private bisecting(): boolean {
		return this.confirmed > 0 && this.tooShortMs > 0 && this.windowMs / this.lowMs() > CLOSE;
	}

	/** Refused probes stay under 1% of the requests accepted, or one a documented window. */
	private probeBudgetLeft(now: number): boolean {
		const byTime = (now - this.learnedAt) / this.documented.windowMs;
		return this.probeRefusals < Math.max(1, PROBE_BUDGET * this.acceptedCount, byTime);
	}

	/** Whether a request may go now under what was learned, and as what; else how long to wait. */
	decide(now: number, places: PlaceCounts): Decision {
		// After a refusal, one request at a time until one is accepted: also before anything was
		// learnt (a window another process filled), so a hold's end costs one 429, not a lane each.
		if (this.careful && places.inFlight > 0) return { waitMs: Infinity };
		if (!this.learned) return { kind: 'open', windowMs: this.windowMs };
		const windowMs = this.windowMs;
		if (places.count(now, windowMs) < this.allowance) {
			const cycleStart =
				this.blockedSince !== undefined && now - this.blockedSince >= windowMs * QUIET;
			// An unconfirmed window's cycle starts alone: if it is refused, only it is.
			if (cycleStart && this.confirmed < CONFIRM && places.inFlight > 0)
				return { waitMs: Infinity };
			return { kind: cycleStart ? 'cycleStart' : 'normal', windowMs };
		}
		this.blockedSince ??= now;
		const frees = places.freesAt(now, windowMs, this.allowance);
		// Growing: one more past the allowance for each accepted, as many in flight as were
		// accepted (so they double each round trip, from two).
		if (this.growth === 'growing')
			return places.inFlight < Math.max(GROWING_IN_FLIGHT, this.grown)
				? { kind: 'allowanceProbe', windowMs }
				: { waitMs: frees - now };
		// Probes go alone, so that what the server makes of them is theirs.
		if (places.inFlight > 0) return { waitMs: frees - now };
		if (this.growth === 'checking') return { kind: 'allowanceProbe', windowMs };
		const bisecting = this.bisecting();
		const free = this.probeBudgetLeft(now) && this.trialFromMs === undefined;
		const { window, allowance } = this.probes;
		let wake = Infinity;
		for (const { at } of [window, allowance]) if (at > now) wake = Math.min(wake, at);
		const shorter = windowMs > this.floorMs() * CLOSE;
		if ((bisecting || (free && now >= window.at && shorter)) && frees < Infinity) {
			// A window probe is the first request of a cycle, sent when the previous cycle's first
			// place leaves a shorter window: it tests the window from that place's answer to now.
			const targetMs = bisecting
				? Math.sqrt(this.lowMs() * windowMs)
				: Math.max(this.floorMs(), windowMs / CLOSE);
			const at = Math.max(this.lastSentAt + windowMs * QUIET, frees - windowMs + targetMs);
			const probeMs = windowMs - (frees - now);
			if (at > now) wake = Math.min(wake, at);
			// Too late in this cycle to test much: the next cycle's.
			else if (probeMs < windowMs / Math.sqrt(CLOSE))
				return { kind: 'windowProbe', windowMs: probeMs, bisecting };
		}
		// More places are looked for in the documented window only (other processes' shares of
		// it); a shorter window gives more by shortening, which window probes find.
		const shares = windowMs * CLOSE > this.documented.windowMs;
		if (free && shares && now >= allowance.at && frees - now >= windowMs * QUIET)
			return { kind: 'allowanceProbe', windowMs };
		return { waitMs: Math.min(frees, wake) - now };
	}

	/** A request goes: its ticket, for `ended`. */
	granted(now: number, grant: { kind: GrantKind; windowMs: number; bisecting?: boolean }): Ticket {
		const { kind } = grant;
		if (kind !== 'windowProbe' && kind !== 'allowanceProbe') {
			// A probe leaves the cycle as it was: the next place freed still starts one.
			this.blockedSince = undefined;
			if (kind === 'cycleStart' || now - this.lastSentAt > this.windowMs) this.cycleAt = now;
			this.lastSentAt = now;
		}
		if (kind === 'cycleStart') {
			if (this.grownTrial > 0) this.grownTrial--;
			// The window a probe shortened saw its cycle through.
			this.trialFromMs = undefined;
			if (this.confirmed < CONFIRM) this.careful = true;
		}
		return { ...grant, number: ++this.grants, sentAt: now };
	}

	/**
	 * What the server made of a request. Returns how long the key must pause (a refusal with
	 * nothing of ours in the window), or 0.
	 */
	ended(
		ticket: Ticket,
		result: 'accepted' | 'rateLimited',
		now: number,
		places: PlaceCounts,
	): number {
		if (result === 'accepted') {
			this.accepted(ticket, now);
			return 0;
		}
		// Sent before the last cut: the cut already accounts for it.
		if (ticket.number <= this.grantsAtCut) return 0;
		if (this.growth !== 'none' && ticket.kind !== 'allowanceProbe') {
			// Growing when the server refused something else: the growth ends first.
			if (this.grown <= GROWN_KEPT) this.grownTrial = 1;
			this.growth = 'none';
			this.grown = 0;
		}
		switch (ticket.kind) {
			case 'windowProbe':
				this.tooShortMs = Math.max(this.tooShortMs, ticket.windowMs);
				if (!ticket.bisecting || this.exploring) this.probeRefused(now, 1, 'window');
				return 0;
			case 'allowanceProbe':
				return this.stopGrowing(now, places);
			case 'cycleStart':
				if (this.grownTrial > 0) return this.ungrow(now, places);
				return this.lengthen(now, ticket, places);
			case 'open':
				return this.firstCut(now, ticket, places);
			case 'normal':
				if (this.exploring) this.probeRefused(now, 1 + places.inFlight, 'window');
				if (this.trialFromMs !== undefined && ticket.windowMs === this.windowMs)
					return this.revert(now);
				if (this.grownTrial > 0) return this.ungrow(now, places);
				// Refused again, alone, after a cut, when a place freed; or once, at a window that
				// has held for cycles, with all but a place of the allowance still ours in it (a turn
				// a little early): the window is longer. Else the server gives us less: a cut.
				if (this.careful || (this.confirmed >= CONFIRM && this.heldAll(ticket, places)))
					return this.lengthen(now, ticket, places);
				return this.cutAllowance(now, ticket, places);
		}
	}

	private accepted(ticket: Ticket, now: number): void {
		this.lastAcceptedAt = now;
		this.acceptedCount++;
		this.emptyRefusals = 0;
		this.roundTrips.push(now - ticket.sentAt);
		if (this.roundTrips.length > ROUND_TRIPS) this.roundTrips.shift();
		const ceiling = this.documented.perWindow;
		if (ticket.number <= this.grantsAtCut) {
			// In flight when the allowance was cut to what the server had accepted: the server
			// counted it before it was full, so it is part of the share.
			if (this.allowanceCut && (ticket.kind === 'normal' || ticket.kind === 'open'))
				this.allowance = Math.min(ceiling, this.allowance + 1);
			return;
		}
		this.careful = false;
		switch (ticket.kind) {
			case 'cycleStart':
				if (ticket.windowMs !== this.windowMs) return;
				this.confirmed++;
				if (this.confirmed >= CONFIRM && !this.bisecting()) {
					this.settledMs = this.windowMs;
					this.exploring = false;
				}
				return;
			case 'windowProbe':
				if (ticket.windowMs >= this.windowMs) return;
				// It started this cycle, under the window it tested, on trial until the cycle is through.
				this.blockedSince = undefined;
				this.lastSentAt = Math.max(this.lastSentAt, ticket.sentAt);
				this.cycleAt = Math.max(this.cycleAt, ticket.sentAt);
				this.trialFromMs = this.windowMs;
				this.windowMs = ticket.windowMs;
				this.confirmed = 1;
				if (!ticket.bisecting) {
					// Past what was settled: the server may allow more now; search down to the
					// documented rate (bisection from there halves the gap each cycle).
					this.tooShortMs = this.floorMs();
					this.exploring = true;
					this.probeAccepted(now, 'window');
				}
				return;
			case 'allowanceProbe': {
				this.grown++;
				if (this.growth === 'none') {
					this.growth = 'checking';
					this.grownFrom = { allowance: this.allowance, windowMs: this.windowMs };
				} else if (this.growth === 'checking') this.growth = 'growing';
				// Never past the documented rate over the window: the allowance stops there.
				const most = Math.min(ceiling, this.mostFor(this.windowMs));
				if (this.growth === 'growing')
					this.allowance = Math.min(most, this.allowance + (this.grown === 2 ? 2 : 1));
				if (this.allowance >= most) this.stopGrowing(now);
				return;
			}
			case 'normal':
			case 'open':
				return;
		}
	}

	/**
	 * Allowance probes end (one refused, or the documented limit reached). If they added no
	 * more than a few places, they were tokens a bucket had refilled, not room in a window: the
	 * allowance goes back.
	 */
	private stopGrowing(now: number, places?: PlaceCounts): number {
		const grown = this.grown;
		const refused = places !== undefined;
		const kept = !refused || grown > GROWN_KEPT;
		if (!kept && this.growth === 'growing') {
			this.allowance = this.grownFrom.allowance;
			this.windowMs = this.grownFrom.windowMs;
		}
		this.growth = 'none';
		this.grown = 0;
		if (kept) {
			// The probes still in flight are refused too: the growth is over either way.
			this.grantsAtCut = this.grants;
			this.allowanceCut = false;
			if (refused) this.grownTrial = 2;
			this.probeAccepted(now, 'allowance');
			return 0;
		}
		// The probes still in flight are likely refused too.
		this.grantsAtCut = this.grants;
		this.allowanceCut = false;
		this.probeRefused(now, 1 + places.inFlight, 'allowance');
		return 0;
	}

	/** Refused in the cycles after the probes grew the allowance: they had found a turn, not room. */
	private ungrow(now: number, places: PlaceCounts): number {
		this.allowance = this.grownFrom.allowance;
		this.windowMs = this.grownFrom.windowMs;
		this.grownTrial = 0;
		this.careful = true;
		this.grantsAtCut = this.grants;
		this.allowanceCut = false;
		this.probeRefused(now, 1 + places.inFlight, 'allowance');
		return 0;
	}

	private probeAccepted(now: number, kind: 'window' | 'allowance'): void {
		const probe = this.probes[kind];
		probe.waitMs = this.baseProbeWaitMs();
		probe.at = now + probe.waitMs;
	}

	/** A probe for more refused: the next of its kind twice as late, at most a twelfth of the documented window. */
	private probeRefused(now: number, refusals: number, kind: 'window' | 'allowance'): void {
		this.probeRefusals += refusals;
		const probe = this.probes[kind];
		probe.waitMs = Math.min(
			this.documented.windowMs / 12,
			Math.max(this.baseProbeWaitMs(), probe.waitMs * 2),
		);
		probe.at = now + probe.waitMs;
	}

	/** No probe for more before a moment after a refusal. */
	private holdProbes(now: number): void {
		for (const probe of Object.values(this.probes))
			probe.at = Math.max(probe.at, now + this.baseProbeWaitMs());
	}

	private cut(now: number): void {
		this.cuts++;
		this.careful = true;
		this.growth = 'none';
		this.grown = 0;
		this.grownTrial = 0;
		this.grantsAtCut = this.grants;
		this.allowanceCut = false;
		this.holdProbes(now);
	}

	/**
	 * A refusal with nothing of ours accepted in the window (another process filled it): hold
	 * the key, longer each time: a learnt window, growing; before anything was learnt, a second
	 * (a sixtieth of the documented window), doubling up to the documented window.
	 */
	private emptyWindow(): number {
		this.careful = true;
		this.grantsAtCut = this.grants;
		this.allowanceCut = false;
		const tries = this.emptyRefusals++;
		if (!this.learned)
			return Math.min(this.documented.windowMs, (this.documented.windowMs / 60) * 2 ** tries);
		return Math.min(this.maxWindowMs(), this.windowMs * GROWTH ** tries);
	}

	/** The first refusal: the allowance is what was accepted, the window the documented rate's. */
	private firstCut(now: number, ticket: Ticket, places: PlaceCounts): number {
		const acceptedWithin = (windowMs: number) =>
			places.acceptedSentIn(ticket.sentAt - windowMs, ticket.sentAt);
		if (acceptedWithin(this.windowMs) === 0) return this.emptyWindow();
		let windowMs = this.documented.windowMs;
		for (;;) {
			const next = this.floorMs(acceptedWithin(windowMs));
			if (next >= windowMs) break;
			windowMs = next;
		}
		this.learned = true;
		this.learnedAt = now;
		this.windowMs = windowMs;
		this.allowance = Math.max(1, acceptedWithin(windowMs));
		this.tooShortMs = 0;
		this.settledMs = 0;
		this.confirmed = 0;
		this.cut(now);
		this.allowanceCut = true;
		return 0;
	}

	/**
	 * A cycle's first request refused: the window is longer than taken. Back to the settled
	 * one if it was shorter than that; else by half while it has not been accepted, by 5% once
	 * it had (a fixed window's turns drifting into the cycle).
	 */
	private lengthen(now: number, ticket: Ticket, places: PlaceCounts): number {
		if (places.acceptedSentIn(ticket.sentAt - this.maxWindowMs(), ticket.sentAt) === 0)
			return this.emptyWindow();
		if (this.exploring) this.probeRefused(now, 1, 'window');
		const documentedMs = this.documented.windowMs;
		this.tooShortMs = Math.max(this.tooShortMs, this.windowMs);
		const longer = this.windowMs * (this.confirmed > 0 ? CLOSE : GROWTH);
		// With half the documented limit or more, or a window near the documented one, the
		// documented window next: the likeliest reason is other processes sharing it (a worker
		// that learnt a small share late would otherwise keep it in a window of 46 s, where its
		// allowance never grows, long after the others finished).
		const shared = 2 * this.allowance >= this.documented.perWindow;
		const documented =
			this.windowMs < documentedMs &&
			(longer * CLOSE > documentedMs || shared || longer * 4 >= documentedMs * 3);
		this.windowMs =
			this.settledMs > this.windowMs
				? this.settledMs
				: documented
					? documentedMs
					: Math.min(this.maxWindowMs(), longer);
		this.confirmed = 0;
		this.trialFromMs = undefined;
		this.cut(now);
		// The next request starts the cycle again.
		this.blockedSince = -Infinity;
		return 0;
	}

	/** Refused mid-cycle under a window a probe shortened: the probe found a token, not a window. */
	private revert(now: number): number {
		this.tooShortMs = Math.max(this.tooShortMs, this.windowMs);
		this.windowMs = this.trialFromMs!;
		this.trialFromMs = undefined;
		this.careful = true;
		this.grantsAtCut = this.grants;
		this.allowanceCut = false;
		this.holdProbes(now);
		return 0;
	}

	/**
	 * The requests of ours the server had in its window when it refused `ticket`: those accepted
	 * and sent within a window and a round trip before it (the window runs from answer to send).
	 */
	private heldBefore(ticket: Ticket, places: PlaceCounts): number {
		const windowMs = this.windowMs + this.roundTripMs();
		return places.acceptedSentIn(ticket.sentAt - windowMs, ticket.sentAt);
	}

	/** Whether all but one of the allowance were in the server's window before `ticket`. */
	private heldAll(ticket: Ticket, places: PlaceCounts): boolean {
		return this.heldBefore(ticket, places) >= this.allowance - 1;
	}

	/** Refused mid-cycle: the allowance is cut to the share the server gave us in the window. */
	private cutAllowance(now: number, ticket: Ticket, places: PlaceCounts): number {
		const from = ticket.sentAt - this.windowMs - this.roundTripMs();
		const share = this.heldBefore(ticket, places);
		if (share === 0) return this.emptyWindow();
		// In the first cycles after the first refusal, what that first burst left in the window
		// is not ours to count: it may have crossed a fixed window's turn, or emptied a bucket.
		const firstBurstIn = from < this.learnedAt;
		const cycle = places.acceptedSentIn(Math.max(from, this.cycleAt - 1e-9), ticket.sentAt);
		const cut = firstBurstIn ? Math.max(1, cycle) : share;
		this.allowance = Math.max(1, Math.min(this.allowance, cut));
		this.cut(now);
		this.allowanceCut = true;
		return 0;
	}
}
