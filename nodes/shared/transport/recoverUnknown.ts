/**
 * Unknown-outcome recovery: a write whose outcome is unknown is looked up in its history, more
 * than once, with the key's sends held back; what a look-up finds is claimed so no other look-up
 * takes it, and the write is sent again only when its operation allows and nothing was found.
 */
import { type IDataObject, NodeOperationError } from 'n8n-workflow';

import { sleep, systemClock } from '../clock';
import { type LookupResult, lookupSince } from '../recovery';
import { redactSecrets } from '../secrets';
import type { Attempt, Ending } from './attempt';
import { claims, gate } from './claims';
import type { CommsContext, Connection } from './connection';
import { cancelSignal } from './dispatch';
import { humanDuration, unknownOutcomeError } from './nodeErrors';
import { serverClocks } from './serverClock';

/** Looks a write up, with sends of the same key held back, and claims what it finds. */
async function lookUp(
	ctx: CommsContext,
	connection: Connection,
	attempt: Attempt,
	gateKey: string,
	firstSentWallMs: number,
	scoped: (ids: string[]) => string[],
): Promise<LookupResult> {
	const reconcile = attempt.reconcile!;
	const leave = await gate.enter(gateKey, 'lookUp');
	try {
		const window = {
			sinceMs: lookupSince(firstSentWallMs, serverClocks.get(connection.scope)),
			isClaimed: (ids: string[]) => claims.isClaimed(scoped(ids)),
		};
		let found: LookupResult;
		try {
			found = await reconcile.find(ctx, window, attempt.itemIndex);
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

/** What the look-ups saw when they showed the write was not carried out and it is sent again. */
export interface Resent {
	after: string;
	lookups: number;
	spanMs: number;
}

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
}

/**
 * Looks up a write whose outcome is unknown: the record when it was found (its body cleared of
 * secrets and noted), or what the look-ups saw when it may be sent again; otherwise the error
 * that says it was not sent again.
 */
export async function recoverUnknown(
	ctx: CommsContext,
	connection: Connection,
	attempt: Attempt,
	unknown: Extract<Ending, { kind: 'unknown' }>,
	at: LookUps,
): Promise<{ kind: 'found'; body: IDataObject } | { kind: 'sendAgain'; resent: Resent }> {
	const { number, gateKey, firstSentWallMs, scoped, cancel } = at;
	const reconcile = attempt.reconcile!;
	const check = reconcile.check(new Date(firstSentWallMs).toISOString());
	const startedMs = systemClock.now();
	let lookups = 0;
	let found: LookupResult = { kind: 'absent' };
	for (const atMs of at.atMs) {
		const waitMs = startedMs + atMs - systemClock.now();
		ctx.logger?.debug(
			`${attempt.apiName}: ${unknown.label} on a write, looking it up in ${reconcile.history} in ${Math.max(0, Math.round(waitMs))} ms (attempt ${number}, look-up ${lookups + 1})`,
		);
		if (waitMs > 0) await sleep(systemClock, waitMs, cancel);
		lookups++;
		found = await lookUp(ctx, connection, attempt, gateKey, firstSentWallMs, scoped);
		if (found.kind !== 'absent') break;
	}
	const spanMs = systemClock.now() - startedMs;
	if (found.kind === 'found') {
		const body = redactSecrets(found.result, connection.secrets);
		body.recoveredAfter = unknown.label;
		body.recovered = 'foundInHistory';
		body.recovery = `After ${unknown.label} the outcome was unknown; ${reconcile.what} was found in ${reconcile.history}${lookups > 1 ? ` at look-up ${lookups}` : ''}, so it was not sent again.`;
		return { kind: 'found', body };
	}
	if (found.kind === 'undecided')
		throw unknownOutcomeError(
			ctx,
			connection,
			attempt,
			unknown,
			`Looking it up in ${reconcile.history} could not settle it: ${found.reason}.`,
			check,
		);
	if (!reconcile.resend)
		throw unknownOutcomeError(
			ctx,
			connection,
			attempt,
			unknown,
			`It was not in ${reconcile.history} in ${lookups} look-ups over ${humanDuration(spanMs)}, which is not proof enough to do it again: the API may record it late.`,
			check,
		);
	return { kind: 'sendAgain', resent: { after: unknown.label, lookups, spanMs } };
}
