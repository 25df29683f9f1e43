/**
 * The one invariant of a paid action, judged from what the server did (the sandbox's log) against
 * what the node said (its output, or its error): the server acted at most once per item, an item
 * the node calls done was acted on once, one it calls not sent (or refused, or leaves unlisted
 * when it stops) was not acted on, an unknown one says how many times it was sent (never fewer
 * than reached the server's door, at most twice), and the Spending Cap was never passed.
 */
import type { IDataObject } from 'n8n-workflow';

import type { WorkflowResult } from '../../harness';
import type { WriteOperation } from './writeOperations';

export type Reported = 'done' | 'notSent' | 'refused' | 'unknown' | 'notCarriedOut';

/** What the node said of each item. */
export function reportedOutcomes(result: WorkflowResult, count: number): Reported[] {
	const reported: Reported[] = new Array(count).fill('notCarriedOut');
	const error = result.error as
		(Error & { description?: string; context?: IDataObject }) | undefined;
	if (!error) {
		for (const item of result.output('Node')) {
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

/** How many times the message says the request was sent ("sent once", "sent twice"). */
function sendsSaid(message: string): number | undefined {
	const said = /It was sent (once|twice|(\d+) times)/.exec(message);
	if (!said) return undefined;
	return said[1] === 'once' ? 1 : said[1] === 'twice' ? 2 : Number(said[2]);
}

/** The message of each item's error, where the node gave one. */
function messages(result: WorkflowResult, count: number): Array<string | undefined> {
	const found: Array<string | undefined> = new Array(count).fill(undefined);
	const error = result.error as (Error & { context?: IDataObject }) | undefined;
	if (error && typeof error.context?.itemIndex === 'number')
		found[error.context.itemIndex] = error.message;
	if (!error)
		for (const item of result.output('Node'))
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

/**
 * Everything wrong with a run, in words (empty when it kept the invariant). `sent`: requests that
 * reached the server's door (the proxy), `served`: what the server answered (the sandbox's log).
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
	const reported = reportedOutcomes(result, keys.length);
	const said = messages(result, keys.length);
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
		const what = `item ${i + 1} (${reported[i]}, acted ${acted}, sent ${wentOut})`;
		if (acted > 1) found.push(`${what}: the server acted more than once`);
		if (reported[i] === 'done' && acted !== 1) found.push(`${what}: called done`);
		if (['notSent', 'refused', 'notCarriedOut'].includes(reported[i]) && acted !== 0)
			found.push(`${what}: called not carried out`);
		if ((reported[i] as string) === 'missing') found.push(`${what}: its error says no outcome`);
		const message = said[i];
		if (reported[i] === 'unknown' && message !== undefined) {
			const sends = sendsSaid(message);
			// Never fewer than reached the server's door; more only when one was lost on the way
			// (a timeout before it arrived), and never more than the one send again allows.
			if (sends === undefined)
				found.push(`${what}: its message does not say how many times it was sent`);
			else if (sends < wentOut || sends > 2)
				found.push(`${what}: its message says sent ${sends} times`);
		}
	});
	if (capPence !== undefined && operation.pence !== undefined) {
		const spent = actedInAll * operation.pence;
		if (spent > capPence + 1e-9) found.push(`spent ${spent}p, above the cap of ${capPence}p`);
	}
	return found;
}
