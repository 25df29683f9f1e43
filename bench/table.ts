// The table of `npm run bench` (bench/results.md, quoted by docs/benchmarks.md): one row per
// figure, with its target and whether it met it, from the results bench/run.ts gathers.

import type { BulkFigures } from './n8n/bursts.ts';
import type { Results } from './results.ts';

type Row = [benchmark: string, target: string, measured: string, met: string];

const yes = (ok: boolean): string => (ok ? 'yes' : '**no**');
const n = (value: unknown): string =>
	typeof value === 'number' ? value.toLocaleString('en-GB') : String(value);

function bulkRow(
	label: string,
	figures: BulkFigures & { requests?: number },
	{ target = 1.05, reference = false, max429Share = undefined as number | undefined } = {},
): Row {
	const share429 = figures.http429 / Math.max(1, figures.sent + figures.http429);
	const clean =
		figures.failed === 0 &&
		figures.duplicates === 0 &&
		!figures.nodeError &&
		(max429Share === undefined || share429 < max429Share);
	const figure = [
		figures.ratio === null ? 'n/a' : `**${figures.ratio.toFixed(2)}**`,
		`(${figures.nodeSeconds} s / ${figures.leastSeconds} s)`,
		figures.requests !== undefined && figures.requests !== figures.sent
			? `${n(figures.requests)} requests`
			: '',
		`${n(figures.sent)} sent, ${n(figures.failed)} failed, ${n(figures.http429)} × 429, ${n(figures.duplicates)} duplicated`,
		figures.nodeError ? `node failed: "${figures.nodeError.slice(0, 80)}"` : '',
	]
		.filter(Boolean)
		.join('; ');
	const limit429 = max429Share === undefined ? '' : `, 429s < ${max429Share * 100}% of requests`;
	return [
		label,
		reference ? 'reference' : `≤ ${target}${limit429}, 0 failed, 0 duplicated`,
		figure,
		reference ? '' : yes(clean && figures.ratio !== null && figures.ratio <= target),
	];
}

/** Rows 1 and 2: the bulk sends through our nodes, and through n8n's HTTP Request node. */
function bulkRows({ n8n }: Results): Row[] {
	const bulk = Object.fromEntries(n8n.bulk.map((b) => [b.scenario, b]));
	const shortWindow = { target: 1.1, max429Share: 0.05 };
	return [
		bulkRow('1. Comms Account, 1,200 SMS Send (600 per 60 s)', bulk['Comms Account: SMS Send'], {
			target: 1.03,
		}),
		bulkRow(
			'1. … the same with Skip If Sent Within 0 (no history read)',
			bulk['Comms Account: SMS Send, Skip If Sent Within 0'],
			{ target: 1.03 },
		),
		bulkRow(
			'1. … server stricter than documented: 600 sends, 300 per 60 s',
			bulk['Comms Account: SMS Send, server stricter than documented (300 a minute)'],
		),
		bulkRow(
			'1. … token-bucket server: 1,200 sends, 600 burst, 10 a second',
			bulk['Comms Account: SMS Send, token-bucket server'],
		),
		bulkRow(
			'1. … token bucket stricter than documented: 580 sends, 500 burst, 5 a second',
			bulk['Comms Account: SMS Send, token bucket of 500 at 5 a second'],
			shortWindow,
		),
		bulkRow(
			'1. … the documented rate per second: 300 sends, 10 per 1 s',
			bulk['Comms Account: SMS Send, the documented rate enforced per second (10 a second)'],
			shortWindow,
		),
		bulkRow(
			'1. … server allowing 40 per 10 s: 300 sends',
			bulk['Comms Account: SMS Send, server allowing 40 per 10 s'],
			shortWindow,
		),
		bulkRow('1. Comms Unified, 300 SMS (100 per 60 s)', bulk['Comms Unified: sms']),
		bulkRow('1. Comms Unified, 15 voice calls (10 per 60 s)', bulk['Comms Unified: voice']),
		bulkRow('1. Comms Unified, 300 emails (200 per 60 s)', bulk['Comms Unified: email']),
		bulkRow('1. Comms Unified, 40 AI chats (30 per 60 s)', bulk['Comms Unified: ai']),
		...n8n.peer.map((peer) =>
			bulkRow(`2. ${peer.scenario}, ${n(peer.items)} Account SMS`, peer, { reference: true }),
		),
	];
}

/** Rows 3 and 4: Return All of the SMS history, and the SMS trigger, in both orders. */
function readingRows({ history, smsTrigger }: Results): Row[] {
	const rows: Row[] = [];
	for (const [order, figures] of Object.entries(history.orders)) {
		rows.push([
			`3. Return All of 10,000 SMS, results ${order}`,
			`${figures.leastRequests} requests (51 with the inclusive \`since\`), all 10,000 once`,
			`${n(figures.requests)} requests, ${n(figures.messages)} read (${n(figures.duplicates)} duplicated, ${n(figures.missing)} missing), ${(figures.ms / 1000).toFixed(1)} s`,
			yes(
				figures.requests <= figures.leastRequestsInclusiveSince &&
					figures.messages === 10000 &&
					figures.duplicates === 0,
			),
		]);
	}
	for (const [order, figures] of Object.entries(smsTrigger.orders)) {
		rows.push([
			`4. SMS trigger, idle poll, results ${order}`,
			'1 request',
			`${figures.idlePoll.requests} request(s)`,
			yes(figures.idlePoll.requests <= 1),
		]);
		const burst = figures.burst;
		rows.push([
			`4. SMS trigger, burst of 1,000, results ${order}`,
			'6 requests, exactly 1,000 emitted',
			`${burst.requestsDelivering} requests in ${burst.pollsDelivering} poll(s), ${n(burst.emitted)} emitted (${n(burst.duplicates)} duplicated, ${n(burst.missing)} missing), ${burst.msDelivering} ms`,
			yes(burst.requestsDelivering <= 6 && burst.emitted === 1000 && burst.duplicates === 0),
		]);
	}
	return rows;
}

/** Rows 5 and 6: the webhook trigger's speed, and the package's own costs. */
function costRows({ verification, memory, n8n }: Results): Row[] {
	const { verified, headerAuth, plain } = n8n.webhook;
	const { overhead } = n8n;
	return [
		[
			'5. Webhook signature verifications per second',
			'—',
			`${n(verification.rightSignature.verificationsPerSecond)} /s (${verification.rightSignature.microsecondsPerVerification} µs each, ${verification.bodyBytes}-byte event)`,
			'',
		],
		[
			'5. Webhook request to execution start, real n8n (median)',
			"≤ 2 × n8n's Webhook node with Header Auth",
			`Comms Unified Trigger (verifies the HMAC, replay protection at its default, on): ${verified.medianRequestToStartMs} ms; n8n's Webhook node with Header Auth: ${headerAuth.medianRequestToStartMs} ms (ratio ${(Number(verified.medianRequestToStartMs) / Number(headerAuth.medianRequestToStartMs)).toFixed(2)}), with none: ${plain.medianRequestToStartMs} ms`,
			yes(Number(verified.medianRequestToStartMs) <= 2 * Number(headerAuth.medianRequestToStartMs)),
		],
		[
			'6. Own time per item, sandbox answering at once, real n8n',
			"no slower than n8n's HTTP Request node",
			`n8n's CPU per item: ${overhead.ours.n8nCpuMsPerItem} ms vs ${overhead.httpRequest.n8nCpuMsPerItem} ms (ratio ${overhead.cpuRatio}); node's wall time per item: ${overhead.ours.msPerItem} ms vs ${overhead.httpRequest.msPerItem} ms (ratio ${overhead.ratio}; ours is paced: the first requests of a window spaced out, then faster)`,
			yes(overhead.cpuRatio !== null && overhead.cpuRatio <= 1),
		],
		[
			'6. Peak memory, 10,000 items (Get Many, in-process)',
			'—',
			`heap +${memory.peakHeapGrowthMB} MB at peak, RSS +${memory.rssGrowthMB} MB`,
			'',
		],
		[
			"6. Package load (require + construct its 6 files, as n8n's loader does; median of 5)",
			'—',
			`${n8n.package.loadMedianMs} ms`,
			'',
		],
		['6. Packed size', '—', `${n8n.package.packedKB} KB`, ''],
	];
}

/** The Markdown table of every figure. */
export function table(results: Results): string {
	const rows = [...bulkRows(results), ...readingRows(results), ...costRows(results)];
	const head = ['Benchmark', 'Target', 'Measured', 'Met'];
	const escape = (cell: string) => cell.replace(/\|/g, '\\|');
	return [
		`| ${head.join(' | ')} |`,
		`|${head.map(() => '---').join('|')}|`,
		...rows.map((row) => `| ${row.map(escape).join(' | ')} |`),
	].join('\n');
}

/** The line above the table: when, where and how the figures were measured. */
export function header(results: Results): string {
	const { machine, n8n } = results;
	return `Measured ${results.date.slice(0, 10)} by \`npm run bench\` in ${results.durationSeconds} s on ${machine.cpus} cores (${machine.cpuModel}), Node.js ${machine.node}, n8n ${n8n.setup.n8nVersion}; sandbox latency ${n8n.setup.sandboxLatencyMs} ms, no Retry-After, documented limits (one minute windows). Ratios: the node's own time over the least time the server's limit allows.`;
}
