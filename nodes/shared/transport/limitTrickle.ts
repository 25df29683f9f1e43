/**
 * A rate the learned window cannot hold (learnedLimit.ts): a key whose allowance is already the
 * documented rate over a long window it can neither shorten nor grow waits out that window,
 * and a server that refills at a rate of its own (a token bucket, after the burst that taught
 * the window) lets more through meanwhile: 600 SMS to a bucket of 500 at 5 a second took 2.6
 * times the least, the last 100 waiting 50 s for the burst's window. So, once a cycle, a probe
 * looks for that rate, and while it is let through, one request at a time goes, twice as soon
 * after each accepted (never faster than the documented rate), until one is refused. Refused
 * after a quarter of the allowance or more went at the documented rate, those were a window's
 * turn (a fixed window, or a sliding one freeing): what was learnt stands. Else the key takes
 * one request in the spacing the trickle had on average (at least twice the refused one), a
 * window the bisection narrows. Pure: the learned limit gives the time.
 */

import { CLOSE } from './limitState';

/** A rate is looked for in windows this share of the documented one or longer. */
const LONG_WINDOW = 1 / 4;
/** Accepted at the documented rate, this share of the allowance or more: a window's turn. */
const TURN = 1 / 4;
/**
 * The probe goes this far into a cycle (a thirtieth of the documented window: 2 s of a minute),
 * or an eighth of a shorter window: soon enough that a short run gains, late enough that a
 * bucket has refilled one, not so late that what it saved looks like a turn.
 */
const PROBE_AFTER = 1 / 30;

export class LimitTrickle {
	/** The spacing of the trickle (0: none). */
	spacingMs = 0;
	private fromAt = 0;
	private accepted = 0;
	private atRate = 0;
	/** The cycle whose probe went. */
	private probedCycleAt = -Infinity;

	constructor(private readonly documented: { perWindow: number; windowMs: number }) {}

	private get rateMs(): number {
		return this.documented.windowMs / this.documented.perWindow;
	}

	/**
	 * Whether a window of `windowMs` is one to look for a rate in: long, shorter than the
	 * documented one (where more is looked for as other processes' room), and no longer than
	 * `floorMs`, the documented rate's for its allowance (so it can neither shorten nor grow).
	 */
	fits(windowMs: number, floorMs: number): boolean {
		const documentedMs = this.documented.windowMs;
		return (
			windowMs >= documentedMs * LONG_WINDOW &&
			windowMs * CLOSE <= documentedMs &&
			windowMs <= floorMs * CLOSE
		);
	}

	/**
	 * When the next request may go: the trickle's at `probeAt`; else the cycle's probe, once, and
	 * not before `probeAt` either (a second after a refusal: a probe right after the burst met
	 * the bucket it had just emptied).
	 */
	nextAt(cycleAt: number, windowMs: number, probeAt: number, budgetLeft: boolean): number {
		if (this.spacingMs) return probeAt;
		if (this.probedCycleAt === cycleAt || !budgetLeft) return Infinity;
		return Math.max(
			probeAt,
			cycleAt + Math.min(windowMs / 8, this.documented.windowMs * PROBE_AFTER),
		);
	}

	/** A request goes in the cycle that started at `cycleAt`. */
	sent(cycleAt: number): void {
		this.probedCycleAt = cycleAt;
	}

	/** Let through: the spacing until the next (`firstWaitMs`: the probe's, if it started one). */
	acceptedAt(now: number, firstWaitMs: number): number {
		const spacingMs = this.spacingMs || firstWaitMs;
		if (!this.spacingMs) {
			this.fromAt = now;
			this.accepted = 0;
			this.atRate = 0;
		} else this.accepted++;
		if (spacingMs <= this.rateMs) this.atRate++;
		this.spacingMs = Math.max(this.rateMs, spacingMs / 2);
		return this.spacingMs;
	}

	/**
	 * Refused: the window to take (one request in it) and the longest known too short, or
	 * undefined when what went was a window's turn.
	 */
	refusedAt(now: number, allowance: number): { windowMs: number; tooShortMs: number } | undefined {
		const spacingMs = this.spacingMs;
		this.spacingMs = 0;
		if (spacingMs <= this.rateMs && this.atRate >= allowance * TURN) return undefined;
		const averageMs = this.accepted ? (now - this.fromAt) / this.accepted : 0;
		return { windowMs: Math.max(2 * spacingMs, averageMs), tooShortMs: spacingMs };
	}

	/** A refusal that was not the trickle's ends it. */
	end(): void {
		this.spacingMs = 0;
	}
}
