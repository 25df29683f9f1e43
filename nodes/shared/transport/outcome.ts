/**
 * What became of a write, as its error says: the one word the item runner, the Spending Cap and
 * the user read. An error that does not say is unknown: only what is proven is anything else.
 *
 * - `notSent`: proven that no byte of the request reached the server (or it was never tried);
 * - `refused`: the API's own documented refusal, in its own error shape: nothing was done;
 * - `unknown`: carried out or not, nobody can tell.
 *
 * A success ("done") is not an error and needs no mark.
 */
export type WriteOutcome = 'notSent' | 'refused' | 'unknown';

const OUTCOMES: ReadonlySet<string> = new Set<WriteOutcome>(['notSent', 'refused', 'unknown']);

interface WithContext {
	context?: Record<string, unknown>;
}

/** The outcome an error carries; unknown when it carries none. */
export function outcomeOf(error: unknown): WriteOutcome {
	const outcome = (error as WithContext | null | undefined)?.context?.outcome;
	return typeof outcome === 'string' && OUTCOMES.has(outcome)
		? (outcome as WriteOutcome)
		: 'unknown';
}

/** Whether the error says its outcome itself (rather than being unknown by default). */
export function hasOutcome(error: unknown): boolean {
	const outcome = (error as WithContext | null | undefined)?.context?.outcome;
	return typeof outcome === 'string' && OUTCOMES.has(outcome);
}

/** Marks the error with its outcome (n8n's errors keep it in `context`); returns the error. */
export function withOutcome<E>(error: E, outcome: WriteOutcome): E {
	if (error !== null && typeof error === 'object') {
		const target = error as WithContext;
		target.context = { ...(target.context ?? {}), outcome };
	}
	return error;
}

/** What each outcome means, in words, for an error item or a message. */
export const OUTCOME_WORDS: Record<WriteOutcome, string> = {
	notSent: 'not sent',
	refused: 'refused by the API',
	unknown: 'unknown',
};
