// The benchmarks that run inside the real n8n 2.41 (server.ts sets it up). realN8nBench()
// resolves to { setup, bulk, peer, overhead, webhook, package }, which bench/table.ts turns into
// the table; webhookBench() to the webhook timings alone (bench/webhook.ts). What is timed is the
// send node's own executionTime from the run data (what the user waits for at that node); the
// sandbox's request log gives the rest.

import { N8N_VERSION } from '../../test/e2e/rig/n8n-install.ts';
import { log } from '../../test/e2e/rig/proc.ts';
import { round } from './bursts.ts';
import { HTTP_REQUEST_VERSION } from './nodes.ts';
import { overheadBench } from './overhead.ts';
import { packageLoad } from './package-load.ts';
import { pacedRuns } from './paced.ts';
import { LATENCY_MS } from './scenarios.ts';
import { inBenchN8n } from './server.ts';
import { webhookLatency } from './webhook-latency.ts';

/** Every benchmark in the real n8n, the quiet measurements first, while nothing else runs. */
export async function realN8nBench() {
	return inBenchN8n(packageLoad, async (bench, load) => {
		log('webhook trigger: request to execution start, verified and not');
		const webhook = await webhookLatency(bench);
		const overhead = await overheadBench(bench);
		const { bulk, peer } = await pacedRuns(bench);
		return {
			setup: {
				n8nVersion: N8N_VERSION,
				mode: 'regular (n8n start), SQLite',
				n8nStartSeconds: round(bench.startSeconds, 1),
				sandboxLatencyMs: LATENCY_MS,
				retryAfter: 'none (the API documents no Retry-After)',
				httpRequestNodeVersion: HTTP_REQUEST_VERSION,
			},
			bulk,
			peer,
			overhead,
			webhook,
			package: {
				packedBytes: bench.packedBytes,
				packedKB: round(bench.packedBytes / 1024, 1),
				loadFiles: load.files,
				loadMedianMs: load.medianMs,
			},
		};
	});
}

export type N8nFigures = Awaited<ReturnType<typeof realN8nBench>>;

/** Only the webhook trigger's request to execution start: n8n's start and about half a minute of events. */
export async function webhookBench() {
	return inBenchN8n(
		async () => undefined,
		async (bench) => {
			log('webhook trigger: request to execution start, verified and not');
			return { setup: { n8nVersion: N8N_VERSION }, webhook: await webhookLatency(bench) };
		},
	);
}
