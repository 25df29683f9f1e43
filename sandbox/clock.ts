/**
 * The sandbox's own clock: real time plus an offset that the control surface can move
 * forward, and a skew it can set either way (an API whose clock is off its clients'). It can
 * also be frozen, so that tests see exactly the same instant across many requests. Every
 * timestamp the sandbox hands out (the `Date` header included), and every time-based state
 * change, reads this clock.
 */
export class Clock {
	private offsetMs = 0;
	private frozenAtMs: number | null = null;
	private advancedMs = 0;
	private skewMs = 0;

	now(): number {
		return this.frozenAtMs ?? Date.now() + this.offsetMs;
	}

	nowIso(): string {
		return new Date(this.now()).toISOString();
	}

	/** How far sandbox time is ahead of real time (negative after a freeze). */
	get offsetSeconds(): number {
		return (this.now() - Date.now()) / 1000;
	}

	/** Total of every advance() since the last reset. */
	get advancedSeconds(): number {
		return this.advancedMs / 1000;
	}

	/** The skew set with setSkew (seconds; negative: behind real time). */
	get skewSeconds(): number {
		return this.skewMs / 1000;
	}

	/**
	 * Sets the clock `seconds` off real time, either way, apart from any advance: the API's clock
	 * skewed from its clients'. Setting it back moves the clock back (what was stamped stays).
	 */
	setSkew(seconds: number): void {
		const ms = Math.round(seconds * 1000);
		const delta = ms - this.skewMs;
		this.skewMs = ms;
		if (this.frozenAtMs === null) this.offsetMs += delta;
		else this.frozenAtMs += delta;
	}

	get frozen(): boolean {
		return this.frozenAtMs !== null;
	}

	advance(seconds: number): void {
		const ms = Math.round(seconds * 1000);
		this.advancedMs += ms;
		if (this.frozenAtMs === null) this.offsetMs += ms;
		else this.frozenAtMs += ms;
	}

	freeze(): void {
		if (this.frozenAtMs === null) this.frozenAtMs = this.now();
	}

	unfreeze(): void {
		if (this.frozenAtMs === null) return;
		this.offsetMs = this.frozenAtMs - Date.now();
		this.frozenAtMs = null;
	}

	reset(frozen: boolean): void {
		this.offsetMs = 0;
		this.advancedMs = 0;
		this.skewMs = 0;
		this.frozenAtMs = null;
		if (frozen) this.freeze();
	}
}

export function iso(ms: number): string {
	return new Date(ms).toISOString();
}
