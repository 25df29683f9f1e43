// Our node's own time per item in the real n8n beside n8n's HTTP Request node's, with a sandbox
// that answers at once: the node's wall time from the run data, and the CPU time of the n8n
// process over the whole execution (from /proc; Linux).

import fs from 'node:fs';
import { log } from '../../test/e2e/rig/proc.ts';
import { round, runBurst } from './bursts.ts';
import type { BenchN8n } from './server.ts';

const OVERHEAD_ITEMS = 500;

/** The `n8n start` process of this user folder (its pid), found through /proc (Linux). */
function n8nPid(userFolder: string): number | null {
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
			const environ = fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
			if (cmdline.includes('start') && environ.includes(`N8N_USER_FOLDER=${userFolder}`))
				return Number(entry);
		} catch {
			// Gone, or not ours to read.
		}
	}
	return null;
}

/** CPU time (user + system) a process has used, in ms; null where /proc is not there. */
function cpuMs(pid: number | null): number | null {
	if (pid === null) return null;
	try {
		const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
		return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
	} catch {
		return null;
	}
}

const ratio = (ours: number | null, theirs: number | null): number | null =>
	ours === null || theirs === null ? null : round(ours / theirs);

/**
 * OVERHEAD_ITEMS sends through each node after a warm-up of 50. The pacing holds our node to
 * 600 a minute spread over at least 3 s, so its wall time is not all its own; the CPU time of
 * the n8n process is (the Code node runs in n8n's task runner, another process).
 */
export async function overheadBench(bench: BenchN8n) {
	log(`overhead: ${OVERHEAD_ITEMS} sends to a sandbox that answers at once`);
	await runBurst(bench, 'instantOursWarm', 50);
	await runBurst(bench, 'instantHttp', 50);
	const pid = n8nPid(bench.userFolder);
	const measured = async (key: string) => {
		const cpuBefore = cpuMs(pid);
		const result = await runBurst(bench, key, OVERHEAD_ITEMS);
		const cpuAfter = cpuMs(pid);
		return {
			msPerItem: round(Number(result.nodeMs) / OVERHEAD_ITEMS, 2),
			n8nCpuMsPerItem:
				cpuBefore === null || cpuAfter === null
					? null
					: round((cpuAfter - cpuBefore) / OVERHEAD_ITEMS, 2),
			itemsOut: result.itemsOut,
		};
	};
	const ours = await measured('instantOurs');
	const httpRequest = await measured('instantHttp');
	return {
		items: OVERHEAD_ITEMS,
		ours,
		httpRequest,
		ratio: ratio(ours.msPerItem, httpRequest.msPerItem),
		cpuRatio: ratio(ours.n8nCpuMsPerItem, httpRequest.n8nCpuMsPerItem),
	};
}
