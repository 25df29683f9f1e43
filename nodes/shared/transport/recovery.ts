/**
 * Unknown-outcome recovery: a write whose outcome is unknown is looked up in its history, more
 * than once, with the key's sends held back; what a look-up finds is claimed so no other look-up
 * takes it, and the write is sent again only when its operation allows and nothing was found.
 */
import { type IDataObject, NodeOperationError } from 'n8n-workflow';
import type { Attempt, Ending, LookupResult } from './attempt';
import { apiClockOf, sleep, systemClock } from './serverClock';
import { redactSecrets } from './credentialRules';
import type { CommsContext, Connection } from './connection';
import { cancelSignal } from './dispatch';
import { withOutcome } from './nodeErrors';

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

/*
 * Unknown-outcome recovery's memory: the records sends in this process have made or look-ups
 * have found (`ClaimLedger`), and the gate that holds a key's sends back while one of its writes
 * is looked up (`LookupGate`), with the process-wide instance of each (used by the recovery above and by send.ts).
 */
/**
 * The records sends in this process have claimed as theirs (their own successes, and what
 * their look-ups found), so that no other send, of this execution or another, takes them.
 * Bounded: a claim is dropped `ttlMs` after it was made, long after any look-up that could
 * meet the record (look-ups only read records made since just before their own send).
 */
export class ClaimLedger {
	private readonly claimed = new Map<string, number>();

	constructor(private readonly ttlMs = 60 * 60_000) {}

	isClaimed(ids: string[]): boolean {
		return ids.some((id) => this.claimed.has(id));
	}

	claim(ids: string[], nowMs: number): void {
		// Oldest first (a Map keeps insertion order): drop what has expired.
		for (const [id, at] of this.claimed) {
			if (nowMs - at < this.ttlMs) break;
			this.claimed.delete(id);
		}
		for (const id of ids) {
			this.claimed.delete(id);
			this.claimed.set(id, nowMs);
		}
	}

	get size(): number {
		return this.claimed.size;
	}
}

/**
 * Per key (say, calls to one customer from one number), sends may overlap one another, but a
 * look-up waits for every send in flight to finish and claim its record, and holds new sends
 * back until it is done. Otherwise a look-up could take the record of a send whose answer was
 * still on its way, and that item's request would be lost. First come, first served.
 */
export class LookupGate {
	private readonly keys = new Map<
		string,
		{
			sending: number;
			lookingUp: boolean;
			queue: Array<{ kind: 'send' | 'lookUp'; grant: () => void }>;
		}
	>();

	/** Waits for the key's turn; resolves with the function that leaves. */
	enter(key: string, kind: 'send' | 'lookUp'): Promise<() => void> {
		let state = this.keys.get(key);
		if (!state) {
			state = { sending: 0, lookingUp: false, queue: [] };
			this.keys.set(key, state);
		}
		const entry = state;
		return new Promise((resolve) => {
			entry.queue.push({
				kind,
				grant: () => {
					let left = false;
					resolve(() => {
						if (left) return;
						left = true;
						if (kind === 'send') entry.sending--;
						else entry.lookingUp = false;
						this.pump(key);
					});
				},
			});
			this.pump(key);
		});
	}

	private pump(key: string): void {
		const state = this.keys.get(key);
		if (!state) return;
		while (state.queue.length && !state.lookingUp) {
			const next = state.queue[0];
			if (next.kind === 'lookUp' && state.sending > 0) break;
			state.queue.shift();
			if (next.kind === 'send') state.sending++;
			else state.lookingUp = true;
			next.grant();
		}
		if (!state.queue.length && !state.sending && !state.lookingUp) this.keys.delete(key);
	}
}

/**
 * The records sends in this process have claimed, and the gate between sends and look-ups of
 * one key: process-wide, so that a look-up never takes a record another execution's send made
 * (it waits for that send's answer, which claims the record) nor one another look-up found.
 */
export let claims = new ClaimLedger();
export const gate = new LookupGate();

/** Forgets every claim. For tests: a reset sandbox hands out its identifiers again. */
export function forgetClaims(): void {
	claims = new ClaimLedger();
}
