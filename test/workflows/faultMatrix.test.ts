/**
 * The fault-point matrix: every operation that sends, calls or spends, of both nodes, run by n8n's
 * engine over a proxy that breaks the exchange at each point (test/support/faultPoints.ts), on the
 * first write attempt only or on every one, and run again by n8n three ways: with On Error:
 * Continue; with Retry On Fail, its parameters evaluating differently on every try (as `$now`
 * does); and, when the execution fails, by the editor's Retry of it with the workflow edited since
 * (the text changed, the Spending Cap raised by one item's price, and the same part differing on
 * every evaluation; Send and Wait's link names the new execution). One invariant is judged from
 * the sandbox's own log, over both executions, against what the node said last
 * (test/support/judgeWrites.ts): at most one action per item, done / not sent / unknown said
 * truthfully with the number of sends, and the Spending Cap never passed.
 *
 * Every cell has a proxy of its own (so one cell's timeouts do not open the circuit breaker, or
 * use the rate window, of another), and the cells run together; the request timeout is 1.5 s
 * here, so an unknown SMS's look-ups span 1.5 s.
 *
 * A second matrix puts the clocks at odds for the writes that are looked up (the Account API's):
 * the API's clock off n8n's (the sandbox's setClockSkew) by -8 s to +3 s, and the proxy a gateway
 * writing its own Date header ahead or behind (or none), on every answer, its HTML 502 included.
 */
import {
	FAULT_POINTS,
	type FaultPoint,
	faultsByAttempt,
	refusingUrl,
	startFaultPointProxy,
} from '../support/faultPoints';
import { type Exchange, outcomesOf, servedLog, violations } from '../support/judgeWrites';
import { useRequestTimeout, useSandbox } from '../support/sandbox';
import {
	credentialsAt,
	pooled,
	roomForEveryRun,
	runWrite,
	WRITE_OPERATIONS,
	type WriteMode,
	type WriteOperation,
} from '../support/writeOperations';

const sandbox = useSandbox();
useRequestTimeout(1_500);

type Schedule = 'first' | 'every';

interface Cell {
	operation: WriteOperation;
	fault: FaultPoint;
	schedule: Schedule;
	mode: WriteMode;
}

const CELLS: Cell[] = WRITE_OPERATIONS.flatMap((operation) =>
	FAULT_POINTS.flatMap((fault) =>
		// A refused connection cannot be picked per request: every attempt is refused.
		(fault === 'refuse' ? (['every'] as const) : (['first', 'every'] as const)).flatMap(
			(schedule) =>
				(['continue', 'retry', 'editorRetry'] as const).map((mode) => ({
					operation,
					fault,
					schedule,
					mode,
				})),
		),
	),
);

let serial = 0;

/** The clocks of a cell: the gateway's Date off n8n's (undefined: the API's own is relayed). */
interface Clocks {
	gatewayDateMs?: number;
}

/** What a cell came to, given the sandbox's log once every cell is done. */
interface Judged {
	problems: string[];
	outcomes: Array<{ reported: string; acted: number }>;
}

/** Runs a cell; what it returns judges it, given the sandbox's log once every cell is done. */
async function runCell(
	cell: Cell,
	{ gatewayDateMs }: Clocks = {},
): Promise<(served: Exchange[]) => Judged> {
	const { operation, fault, schedule, mode } = cell;
	const keys = Array.from({ length: operation.oneItem ? 1 : 2 }, () => operation.key(++serial));
	const proxy = await startFaultPointProxy(
		sandbox().url,
		faultsByAttempt(keys, (_item, attempt) =>
			schedule === 'every' || attempt === 0 ? fault : 'pass',
		),
		{ slowByteMs: 100, gatewayDateMs },
	);
	try {
		const url = fault === 'refuse' ? await refusingUrl() : proxy.url;
		// Room for one item under the cap (two after the editor's Retry raised it): a second goes
		// only if the first was proven not carried out.
		const { result, capPence } = await runWrite(operation, sandbox(), {
			mode,
			perTry: mode !== 'continue',
			input: keys.map((key) => ({ json: { ...operation.input(key), cap: operation.pence } })),
			credentials: credentialsAt(operation, sandbox(), url),
			capPence: operation.pence,
		});
		const sent = proxy.log.map((entry) => ({ method: entry.method, body: entry.body }));
		return (served) => ({
			problems: violations({ operation, keys, result, sent, served, capPence }).map(
				(problem) =>
					`${operation.name}, ${fault}, ${schedule}, ${mode}${gatewayDateMs === undefined ? '' : `, gateway Date ${gatewayDateMs} ms`}: ${problem}`,
			),
			outcomes: outcomesOf(operation, keys, result, served),
		});
	} finally {
		await proxy.close();
	}
}

it(`${CELLS.length} cells: every write operation × every fault point × first or every attempt × Continue, Retry On Fail or the editor's Retry after an edit keep the invariant`, async () => {
	roomForEveryRun(sandbox());
	// The refused cells wait out their backoffs (about 15 s a try): they start first.
	const ordered = [...CELLS].sort(
		(a, b) => Number(b.fault === 'refuse') - Number(a.fault === 'refuse'),
	);
	const judges = await pooled(
		ordered.map((cell) => () => runCell(cell)),
		48,
	);
	const served = servedLog(sandbox());
	const judged = judges.map((judge) => judge(served));
	// What the matrix exercised, by fault point: the outcomes the node said, and the actions.
	const tally = new Map<string, Map<string, number>>();
	ordered.forEach((cell, i) => {
		const row = tally.get(cell.fault) ?? new Map<string, number>();
		for (const { reported, acted } of judged[i].outcomes) {
			const column = `${reported}/acted ${acted}`;
			row.set(column, (row.get(column) ?? 0) + 1);
		}
		tally.set(cell.fault, row);
	});
	console.log(
		[...tally]
			.map(([fault, row]) => `${fault}: ${[...row].map(([k, n]) => `${k} ×${n}`).join(', ')}`)
			.join('\n'),
	);
	expect(judged.flatMap((cell) => cell.problems)).toEqual([]);
}, 480_000);

/** The API's clock off n8n's (ms), each a group of cells run together. */
const API_SKEWS = [-8_000, -1_200, 0, 3_000];
/** The gateway's own Date off n8n's (ms), or none (the API's relayed, or none on its own answers). */
const GATEWAY_DATES = [undefined, 2_500, -3_000];
/** Faults after which a write is looked up: the server acted, or may have. */
const LOOKED_UP: FaultPoint[] = [
	'html5xxAfter',
	'html2xx',
	'resetAfterRequestBody',
	'html5xxBefore',
];

const CLOCK_CELLS = WRITE_OPERATIONS.filter((operation) => operation.api === 'account').flatMap(
	(operation) =>
		LOOKED_UP.flatMap((fault) =>
			(['first', 'every'] as const).flatMap((schedule) =>
				GATEWAY_DATES.map((gatewayDateMs) => ({
					cell: { operation, fault, schedule, mode: 'continue' as const },
					clocks: { gatewayDateMs },
				})),
			),
		),
);

it(`${CLOCK_CELLS.length * API_SKEWS.length} cells with the clocks at odds: the API's clock ${API_SKEWS.map((ms) => ms / 1000).join(', ')} s off n8n's × a gateway's own Date ahead, behind or none × every Account write × faults looked up: never acted twice, every outcome said truthfully`, async () => {
	roomForEveryRun(sandbox());
	const problems: string[] = [];
	const tally = new Map<string, number>();
	for (const skewMs of API_SKEWS) {
		sandbox().control.setClockSkew(skewMs / 1000);
		const judges = await pooled(
			CLOCK_CELLS.map(
				({ cell, clocks }) =>
					() =>
						runCell(cell, clocks),
			),
			48,
		);
		const served = servedLog(sandbox());
		for (const judged of judges.map((judge) => judge(served))) {
			problems.push(...judged.problems.map((problem) => `API clock ${skewMs} ms: ${problem}`));
			for (const { reported, acted } of judged.outcomes) {
				const column = `API ${skewMs} ms: ${reported}/acted ${acted}`;
				tally.set(column, (tally.get(column) ?? 0) + 1);
			}
		}
	}
	console.log([...tally].map(([column, n]) => `${column} ×${n}`).join('\n'));
	expect(problems).toEqual([]);
}, 480_000);
