/**
 * What a key's server really allows, learned from what it does with our requests, with no
 * header to say it and no Retry-After: the API documents a limit (600 a minute), the server may
 * enforce it over a shorter window, a token bucket, a stricter or looser limit, or share it with
 * other processes on the key. Pure: the limiter (pacing.ts) gives the time and its places.
 *
 * The model is a sliding window of its own: at most `allowance` requests in any `windowMs`
 * (the places of limitState.ts), under the documented limit, which is never exceeded. Sending
 * `allowance` at once and each further one as an earlier one's place frees is the fastest any
 * of those servers allows once the window and the allowance are right: a sliding window of
 * that size and length, a fixed one (the sends fall just after its turns), a token bucket (a
 * burst of its size, then its rate).
 *
 * - **First refusal.** What was accepted before it is the allowance, over the window at which
 *   that is the documented rate (4 s for 40 at 600 a minute, less half a round trip: a window
 *   runs from answer to dispatch), never shorter. A key refused while still sending evenly at a
 *   pace of its own (one request a round trip) takes one step of that search at most (each
 *   shorter window holds fewer of such requests in proportion: the search shrank to one request
 *   a tenth of a second); refused mid-cycle in the window after, it keeps the rate let through.
 * - **A cycle's first request refused** (sent when an earlier place freed, after a quiet spell),
 *   or one refused alone right after a cut: the window is longer. By a quarter until accepted,
 *   by 5% once it had been (a fixed window's turn drifting into the cycle), or back to the last
 *   settled one if shorter; with half the documented limit or more, or from three quarters of
 *   the documented window, the documented window next (others share it; only there does the
 *   allowance grow). At the longest window (two documented ones), the key holds between tries,
 *   a second, doubling, up to 5 s.
 * - **Bisection.** Between the longest window refused and the shortest accepted, probes (a
 *   cycle's first request, sent when a place of the window in between frees), until they are
 *   within 5%; the shorter window a probe found goes back if its cycle is refused midway.
 * - **Any other refusal** (mid-cycle: a bucket ran dry, another process took part of the
 *   window): the allowance is cut to what the server had of ours in the window (in the first
 *   cycles, what this cycle got); with none of ours there, the key holds, longer each time (see
 *   emptyWindow); refused alone at a window held for cycles, all but a place of the allowance
 *   ours in it (a turn a little early), the window is longer instead.
 * - **Probes for more** (no ratchet that only goes down): in the documented window, one request
 *   past the allowance, and a second at once; both accepted, more follow, doubling, until one is
 *   refused (a few only: refilled tokens, not room; they go back, and a key of a few places then
 *   looks by a window probe: a pair meets one token at a time); in a shorter window, one request
 *   a little before the window frees (accepted: bisection resumes, down to the documented rate).
 *   Each kind twice as late after a refused one (1 s to 5 s), their 429s under 1% of those
 *   accepted or one a documented window; a key kept waiting a quarter window or more probes
 *   anyway once a cycle of its own began since the last refused probe, or a window after it.
 * - **A rate** (limitTrickle.ts): at a long window already at the documented rate for its
 *   allowance, a probe a cycle looks for a rate the window does not hold (a token bucket's, after
 *   its burst), and trickles at it while the key waits; one request in its spacing if refused.
 * - After any refusal, and for a window's first two cycles, a cycle's first request goes alone:
 *   a refusal then costs one 429, not every request in flight.
 */

import { LimitRefusals } from './limitRefusals';
import { LimitTrickle } from './limitTrickle';
import {
	CONFIRM,
	CLOSE,
	type Decision,
	type GrantKind,
	GROWING_IN_FLIGHT,
	GROWN_KEPT,
	type PlaceCounts,
	QUIET,
	ROUND_TRIPS,
	type Ticket,
} from './limitState';

export class LearnedLimit extends LimitRefusals {
	private readonly trickle = new LimitTrickle(this.documented);
	/** The last probes for more were refused having added a few places at most (tokens, not room). */
	private tokenOnly = false;

	/** The documented limit held a request back now (pacing.ts): the key is not at a pace of its own. */
	heldByDocumented(now: number): void {
		this.documentedHeldAt = now;
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
		// A long window it can neither shorten nor grow: a rate it does not hold (limitTrickle.ts).
		const rate =
			this.trickle.fits(windowMs, this.floorMs()) &&
			this.allowance >= Math.min(this.documented.perWindow, this.mostFor(windowMs));
		if (rate && frees - now >= windowMs * QUIET && this.trialFromMs === undefined) {
			const at = this.trickle.nextAt(this.cycleAt, windowMs, allowance.at, free);
			if (now >= at) {
				this.trickle.sent(this.cycleAt);
				return { kind: 'allowanceProbe', windowMs };
			}
			wake = Math.min(wake, at);
		}
		if (shares && frees - now >= windowMs * QUIET && this.trialFromMs === undefined) {
			// A long wait: one goes anyway, whatever the budget, once a cycle of its own has started
			// since the last refused probe (at most one refused a cycle: a key learning its share
			// while a window full of others' requests turned spent its budget there, and crawled
			// at that share for minutes after they finished), or, unless bisecting, a while after
			// (the others may have finished; the budget alone once left a key idle 58 s).
			const again =
				this.cycleAt > this.probeRefusedAt
					? this.cycleAt
					: bisecting
						? Infinity
						: this.probeAgainAt();
			// A few places, probes for more refused having added a few (tokens): a window probe looks
			// instead (pairs a minute kept a key alone on 3 a second at a request a minute).
			const single = !bisecting && this.tokenOnly && this.allowance <= GROWN_KEPT && shorter;
			const at = single ? Math.max(window.at, frees - windowMs + this.floorMs()) : allowance.at;
			if ((free || now >= again) && now >= at)
				return single
					? { kind: 'windowProbe', windowMs: windowMs - (frees - now) }
					: { kind: 'allowanceProbe', windowMs };
			for (const time of [at, again]) if (time > now) wake = Math.min(wake, time);
		}
		return { waitMs: Math.min(frees, wake) - now };
	}

	/** A request goes: its ticket, for `ended`. */
	granted(now: number, grant: { kind: GrantKind; windowMs: number; bisecting?: boolean }): Ticket {
		const { kind } = grant;
		if (kind !== 'windowProbe' && kind !== 'allowanceProbe') {
			// A probe leaves the cycle as it was: the next place freed still starts one.
			this.blockedSince = undefined;
			if (kind === 'cycleStart' || now - this.lastSentAt > this.windowMs) {
				this.cycleAt = now;
				this.trickle.end(); // a trickle is its wait's: a new cycle looks for the rate again
			}
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
		if (ticket.kind === 'allowanceProbe' && this.trickle.spacingMs)
			return this.rateFound(now, this.trickle.refusedAt(now, this.allowance));
		if (ticket.kind !== 'allowanceProbe') this.trickle.end();
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
				this.tokenOnly = this.grown > 0 && this.grown <= GROWN_KEPT;
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
		this.emptyWakeAt = -Infinity;
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
				if (this.allowance >= most) {
					// At a rate window, the first probe let through starts a trickle, or goes on with it.
					const { probes, trickle } = this;
					const trickles = this.grown === 1 && trickle.fits(this.windowMs, this.floorMs());
					this.stopGrowing(now);
					if (trickles) probes.allowance.waitMs = trickle.acceptedAt(now, probes.allowance.waitMs);
					if (trickles) probes.allowance.at = now + probes.allowance.waitMs;
				}
				return;
			}
			case 'normal':
			case 'open':
				return;
		}
	}
}
