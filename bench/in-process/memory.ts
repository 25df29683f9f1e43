// The memory 10,000 items take through the node, in this process: the SMS history of
// history.ts read once more, the heap sampled every 50 ms, then collected with and without
// the items held.

import { harnessModule } from '../build.ts';
import { HISTORY_COUNT, injectHistory, readHistory, type HistoryRead } from './history.ts';
import { gc, gcExposed, mb } from './measures.ts';
import { configure, withSandbox } from './sandbox.ts';

/**
 * Memory for 10,000 items through the node: the Comms Account SMS Get Many of 10,000
 * messages (results oldest first), the heap sampled every 50 ms. The sandbox serves the
 * pages from the same process, so its share of the work is in the figures too.
 */
export async function memoryBench() {
	harnessModule();
	return withSandbox(async (sandbox) => {
		configure(sandbox, 'oldestFirst');
		const injected = injectHistory(sandbox);
		let read: HistoryRead | null = await readHistory(sandbox, injected);
		const { memory, figures } = read;
		gc();
		const held = process.memoryUsage();
		const items = read.result.output('Node').length;
		read = null; // the items go: what the next collection frees is theirs
		gc();
		const released = process.memoryUsage();
		return {
			scenario: `SMS Get Many, Return All, ${HISTORY_COUNT} messages: memory`,
			gcExposed: gcExposed(),
			items,
			ms: figures.ms,
			samples: memory.samples,
			heapBeforeMB: mb(memory.start.heapUsed),
			peakHeapMB: mb(memory.peakHeap),
			peakHeapGrowthMB: mb(memory.peakHeap - memory.start.heapUsed),
			heapAfterMB: mb(memory.end.heapUsed),
			heapAfterGcWithItemsMB: mb(held.heapUsed),
			heapAfterGcReleasedMB: mb(released.heapUsed),
			rssBeforeMB: mb(memory.start.rss),
			peakRssMB: mb(memory.peakRss),
			rssGrowthMB: mb(memory.peakRss - memory.start.rss),
		};
	});
}
