/** Time as the pacing code sees it, so tests can drive it with a fake clock. */
export interface Clock {
	now(): number;
	/** Calls `fn` after `ms`; returns a function that cancels it. */
	setTimer(fn: () => void, ms: number): () => void;
}

export const systemClock: Clock = {
	now: () => Date.now(),
	setTimer(fn, ms) {
		const handle = setTimeout(fn, Math.max(0, ms));
		return () => clearTimeout(handle);
	},
};

export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) return reject(new Error('The execution was cancelled'));
		const cancel = clock.setTimer(() => {
			signal?.removeEventListener('abort', onAbort);
			resolve();
		}, ms);
		const onAbort = () => {
			cancel();
			reject(new Error('The execution was cancelled'));
		};
		signal?.addEventListener('abort', onAbort, { once: true });
	});
}
