/**
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
