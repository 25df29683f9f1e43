import type { Clock } from '../../nodes/shared/transport/serverClock';

/** A clock that moves only when told to, firing due timers in order. */
export class FakeClock implements Clock {
	private time = 0;
	private timers: Array<{ at: number; fn: () => void; id: number }> = [];
	private nextId = 0;

	now(): number {
		return this.time;
	}

	setTimer(fn: () => void, ms: number): () => void {
		const id = this.nextId++;
		this.timers.push({ at: this.time + Math.max(0, ms), fn, id });
		return () => {
			this.timers = this.timers.filter((timer) => timer.id !== id);
		};
	}

	/** Moves time forward by `ms`, running every timer that falls due, and the promises they settle. */
	async advance(ms: number): Promise<void> {
		const end = this.time + ms;
		for (;;) {
			await flush();
			const due = this.timers
				.filter((timer) => timer.at <= end)
				.sort((a, b) => a.at - b.at || a.id - b.id)[0];
			if (!due) break;
			this.timers = this.timers.filter((timer) => timer !== due);
			this.time = Math.max(this.time, due.at);
			due.fn();
		}
		this.time = end;
		await flush();
	}
}

export async function flush(): Promise<void> {
	for (let i = 0; i < 10; i++) await Promise.resolve();
	await new Promise((resolve) => setImmediate(resolve));
}
