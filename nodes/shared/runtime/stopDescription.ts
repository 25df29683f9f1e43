/**
 * What the error a node stops with says of its other items: n8n discards a failed node's output,
 * so the user learns there which items were already carried out (a new execution would repeat
 * them; retrying this one does not), which have an unknown outcome, and that the rest were not
 * carried out.
 */
import type { IDataObject } from 'n8n-workflow';

/** The identifier an output item carries (an SMS's messageId, a call's callId), in words. */
function idOf(json: IDataObject | undefined): string | undefined {
	for (const key of ['messageId', 'callId', 'id']) {
		const value = json?.[key];
		if (typeof value === 'string' || typeof value === 'number') return `${key} ${value}`;
	}
	return undefined;
}

export interface StoppedRun {
	/** The description of the error the node stops with. */
	description: string;
	/** Items carried out, and items whose outcome is unknown (the stopping item excluded). */
	done: number[];
	unknown: number[];
	/** The item in a few words ("SMS to +447700900123"), and its output when it has one. */
	describe(itemIndex: number): string | undefined;
	outputOf(itemIndex: number): IDataObject | undefined;
}

/** The error's description with the list of what was carried out and what is unknown. */
export function stopDescription(run: StoppedRun): string {
	const { done, unknown } = run;
	if (!done.length && !unknown.length) return run.description;
	const describe = (i: number) => {
		const details = [run.describe(i), idOf(run.outputOf(i))].filter(Boolean).join(', ');
		return `item ${i + 1}${details ? ` (${details})` : ''}`;
	};
	const list = (indexes: number[]) =>
		[...indexes]
			.sort((a, b) => a - b)
			.map(describe)
			.join('; ');
	const parts = [run.description];
	if (done.length)
		parts.push(
			`Before the node stopped, these items (numbered from 1) were already carried out: ${list(done)}. Their results are not in the output; retrying this execution does not send them again, but running the workflow again as a new execution would.`,
		);
	if (unknown.length)
		parts.push(
			`The outcome of these items is unknown, and this execution will not send them again: ${list(unknown)}. Check whether they were carried out (each item's error says how many times it was sent and where to look) before sending them again.`,
		);
	parts.push(
		`Items not listed were not carried out: they were not sent, or the API refused them. Set "On Error" to "Continue" to keep going past failed items.`,
	);
	return parts.filter(Boolean).join(' ');
}
