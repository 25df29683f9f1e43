/**
 * What one request is (`Attempt`), how a write is looked up when its outcome is unknown
 * (`Reconcile`), and how an attempt ended (`Ending`): the shapes the other files share.
 */
import type { IDataObject, IHttpRequestMethods, NodeApiError } from 'n8n-workflow';

import type { ErrorDescription } from '../errors';
import type { RateLimiter } from '../pacing';
import type { LookupResult, LookupWindow } from '../recovery';
import type { CommsContext } from './connection';

/**
 * A write the transport can look up when its outcome is unknown (see `accountLookups.ts`). Without
 * one, a write whose outcome is unknown is never sent again.
 */
export interface Reconcile {
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

export interface Attempt {
	method: IHttpRequestMethods;
	url: string;
	qs?: IDataObject;
	body?: () => IDataObject;
	itemIndex?: number;
	limiter: RateLimiter;
	api: 'account' | 'unified';
	describe: (status: number, body: unknown) => ErrorDescription;
	apiName: string;
	/** The credential field holding the address, for "does not answer like the API". */
	addressField: string;
	/** What the request does, for the message when its outcome is unknown ("the SMS was sent"). */
	action: string;
	/** What to check, when its outcome is unknown and it cannot be looked up. */
	check?: string;
	reconcile?: Reconcile;
	/** The longest any one wait may be (a poll must not outlast its interval); default 120 s. */
	maxWaitMs?: number;
}

/** How an attempt ended. */
export type Ending =
	| { kind: 'success'; body: IDataObject }
	/** The API refused or failed the request for good: throw this. */
	| { kind: 'refused'; error: NodeApiError }
	| { kind: 'rateLimited'; status: number; body: unknown; retryAfterMs?: number }
	/** Proven: nothing reached the server (see proof.ts). `code` names the proof. */
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
