/**
 * What a refusal (429) teaches the learned limit (learnedLimit.ts says how it learns): the
 * first cut, a longer window, a smaller allowance, the end of probes for more, and the hold of
 * a key whose window someone else filled. Pure.
 */
import { CLOSE, GROWN_KEPT, GROWTH, LimitState, type PlaceCounts, type Ticket } from './limitState';

/**
 * The longest hold of a key refused at its longest window (5 s of a minute): short enough to
 * find room when the others' window turns, long enough not to press a server that refuses.
 */
const STALLED_HOLD = 1 / 12;

/**
 * How often, on average, a key with nothing accepted tries in the last documented window before
 * its requests may fail (retry.ts fails one after two of the longest windows with nothing
 * accepted): a fortieth of the window (1.5 s of a minute, each 0.75 to 2.25 s), under the 1.8 s
 * in which a process refills a window at its turn. (An eightieth also met the moment a process
 * whose learnt window is a little longer than a stricter server's leaves free each cycle, but
 * cost more 429s and time where the window is the documented one, the likelier case.)
 */
const LAST_WINDOW_SPACING = 1 / 40;
const GOLDEN_FRACTION = (Math.sqrt(5) - 1) / 2;

/**
 * A first refusal at an even pace (firstCut): something accepted in the last sixtieth of the
 * documented window before it (a second of a minute); and how much denser than over a window
 * what was accepted must be in a shorter one, at that pace, for the refusal to take the shorter.
 */
const SENDING_ON = 1 / 60;
const DENSER = 1.5;

/** A hold of a sixtieth of `windowMs` (a second of a minute), doubling each try, up to `capMs`. */
function doubling(windowMs: number, tries: number, capMs: number): number {
	return Math.min(capMs, (windowMs / 60) * 2 ** tries);
}

export abstract class LimitRefusals extends LimitState {
	/** Asked again after a long idle spell: no time with nothing accepted, no refusals in a row. */
	afresh(now: number): void {
		this.lastAcceptedAt = now;
		this.emptyRefusals = 0;
		this.emptyWakeAt = -Infinity;
	}

	/**
	 * Allowance probes end (one refused, or the documented limit reached). If they added no
	 * more than a few places, they were tokens a bucket had refilled, not room in a window: the
	 * allowance goes back.
	 */
	protected stopGrowing(now: number, places?: PlaceCounts): number {
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
	protected ungrow(now: number, places: PlaceCounts): number {
		this.allowance = this.grownFrom.allowance;
		this.windowMs = this.grownFrom.windowMs;
		this.grownTrial = 0;
		this.careful = true;
		this.grantsAtCut = this.grants;
		this.allowanceCut = false;
		this.probeRefused(now, 1 + places.inFlight, 'allowance');
		return 0;
	}

	protected cut(now: number): void {
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
	 * (a sixtieth of the documented window), doubling up to the documented window; and one
	 * request a documented window after the first such refusal, if the doubling would wake later:
	 * whatever filled the window then has left it by that moment, so a key that joined a full
	 * window is not left idle up to 30 s after the others finished (the doubling alone woke it at
	 * 1, 3, 7, 15, 31, 63 s). That one refused, the doubling's own wake still holds. Learnt or
	 * not, in the last documented window before its requests may fail, a try every 1.5 s or so
	 * (LAST_WINDOW_SPACING): a process that keeps the window full refills each place the moment
	 * it frees, all within a second or two of each turn, where one try a window seldom lands
	 * (items failed there).
	 */
	protected emptyWindow(now: number): number {
		this.careful = true;
		this.grantsAtCut = this.grants;
		this.allowanceCut = false;
		const { windowMs } = this.documented;
		const quietMs = now - this.lastAcceptedAt;
		const lastFrom = 2 * this.maxWindowMs() - windowMs;
		if (quietMs >= lastFrom && quietMs < lastFrom + windowMs) {
			// Unevenly (half to one and a half times the average, a golden-ratio sequence), so
			// that the tries do not keep one phase of a window turning in a multiple of the spacing
			// (two processes beside one on 64 per 21.5 s got nothing in for 17 minutes).
			const uneven = 0.5 + ((++this.emptyRefusals * GOLDEN_FRACTION) % 1);
			return windowMs * LAST_WINDOW_SPACING * uneven;
		}
		const wake = (): number => {
			// Refused at the turn, before the doubling's next wake: that wake still holds.
			if (now < this.emptyWakeAt) return this.emptyWakeAt - now;
			const tries = this.emptyRefusals++;
			if (tries === 0) this.emptyTurnAt = now + windowMs;
			this.emptyWakeAt = now + doubling(windowMs, tries, windowMs);
			const turnAt = this.emptyTurnAt;
			return (turnAt > now ? Math.min(turnAt, this.emptyWakeAt) : this.emptyWakeAt) - now;
		};
		const holdMs = this.learned
			? Math.min(this.maxWindowMs(), this.windowMs * GROWTH ** this.emptyRefusals++)
			: wake();
		return quietMs < lastFrom ? Math.min(holdMs, lastFrom - quietMs) : holdMs;
	}

	/**
	 * The first refusal: the allowance is what was accepted, the window the documented rate's
	 * (at an even pace of its own, one step of the search at most).
	 */
	protected firstCut(now: number, ticket: Ticket, places: PlaceCounts): number {
		const acceptedWithin = (windowMs: number) =>
			places.acceptedSentIn(ticket.sentAt - windowMs, ticket.sentAt);
		if (acceptedWithin(this.windowMs) === 0) return this.emptyWindow(now);
		let windowMs = this.documented.windowMs;
		// Refused while still sending, at a pace of its own that the documented limit never held
		// back (one request a round trip): below the documented rate, each shorter window holds
		// fewer of its requests in proportion, and taking each as the documented rate's shrank the
		// window to one request a tenth of a second (a lane at 100 ms round trips took 2.7 times
		// the least on a server of 300 a minute).
		this.evenPace = false;
		const ownPace =
			acceptedWithin(windowMs * SENDING_ON) > 0 && this.documentedHeldAt < ticket.sentAt - windowMs;
		for (;;) {
			const count = acceptedWithin(windowMs);
			const next = this.floorMs(count);
			if (next >= windowMs) break;
			// Shorter only if it holds all that was accepted or, at an even pace, a denser share.
			const within = acceptedWithin(next);
			if (ownPace && within < count && within * windowMs < DENSER * count * next) {
				this.evenPace = true;
				break;
			}
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

	/** A trickle refused (limitTrickle.ts): a rate found (one request a window), or a turn (none). */
	protected rateFound(now: number, found?: { windowMs: number; tooShortMs: number }): number {
		this.growth = 'none';
		this.grown = 0;
		if (!found) return 0;
		this.allowance = 1;
		this.windowMs = Math.min(this.maxWindowMs(), Math.max(this.floorMs(1), found.windowMs));
		this.tooShortMs = found.tooShortMs;
		this.settledMs = 0;
		this.confirmed = 1;
		this.cut(now);
		// A rate, not room others left: looking for more waits a quarter window; nothing goes
		// before the server has refilled one.
		this.probes.window.at = now + this.documented.windowMs / 4;
		return this.windowMs;
	}

	/**
	 * A cycle's first request refused: the window is longer than taken. Back to the settled
	 * one if it was shorter than that; else by half while it has not been accepted, by 5% once
	 * it had (a fixed window's turns drifting into the cycle).
	 */
	protected lengthen(now: number, ticket: Ticket, places: PlaceCounts): number {
		if (places.acceptedSentIn(ticket.sentAt - this.maxWindowMs(), ticket.sentAt) === 0)
			return this.emptyWindow(now);
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
		const longest = this.windowMs >= this.maxWindowMs();
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
		if (!longest) return 0;
		// Already at the longest window, nothing longer to learn: others keep the key's window
		// full. Starting again at once was a 429 a round trip (377 in 10 s); the key holds
		// instead, a second, doubling, at most STALLED_HOLD of the documented window, until one
		// is accepted.
		const tries = this.emptyRefusals++;
		return doubling(documentedMs, tries, documentedMs * STALLED_HOLD);
	}

	/** Refused mid-cycle under a window a probe shortened: the probe found a token, not a window. */
	protected revert(now: number): number {
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
	protected heldBefore(ticket: Ticket, places: PlaceCounts): number {
		const windowMs = this.windowMs + this.roundTripMs();
		return places.acceptedSentIn(ticket.sentAt - windowMs, ticket.sentAt);
	}

	/** Whether all but one of the allowance were in the server's window before `ticket`. */
	protected heldAll(ticket: Ticket, places: PlaceCounts): boolean {
		return this.heldBefore(ticket, places) >= this.allowance - 1;
	}

	/**
	 * Refused mid-cycle in the first window after an even-pace first refusal: the rate the server
	 * has let through since that refusal, over the window (one more than it let through, so that
	 * a refusal right after it does not take the key to one). Counting what the window held cut
	 * one a refusal (a bucket letting every other request through took 87 429s to reach its
	 * rate); counting the cycle alone, once a refused cycle start had begun one, cut to one (two
	 * lanes on a bucket of 50 at 2 a second took 2.14 times the least).
	 */
	private evenShare(acceptedSince: number, sinceMs: number): number {
		return Math.max(1, Math.floor(((acceptedSince + 1) * this.windowMs) / sinceMs));
	}

	/** Refused mid-cycle: the allowance is cut to the share the server gave us in the window. */
	protected cutAllowance(now: number, ticket: Ticket, places: PlaceCounts): number {
		const from = ticket.sentAt - this.windowMs - this.roundTripMs();
		const share = this.heldBefore(ticket, places);
		if (share === 0) return this.emptyWindow(now);
		// In the first cycles after the first refusal, what that first burst left in the window
		// is not ours to count: it may have crossed a fixed window's turn, or emptied a bucket.
		const firstBurstIn = from < this.learnedAt;
		const cycle = places.acceptedSentIn(Math.max(from, this.cycleAt - 1e-9), ticket.sentAt);
		const sinceMs = ticket.sentAt - this.learnedAt;
		const cut = !firstBurstIn
			? share
			: this.evenPace && sinceMs > 0
				? this.evenShare(places.acceptedSentIn(this.learnedAt - 1e-9, ticket.sentAt), sinceMs)
				: Math.max(1, cycle);
		this.allowance = Math.max(1, Math.min(this.allowance, cut));
		this.cut(now);
		this.allowanceCut = true;
		return 0;
	}
}
