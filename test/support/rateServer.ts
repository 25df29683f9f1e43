/**
 * Simulated servers' rate limits, of every shape a real one may take: a sliding window, a fixed
 * window (counted per clock-aligned window), a token bucket; several at once (a per-second and
 * a per-minute limit); limits that change at given times. A refused request is not counted, as
 * on the sandbox. `leastTimeMs` is the least time a number of requests can take under them: a
 * client that sends each request the instant the server would accept it, with no latency.
 */

export type Shape =
	/** At most `perWindow` in any `windowMs`. */
	| { kind: 'sliding'; perWindow: number; windowMs: number }
	/** At most `perWindow` in each window [k·windowMs + offsetMs, (k+1)·windowMs + offsetMs). */
	| { kind: 'fixed'; perWindow: number; windowMs: number; offsetMs?: number }
	/** A bucket of `capacity` tokens, full at first, refilled at `perSecond`; a request takes one. */
	| { kind: 'bucket'; capacity: number; perSecond: number };

/** The limits in force from `fromMs` on; every shape of a phase applies at once. */
export interface Phase {
	fromMs: number;
	shapes: Shape[];
}

export function describeShape(shape: Shape): string {
	switch (shape.kind) {
		case 'sliding':
			return `${shape.perWindow} per ${shape.windowMs / 1000} s, sliding`;
		case 'fixed':
			return `${shape.perWindow} per ${shape.windowMs / 1000} s, fixed (offset ${shape.offsetMs ?? 0} ms)`;
		case 'bucket':
			return `bucket of ${shape.capacity}, ${shape.perSecond} a second`;
	}
}

/** One server's limits: whether it accepts a request now, and when it would at the earliest. */
export class ServerLimits {
	/** Times of the requests it accepted, in order. */
	private readonly accepted: number[] = [];
	private readonly buckets = new Map<Shape, { tokens: number; at: number }>();

	constructor(private readonly phases: Phase[]) {
		if (!phases.length || phases[0].fromMs !== 0) throw new Error('the first phase starts at 0');
	}

	/** Accepts (and counts) a request arriving at `t`, or refuses it. */
	admit(t: number): boolean {
		if (this.earliestInPhase(t) > t) return false;
		for (const shape of this.phaseAt(t).shapes)
			if (shape.kind === 'bucket') this.bucket(shape, t).tokens -= 1;
		this.accepted.push(t);
		return true;
	}

	/** The earliest time from `t` on at which a request would be accepted. */
	earliest(t: number): number {
		for (let guard = 0; guard < 10_000; guard++) {
			const next = this.nextChange(t);
			const at = this.earliestInPhase(t);
			if (at >= next) {
				t = next;
				continue;
			}
			if (at === t) return t;
			t = at;
		}
		throw new Error('no earliest time found');
	}

	private phaseAt(t: number): Phase {
		let phase = this.phases[0];
		for (const candidate of this.phases) if (candidate.fromMs <= t) phase = candidate;
		return phase;
	}

	private nextChange(t: number): number {
		return this.phases.find((phase) => phase.fromMs > t)?.fromMs ?? Infinity;
	}

	private bucket(shape: Extract<Shape, { kind: 'bucket' }>, t: number) {
		const state = this.buckets.get(shape) ?? { tokens: shape.capacity, at: t };
		state.tokens = Math.min(
			shape.capacity,
			state.tokens + (Math.max(0, t - state.at) * shape.perSecond) / 1000,
		);
		state.at = Math.max(state.at, t);
		this.buckets.set(shape, state);
		return state;
	}

	/** Accepted requests in [from, to] (from exclusive when `open`). */
	private countSince(from: number, open: boolean): number {
		let lo = 0;
		let hi = this.accepted.length;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			if (open ? this.accepted[mid] <= from : this.accepted[mid] < from) lo = mid + 1;
			else hi = mid;
		}
		return this.accepted.length - lo;
	}

	/** The earliest time from `t` on that every shape of `t`'s phase accepts (may cross a change). */
	private earliestInPhase(t: number): number {
		let at = t;
		for (const shape of this.phaseAt(t).shapes) at = Math.max(at, this.earliestFor(shape, at));
		return at;
	}

	private earliestFor(shape: Shape, t: number): number {
		switch (shape.kind) {
			case 'sliding': {
				const inWindow = this.countSince(t - shape.windowMs, true);
				if (inWindow < shape.perWindow) return t;
				// The oldest requests must leave until one place is free.
				const index = this.accepted.length - shape.perWindow;
				return this.accepted[index] + shape.windowMs;
			}
			case 'fixed': {
				const offset = shape.offsetMs ?? 0;
				// A turn's time is seldom a whole number of milliseconds: a time within a billionth of
				// the window before one counts in the next window, both where it goes and where it is
				// counted. (Floored alone, a request at a turn was counted in the window before it,
				// full, whose end was that turn again, and every request at the turn went through: the
				// least time of 600 on 144 per 27.4 s read 9.1 s.)
				const graceMs = shape.windowMs * 1e-9;
				const turn = Math.floor((t - offset + graceMs) / shape.windowMs);
				const start = turn * shape.windowMs + offset;
				return this.countSince(start - graceMs, false) < shape.perWindow
					? t
					: start + shape.windowMs;
			}
			case 'bucket': {
				const { tokens } = this.bucket(shape, t);
				return tokens >= 1 ? t : t + ((1 - tokens) * 1000) / shape.perSecond;
			}
		}
	}
}

/**
 * The least time from the first accepted request to the last of `count` requests, starting at
 * `startMs`: each sent the instant the server (and `alsoShapes`, the client's documented limit,
 * which it never exceeds) would accept it.
 */
export function leastTimeMs(
	phases: Phase[],
	count: number,
	startMs = 0,
	alsoShapes: Shape[] = [],
): number {
	const withClient = phases.map((phase) => ({
		...phase,
		shapes: [...phase.shapes, ...alsoShapes],
	}));
	const server = new ServerLimits(withClient);
	let t = startMs;
	let first = NaN;
	for (let i = 0; i < count; i++) {
		t = server.earliest(t);
		if (!server.admit(t)) throw new Error('the earliest time was refused');
		if (i === 0) first = t;
	}
	return count ? t - first : 0;
}
