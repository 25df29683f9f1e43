/**
 * Time as the pacing and retry code sees it, so tests can drive it with a fake clock.
 *
 * The system clock waits with n8n-workflow's `sleep` (community nodes may not arm timers of
 * their own), reads time from the monotonic `performance.now()` so a wall-clock step cannot
 * shrink or stretch a rate window, and never arms a timer beyond what the runtime can hold.
 */
import { sleep as n8nSleep } from 'n8n-workflow';

export interface Clock {
	/** Milliseconds on a monotonic scale (only differences mean anything). */
	now(): number;
	/** Calls `fn` after `ms`; returns a function that cancels it. */
	setTimer(fn: () => void, ms: number): () => void;
}

/** Node.js timers hold at most 2^31 - 1 ms; a longer delay would fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

export function clampTimerMs(ms: number): number {
	if (!Number.isFinite(ms)) return ms > 0 ? MAX_TIMER_MS : 0;
	return Math.min(MAX_TIMER_MS, Math.max(0, ms));
}

export const systemClock: Clock = {
	now: () => performance.now(),
	setTimer(fn, ms) {
		const controller = new AbortController();
		let cancelled = false;
		// n8n-workflow's sleep stops early on the signal (older n8n versions ignore it and
		// resolve later; `cancelled` makes that harmless).
		n8nSleep(clampTimerMs(ms), controller.signal).then(
			() => {
				if (!cancelled) fn();
			},
			() => undefined,
		);
		return () => {
			cancelled = true;
			controller.abort();
		};
	},
};

export class CancelledError extends Error {
	constructor() {
		super('The execution was cancelled');
		this.name = 'CancelledError';
	}
}

/** Waits `ms` on `clock`; rejects at once with CancelledError when `signal` aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) return reject(new CancelledError());
		const cancel = clock.setTimer(() => {
			signal?.removeEventListener('abort', onAbort);
			resolve();
		}, ms);
		const onAbort = () => {
			cancel();
			reject(new CancelledError());
		};
		signal?.addEventListener('abort', onAbort, { once: true });
	});
}
