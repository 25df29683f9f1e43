/**
 * Unknown-outcome recovery: a write whose outcome is unknown is looked up in its history, more
 * than once, with the key's sends held back; what a look-up finds is claimed so no other look-up
 * takes it, and the write is sent again only when its operation allows and nothing was found.
 */
import { type IDataObject, NodeOperationError } from 'n8n-workflow';

import { sleep, systemClock } from './clock';
import type { Attempt, Ending, LookupResult } from './attempt';
import { apiClockOf } from './serverClock';
import { redactSecrets } from './secrets';
import { claims, gate } from './recoveryClaims';
import type { CommsContext, Connection } from './connection';
import { cancelSignal } from './dispatch';
import { withOutcome } from './outcome';

/** Looks a write up, with sends of the same key held back, and claims what it finds. */
async function lookUp(
	ctx: CommsContext,
	connection: Connection,
	attempt: Attempt,
	gateKey: string,
	firstSentWallMs: number,
	scoped: (ids: string[]) => string[],
): Promise<LookupResult> {
	const lookup = attempt.recoveryLookup!;
	const leave = await gate.enter(gateKey, 'lookUp');
	try {
		// Read from every moment its record can carry, whatever the API's clock; which record is its
		// own is told by what is measured of that clock, read when asked: the look-up's own answer
		// counts (serverClock.ts).
		const clock = apiClockOf(connection.scope);
		const window = {
			sinceMs: clock.since(firstSentWallMs),
			get madeAfterMs() {
				return clock.madeAfter(firstSentWallMs);
			},
			isClaimed: (ids: string[]) => claims.isClaimed(scoped(ids)),
		};
		let found: LookupResult;
		try {
			found = await lookup.find(ctx, window, attempt.itemIndex);
		} catch (error) {
			if (cancelSignal(ctx)?.aborted)
				throw new NodeOperationError(ctx.getNode(), 'The execution was cancelled', {
					itemIndex: attempt.itemIndex,
				});
			found = {
				kind: 'undecided',
				reason: `the look-up itself failed (${redactSecrets(String((error as Error)?.message ?? error), connection.secrets)})`,
			};
		}
		if (found.kind === 'found') claims.claim(scoped(found.ids), Date.now());
		return found;
	} finally {
		leave();
	}
}

/** What the look-ups of a write whose outcome is unknown came to. */
export type RecoveryFinding =
	/** Its record: the request was carried out. `body` is cleared of secrets and noted. */
	| { kind: 'found'; body: IDataObject }
	/** Not in the history at any look-up. */
	| { kind: 'absent'; lookups: number; spanMs: number }
	/** The history could not tell (ambiguous, incomplete, the look-up failed): why. */
	| { kind: 'undecided'; reason: string; lookups: number; spanMs: number };

/** Where the look-ups of one write stand: when (after the first) and for which attempt. */
export interface LookUps {
	/** When to look, counted from the first look-up (retry.ts decides). */
	atMs: number[];
	/** The attempt whose outcome is unknown, for the log. */
	number: number;
	gateKey: string;
	firstSentWallMs: number;
	scoped: (ids: string[]) => string[];
	cancel: AbortSignal | undefined;
	/** Whether the request had been sent again before this outcome (for the output's note). */
	afterResend: boolean;
}

/**
 * Looks up a write whose outcome is unknown, more than once over the request timeout, until the
 * history shows its record or cannot tell. The caller decides what follows (send.ts).
 */
export async function recoverUnknown(
	ctx: CommsContext,
	connection: Connection,
	attempt: Attempt,
	unknown: Extract<Ending, { kind: 'unknown' }>,
	at: LookUps,
): Promise<RecoveryFinding> {
	const { number, gateKey, firstSentWallMs, scoped, cancel } = at;
	const lookup = attempt.recoveryLookup!;
	const startedMs = systemClock.now();
	let lookups = 0;
	let found: LookupResult = { kind: 'absent' };
	try {
		for (const atMs of at.atMs) {
			const waitMs = startedMs + atMs - systemClock.now();
			ctx.logger?.debug(
				`${attempt.profile.name}: ${unknown.label} on a write, looking it up in ${lookup.history} in ${Math.max(0, Math.round(waitMs))} ms (attempt ${number}, look-up ${lookups + 1})`,
			);
			if (waitMs > 0) await sleep(systemClock, waitMs, cancel);
			lookups++;
			found = await lookUp(ctx, connection, attempt, gateKey, firstSentWallMs, scoped);
			if (found.kind !== 'absent') break;
		}
	} catch (error) {
		// Stopped while looking: the write's outcome stays unknown.
		throw withOutcome(
			error instanceof NodeOperationError
				? error
				: new NodeOperationError(ctx.getNode(), 'The execution was cancelled', {
						itemIndex: attempt.itemIndex,
					}),
			'unknown',
		);
	}
	const spanMs = systemClock.now() - startedMs;
	if (found.kind === 'found') {
		const body = redactSecrets(found.result, connection.secrets);
		body.recoveredAfter = unknown.label;
		body.recovered = 'foundInHistory';
		body.recovery = at.afterResend
			? `After ${unknown.label} the outcome was unknown and it was sent again, once; ${lookup.what} was then found in ${lookup.history}${lookups > 1 ? ` at look-up ${lookups}` : ''}, so it was not sent a third time.`
			: `After ${unknown.label} the outcome was unknown; ${lookup.what} was found in ${lookup.history}${lookups > 1 ? ` at look-up ${lookups}` : ''}, so it was not sent again.`;
		return { kind: 'found', body };
	}
	if (found.kind === 'undecided')
		return { kind: 'undecided', reason: found.reason, lookups, spanMs };
	return { kind: 'absent', lookups, spanMs };
}
