// Small measures the in-process benchmarks take: elapsed time, megabytes, the heap and RSS
// sampled while something runs, and a function's calls in a given time.

export const mb = (bytes: number): number => +(bytes / 1048576).toFixed(1);

export const elapsedMs = (started: bigint): number =>
	Number(process.hrtime.bigint() - started) / 1e6;

/** A full garbage collection where `--expose-gc` allows one (`npm run bench` passes it). */
export const gc = (): void => globalThis.gc?.();

export const gcExposed = (): boolean => typeof globalThis.gc === 'function';

export interface MemorySamples {
	start: NodeJS.MemoryUsage;
	end: NodeJS.MemoryUsage;
	peakHeap: number;
	peakRss: number;
	samples: number;
}

/** Samples the heap and RSS every `intervalMs` until stopped. */
export function memorySampler(intervalMs = 50): { stop(): MemorySamples } {
	const start = process.memoryUsage();
	let peakHeap = start.heapUsed;
	let peakRss = start.rss;
	let samples = 0;
	const sample = () => {
		const now = process.memoryUsage();
		samples++;
		peakHeap = Math.max(peakHeap, now.heapUsed);
		peakRss = Math.max(peakRss, now.rss);
		return now;
	};
	const timer = setInterval(sample, intervalMs);
	return {
		stop() {
			clearInterval(timer);
			const end = sample();
			return { start, end, peakHeap, peakRss, samples };
		},
	};
}

/** Runs `fn` in batches for about `durationMs`; returns how many calls and how long. */
export function timed(fn: () => void, durationMs: number): { count: number; ms: number } {
	const batch = 1000;
	let count = 0;
	const started = process.hrtime.bigint();
	let ms = 0;
	do {
		for (let i = 0; i < batch; i++) fn();
		count += batch;
		ms = elapsedMs(started);
	} while (ms < durationMs);
	return { count, ms };
}
