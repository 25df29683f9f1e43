/**
 * Time-driven status machines for calls, SMS and emails.
 *
 * A script is the path an item will take: each step is a status and how many sandbox
 * seconds the item stays in it; the last step is the final status. Nothing runs on a
 * timer: `sync(now)` walks the script up to the given instant and records each
 * transition at the exact moment it happened, so reading state late (after the clock was
 * fast-forwarded, or after a long idle time) gives the same history as reading it live.
 */

export interface Step {
	status: string;
	/** Seconds spent in this status before the next step; omitted on the final step. */
	seconds?: number;
}

export interface Transition {
	status: string;
	atMs: number;
}

export class LifecycleConflict extends Error {}

export class Lifecycle {
	private steps: Step[];
	readonly history: Transition[];

	constructor(steps: Step[], startMs: number) {
		Lifecycle.check(steps);
		this.steps = steps;
		this.history = [{ status: steps[0].status, atMs: startMs }];
	}

	get status(): string {
		return this.history[this.history.length - 1].status;
	}

	get isFinal(): boolean {
		return this.history.length === this.steps.length;
	}

	get startedAtMs(): number {
		return this.history[0].atMs;
	}

	/** Time of the final transition, or null while the item is still live. */
	get endedAtMs(): number | null {
		return this.isFinal ? this.history[this.history.length - 1].atMs : null;
	}

	/** When the item first entered the status, or null if it has not (yet). */
	reachedAt(status: string): number | null {
		return this.history.find((t) => t.status === status)?.atMs ?? null;
	}

	/** Moves along the script up to `nowMs`. */
	sync(nowMs: number): void {
		while (!this.isFinal) {
			const current = this.history[this.history.length - 1];
			const dueMs = current.atMs + (this.steps[this.history.length - 1].seconds ?? 0) * 1000;
			if (dueMs > nowMs) return;
			this.history.push({ status: this.steps[this.history.length].status, atMs: dueMs });
		}
	}

	/** Ends the current status now and enters the next one. */
	advance(nowMs: number): void {
		this.sync(nowMs);
		if (this.isFinal) throw new LifecycleConflict(`already in its final status "${this.status}"`);
		this.history.push({ status: this.steps[this.history.length].status, atMs: nowMs });
	}

	/**
	 * Replaces the rest of the path. The statuses already passed through must be the
	 * beginning of the new script, otherwise the new outcome is no longer possible.
	 */
	rescript(steps: Step[]): void {
		Lifecycle.check(steps);
		const compatible =
			steps.length >= this.history.length &&
			this.history.every((t, i) => steps[i].status === t.status) &&
			!(this.isFinal && steps.length > this.history.length);
		if (!compatible) {
			const path = this.history.map((t) => t.status).join(' → ');
			throw new LifecycleConflict(`that outcome is no longer possible after ${path}`);
		}
		this.steps = steps;
	}

	private static check(steps: Step[]): void {
		if (steps.length === 0) throw new Error('a lifecycle needs at least one step');
	}
}
