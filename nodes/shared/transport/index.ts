/**
 * The one way our nodes talk to an API: this file is its public surface. It names no API: each
 * API's folder (`nodes/<Node>/api/`) holds its profile (`ApiProfile`: name, credential, limits,
 * answers and wording) and its request function, which passes the profile to `send`.
 *
 * For every request: the credential's rules are checked (key prefix, HTTPS or loopback),
 * the request waits for its place under the key's rate limit, goes out through n8n's
 * `httpRequestWithAuthentication` (so n8n applies the credential, its proxy and TLS
 * settings) bounded as a whole by a timeout, and is retried only when that is safe (see
 * retry.ts). A success must be the API's own JSON, or it is an error ("does not answer like
 * the API"). A write whose outcome is unknown is looked up when the operation says how
 * (recovery.ts; the look-ups themselves are in the API's folder), and otherwise never sent
 * again. Everything that leaves, success bodies included, has been cleared of keys and secrets;
 * failures are NodeApiErrors.
 *
 * Each file's header says the one job it does; follow the imports from `send.ts` for the way a
 * request takes (test/package/layout.test.ts counts the files an operation crosses). The API
 * folders import the transport through this file alone, though it is one more file on each path:
 * what it names is all they may use, and the rest may move without touching them.
 */
export type { ApiProfile, LookupResult, LookupWindow, RecoveryLookup } from './attempt';
export { detail, type ErrorDescription, fallback, isObject, text } from './answers';
export { CredentialRuleError, redactSecrets } from './credentialRules';
export type { RateLimit } from './pacing';
export { send } from './send';
export { forgetClaims } from './recovery';
export {
	apiClock,
	type CommsContext,
	type CredentialProfile,
	forgetConnection,
	getConnection,
	limiterScope,
} from './connection';
export { hasOutcome, OUTCOME_WORDS, outcomeOf, withOutcome, type WriteOutcome } from './nodeErrors';
export {
	type ApiClock,
	type ClockBounds,
	forgetApiClocks,
	type RecordTime,
	SAME_MOMENT_MS,
	systemClock,
	UNMEASURED_SKEW_MS,
} from './serverClock';
// By `export *`, which names nothing: the package test checks that only timeout.ts mentions
// the test-only setter, so that nothing the package runs reaches it.
export * from './timeout';
