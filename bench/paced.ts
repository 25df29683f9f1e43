// Only the paced runs of `npm run bench`: in the real n8n 2.41, the bulk sends through our nodes
// against each server (the documented limits, a stricter one, a token bucket, a stricter one
// with a large burst, 10 a second, 40 per 10 s) beside n8n's HTTP Request node, in about 6
// minutes. `npm run build` first, then
// `node bench/paced.ts`. Prints the figures; writes nothing.

import { pacedRuns } from './n8n/paced.ts';
import { inBenchN8n } from './n8n/server.ts';

inBenchN8n(
	async () => undefined,
	async (bench) => pacedRuns(bench),
)
	.then(({ bulk, peer }) => {
		for (const figures of [...bulk, ...peer]) {
			const { scenario, ratio, nodeSeconds, leastSeconds, sent, failed, http429, duplicates } =
				figures;
			console.log(
				`${scenario}: ${ratio} (${nodeSeconds} s / ${leastSeconds} s); ${sent} sent, ${failed} failed, ${http429} × 429, ${duplicates} duplicated`,
			);
		}
		process.exit(0);
	})
	.catch((error: unknown) => {
		console.error(error);
		process.exit(1);
	});
