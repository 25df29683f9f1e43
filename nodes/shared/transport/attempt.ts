/**
 * What one request is (`Attempt`), how a write is looked up when its outcome is unknown
 * (`RecoveryLookup`), and how an attempt ended (`Ending`): the shapes the other files share.
 */
import type { IDataObject, IHttpRequestMethods, NodeApiError } from 'n8n-workflow';

import type { ErrorDescription } from './answers';
import type { RecordTime } from './serverClock';
import { type RateLimit, type RateLimiter, sharedLimiter } from './pacing';
import {
	type CommsContext,
	type Connection,
	type CredentialProfile,
	laneScope,
} from './connection';

/** What a look-up found. */
export type LookupResult =
	/** The request's record, in the shape of the create result, and the identifiers to claim. */
	| { kind: 'found'; result: IDataObject; ids: string[] }
	/** The history shows the request was not carried out: it may be sent again. */
	| { kind: 'absent' }
	/** The history cannot tell (ambiguous, incomplete or unreadable): why, in a sentence. */
	| { kind: 'undecided'; reason: string };

/**
 * Where in time to look, and which records other items of this execution already own. The times
 * are on the API's clock (serverClock.ts).
 */
export interface LookupWindow {
	/**
	 * Where the look-up reads from (epoch ms, the API's clock): every moment the request's record
	 * can carry, whatever the API's clock is (it may have stepped, or be another server's), and
	 * whatever was measured of it. Nothing matching from here on is proof that it was not made.
	 */
	readonly sinceMs: number;
	/**
	 * Records stamped at or after this were made once the request had been sent (within the same
	 * moment), as far as what was measured of the API's clock tells; one stamped between `sinceMs`
	 * and this may be an earlier identical one, which the history cannot tell from the request's
	 * own. Sized by what is known when it is read: read it after the look-up's request, so that
	 * what its answer showed of the clock counts.
	 */
	readonly madeAfterMs: number;
	isClaimed(ids: string[]): boolean;
}

/**
 * A write the transport can look up when its outcome is unknown (an API folder's `api/`, such as the Account API's recovery look-ups). Without
 * one, a write whose outcome is unknown is never sent again.
 */
export interface RecoveryLookup {
	/** Writes that could be taken for one another (same number and recipient) share a key. */
	key: string;
	/** For the output's note: "the SMS", and where it was looked for: "the SMS history". */
	what: string;
	history: string;
	/**
	 * Whether it may be sent again when the history shows, after every look-up, that it was not
	 * carried out. A call never is: a second call would ring a person twice.
	 */
	resend: boolean;
	/** What the user should look for before trying again, given when it was first sent. */
	check(sentAtIso: string): string;
	/** The identifiers of the record a success body describes, claimed for the item. */
	idsOf(body: IDataObject): string[];
	/** Looks for the record the request may have made. Errors count as "cannot tell". */
	find(ctx: CommsContext, window: LookupWindow, itemIndex?: number): Promise<LookupResult>;
}

/**
 * What the transport needs to know of one API: its name, credential and limits, what its
 * success, its error shape and its documented refusals look like, and its wording. One per API,
 * in the API's own folder (`nodes/<Node>/api/`), passed in by that API's request function: this
 * folder names no API.
 */
export interface ApiProfile extends CredentialProfile {
	/** The API's name, as messages name it. */
	name: string;
	/** What belongs in the credential's address field, for "does not answer like the API". */
	addressHint: string;
	/** The documented rate limit of a key, in one lane (a service of the API) or for the whole API. */
	limitOf(lane?: string): RateLimit;
	/** A complete, valid success body. */
	isSuccess(body: unknown): boolean;
	/** The API's own documented refusal: nothing was done. */
	isRefusal(status: number, body: unknown): boolean;
	/** The API's own code, when the body is in its error shape. */
	errorCodeOf(body: unknown): string | undefined;
	/** Codes by which the API says it failed inside: a write's outcome is unknown. */
	internalErrorCodes?: ReadonlySet<string>;
	/**
	 * Codes after which nothing more can succeed (runtime/halts.ts): with the same credential in
	 * this execution (the key is not accepted, the credits ran out), or in this node run (the
	 * service is not available).
	 */
	halts?: Readonly<Record<string, 'execution' | 'run'>>;
	describe(status: number, body: unknown): ErrorDescription;
	/**
	 * The records of a success body, each with its identifiers and the time the API wrote on it
	 * when it made it: what the API's clock is learnt from (serverClock.ts). None for an API whose
	 * answers carry no records.
	 */
	recordTimes?(body: IDataObject): RecordTime[];
	/** The identifiers of the record a write's success body says it made (matching `recordTimes`). */
	createdIds?(body: IDataObject): string[];
}

/** One request, and what to say and do when its outcome is unknown. */
export interface Attempt {
	profile: ApiProfile;
	/** The limit lane within the key (a service of the API); none where the API has one limit per key. */
	lane?: string;
	method: IHttpRequestMethods;
	url: string;
	qs?: IDataObject;
	body?: () => IDataObject;
	itemIndex?: number;
	/** What the request does, for the message when its outcome is unknown ("the SMS was sent"). */
	action: string;
	/** What to check, when its outcome is unknown and it cannot be looked up. */
	check?: string;
	recoveryLookup?: RecoveryLookup;
	/** The longest any one wait may be (a poll must not outlast its interval); default 120 s. */
	maxWaitMs?: number;
}

/** The process-wide limiter of the attempt's key and lane. */
export function limiterOf(connection: Connection, attempt: Attempt): RateLimiter {
	return sharedLimiter(
		laneScope(connection.scope, attempt.lane),
		attempt.profile.limitOf(attempt.lane),
	);
}

/** How an attempt ended. */
export type Ending =
	| { kind: 'success'; body: IDataObject }
	/** The API refused or failed the request for good: throw this. */
	| { kind: 'refused'; error: NodeApiError }
	| { kind: 'rateLimited'; status: number; body: unknown; retryAfterMs?: number }
	/** Proven: nothing reached the server (see classify.ts). `code` names the proof. */
	| { kind: 'notSent'; code: string }
	/**
	 * Carried out or not, nobody can say. `label` names what happened ("HTTP 500"), `reason`
	 * says it in a sentence; `status`/`body` when an answer came.
	 */
	| {
			kind: 'unknown';
			label: string;
			reason: string;
			code: string;
			status?: number;
			body?: unknown;
			retryAfterMs?: number;
			/** What to check, when the answer says more than its status (not the API at all). */
			description?: string;
	  };
