/**
 * The one way our nodes talk to either API: this file is its public surface.
 *
 * For every request: the credential's rules are checked (key prefix, HTTPS or loopback),
 * the request waits for its place under the key's rate limit, goes out through n8n's
 * `httpRequestWithAuthentication` (so n8n applies the credential, its proxy and TLS
 * settings) bounded as a whole by a timeout, and is retried only when that is safe (see
 * retry.ts). A success must be the API's own JSON, or it is an error ("does not answer like
 * the API"). A write whose outcome is unknown is looked up when the operation says how
 * (recovery.ts, accountLookups.ts), and otherwise never sent again. Everything that leaves, success
 * bodies included, has been cleared of keys and secrets; failures are NodeApiErrors.
 *
 * One file per job: connection.ts (the credential, its HTTPS rule, the pacing scope),
 * timeout.ts (the whole-request timeout), dispatch.ts (sending one attempt), classify.ts
 * (reading how it ended), send.ts (retries, see retry.ts), recoverUnknown.ts (unknown-outcome
 * recovery, see recovery.ts), claims.ts, breaker.ts and serverClock.ts (what is remembered
 * process-wide), nodeErrors.ts (the NodeApiErrors), requests.ts (what the nodes call).
 */
export type { Reconcile } from './attempt';
export { forgetClaims } from './claims';
export {
	ACCOUNT_CREDENTIAL,
	type CommsContext,
	forgetConnection,
	getConnection,
	limiterScope,
	UNIFIED_CREDENTIAL,
} from './connection';
export {
	accountApiRequest,
	type AccountRequest,
	unifiedApiRequest,
	type UnifiedSuccess,
} from './requests';
export { hasOutcome, OUTCOME_WORDS, outcomeOf, withOutcome, type WriteOutcome } from './outcome';
export { accountClockOffsetMs, accountServerNow } from './serverClock';
// By `export *`, which names nothing: the package test checks that only timeout.ts mentions
// the test-only setter, so that nothing the package runs reaches it.
export * from './timeout';
