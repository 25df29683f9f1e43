/**
 * The one invariant of a paid action, judged from what the server did (the sandbox's log) against
 * what the node said (its output, or its error): the server acted at most once per item, an item
 * the node calls done was acted on once, one it calls not sent (or refused, or leaves unlisted
 * when it stops) was not acted on, an unknown one says how many times it was sent (never fewer
 * than reached the server's door, at most twice), and the Spending Cap was never passed.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { WorkflowResult } from '../../harness';
import type { Sandbox } from '../../sandbox';
import type { WriteOperation } from './writeOperations';

export type Reported = 'done' | 'notSent' | 'refused' | 'unknown' | 'notCarriedOut';

type StopError = Error & { description?: string; context?: IDataObject };

/** One pass of the node: its output items, or the error it stopped on (the execution's). */
interface Pass {
	output: INodeExecutionData[];
	error?: StopError;
}

/** The node's passes in the execution: one, unless it ran in a loop. */
function passesOf(result: WorkflowResult): Pass[] {
	const runs = result.run.data.resultData.runData.Node ?? [];
	const error = result.error as StopError | undefined;
	if (runs.length <= 1) return [{ output: result.output('Node'), error }];
	return runs.map((run) => ({
		output: run.data?.main?.[0] ?? [],
		error: run.error ? error : undefined,
	}));
}

/** What the node said of each item in one pass. */
function reportedIn({ output, error }: Pass, count: number): Reported[] {
	const reported: Reported[] = new Array(count).fill('notCarriedOut');
	if (!error) {
		for (const item of output) {
			const index = (item.pairedItem as { item: number }).item;
			const outcome = item.json.outcome;
			reported[index] =
				item.json.error === undefined
					? 'done'
					: outcome === 'notSent' || outcome === 'refused' || outcome === 'unknown'
						? outcome
						: ('missing' as Reported);
		}
		return reported;
	}
	// The node stopped: the failed item says its outcome; the description lists the others.
	const description = error.description ?? '';
	const listed = (heading: RegExp) => {
		const list = heading.exec(description)?.[1] ?? '';
		return [...list.matchAll(/item (\d+)/g)].map((match) => Number(match[1]) - 1);
	};
	for (const index of listed(/already carried out: (.*?)\. Their results/))
		reported[index] = 'done';
	for (const index of listed(/will not send them again: (.*?)\. Check whether/))
		reported[index] = 'unknown';
	const failed = error.context?.itemIndex;
	const outcome = error.context?.outcome;
	if (typeof failed === 'number')
		reported[failed] =
			outcome === 'notSent' || outcome === 'refused' || outcome === 'unknown'
				? outcome
				: ('missing' as Reported);
	return reported;
}

/** What the node said of each item (of its last pass, when it ran in a loop). */
export function reportedOutcomes(result: WorkflowResult, count: number): Reported[] {
	return reportedIn(passesOf(result).at(-1)!, count);
}

/** How many times the message says the request was sent ("sent once", "sent twice"). */
function sendsSaid(message: string): number | undefined {
	const said = /It was sent (once|twice|(\d+) times)/.exec(message);
	if (!said) return undefined;
	return said[1] === 'once' ? 1 : said[1] === 'twice' ? 2 : Number(said[2]);
}

/** The message of each item's error in one pass, where the node gave one. */
function messagesIn({ output, error }: Pass, count: number): Array<string | undefined> {
	const found: Array<string | undefined> = new Array(count).fill(undefined);
	if (error && typeof error.context?.itemIndex === 'number')
		found[error.context.itemIndex] = error.message;
	if (!error)
		for (const item of output)
			if (typeof item.json.error === 'string')
				found[(item.pairedItem as { item: number }).item] = item.json.error;
	return found;
}

/** What happened to each item, for a tally: what the node said, and how often the server acted. */
export function outcomesOf(
	operation: WriteOperation,
	keys: string[],
	result: WorkflowResult,
	served: Exchange[],
): Array<{ reported: Reported; acted: number }> {
	const reported = reportedOutcomes(result, keys.length);
	return keys.map((key, i) => ({
		reported: reported[i],
		acted: served.filter(
			(entry) =>
				entry.method === 'POST' &&
				entry.status === operation.successStatus &&
				entry.body.includes(key),
		).length,
	}));
}

export interface Exchange {
	method: string;
	body: string;
	status?: number;
}

/** What the server did, as the judge reads it: the sandbox's log. */
export function servedLog(sandbox: Sandbox): Exchange[] {
	return sandbox.requests().map((entry) => ({
		method: entry.method,
		body: JSON.stringify(entry.body ?? ''),
		status: entry.status,
	}));
}

/**
 * Everything wrong with a run, in words (empty when it kept the invariant). `sent`: requests that
 * reached the server's door (the proxy), `served`: what the server answered (the sandbox's log).
 * In a loop the same item (its key) comes once a pass: the server may act on it once a pass, and
 * as often as the passes that said done, give or take those that said unknown.
 */
export function violations({
	operation,
	keys,
	result,
	sent,
	served,
	capPence,
}: {
	operation: WriteOperation;
	keys: string[];
	result: WorkflowResult;
	sent: Exchange[];
	served: Exchange[];
	capPence?: number;
}): string[] {
	const found: string[] = [];
	const passes = passesOf(result);
	const reported = passes.map((pass) => reportedIn(pass, keys.length));
	const said = passes.map((pass) => messagesIn(pass, keys.length));
	let actedInAll = 0;
	keys.forEach((key, i) => {
		const acted = served.filter(
			(entry) =>
				entry.method === 'POST' &&
				entry.status === operation.successStatus &&
				entry.body.includes(key),
		).length;
		const wentOut = sent.filter(
			(entry) => entry.method === 'POST' && entry.body.includes(key),
		).length;
		actedInAll += acted;
		const reports = reported.map((pass) => pass[i]);
		const count = (outcome: Reported) => reports.filter((r) => r === outcome).length;
		const what = `item ${i + 1} (${reports.join(', ')}, acted ${acted}, sent ${wentOut})`;
		if (acted > passes.length) found.push(`${what}: the server acted more than once`);
		if (acted < count('done')) found.push(`${what}: called done`);
		if (acted > count('done') + count('unknown')) found.push(`${what}: called not carried out`);
		if (reports.includes('missing' as Reported)) found.push(`${what}: its error says no outcome`);
		reports.forEach((report, p) => {
			const message = said[p][i];
			if (report !== 'unknown' || message === undefined) return;
			const sends = sendsSaid(message);
			// Never fewer than reached the server's door; more only when one was lost on the way
			// (a timeout before it arrived), and never more than the one send again allows.
			if (sends === undefined)
				found.push(`${what}: its message does not say how many times it was sent`);
			else if ((passes.length === 1 && sends < wentOut) || sends > 2)
				found.push(`${what}: its message says sent ${sends} times`);
		});
	});
	if (capPence !== undefined && operation.pence !== undefined) {
		const spent = actedInAll * operation.pence;
		if (spent > capPence + 1e-9) found.push(`spent ${spent}p, above the cap of ${capPence}p`);
	}
	return found;
}
