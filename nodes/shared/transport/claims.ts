/**
 * Claims: the records sends in this process have made or look-ups have found, and the gate
 * that holds a key's sends back while one of its writes is looked up (see recovery.ts).
 */
import { ClaimLedger, LookupGate } from '../recovery';

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
