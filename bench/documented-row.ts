// Only the documented case of the paced runs, in the real n8n 2.41, with where its time goes:
// Comms Account SMS Send of 1,200 items at 600 per 60 s, Skip If Sent Within 0 (the row
// "Comms Account: SMS Send, Skip If Sent Within 0" of `npm run bench`). Prints, in ms from the
// node's start in n8n's run data, the sandbox's arrival times of the 1st, 2nd, 600th, 601st and
// last request and the node's end. `npm run build` first, then `node bench/documented-row.ts`;
// 1.5 to 3.5 minutes.
//
// WARM (default 500): items sent first through another workflow and sandbox, so that the code is
// warm as in the whole bench (at most 599: the node keeps to 600 a minute there too).

import { runBurst } from './n8n/bursts.ts';
import { inBenchN8n } from './n8n/server.ts';

inBenchN8n(
	async () => undefined,
	async (bench) => {
		const warm = Number(process.env.WARM ?? 500);
		if (warm > 0) await runBurst(bench, 'instantOurs', warm);
		const { status, nodeStart, nodeMs } = await runBurst(bench, 'oursNoSkip', 1200);
		if (nodeStart === null || nodeMs === null)
			throw new Error(`the send node did not run (${status})`);
		const accepted = bench.sandboxes.oursNoSkip
			.requests()
			.filter((entry) => entry.api === 'account' && entry.status !== 429)
			.map((entry) => Date.parse(entry.time) - nodeStart)
			.sort((a, b) => a - b);
		const figures = {
			status,
			ratio: +(nodeMs / 60_000).toFixed(4),
			accepted: accepted.length,
			first: accepted[0],
			second: accepted[1],
			'600th': accepted[599],
			'601st': accepted[600],
			last: accepted[accepted.length - 1],
			end: nodeMs,
		};
		console.log(JSON.stringify(figures));
	},
)
	.then(() => process.exit(0))
	.catch((error: unknown) => {
		console.error(error);
		process.exit(1);
	});
