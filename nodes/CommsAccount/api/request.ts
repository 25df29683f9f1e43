/**
 * What the Account nodes call: a request to the Account API v1, sent through the shared
 * transport with this API's profile (accountApi.ts), and the API's clock for a node's credential.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	apiClock,
	type ApiClock,
	type CommsContext,
	getConnection,
	type RecoveryLookup,
	send,
} from '../../shared/transport';
import { accountApi } from './accountApi';

export interface AccountRequest {
	method: 'GET' | 'POST';
	/** Path under the base URL, with its /v1 segment. */
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
	itemIndex?: number;
	/** What the request does, for the message when its outcome is unknown ("the SMS was sent"). */
	action?: string;
	/**
	 * For a write: how to look it up when its outcome is unknown (see `recoveryLookups.ts`). Then a
	 * 500, a gateway's 502/503/504, a broken connection or a timeout leads to a look-up, and the
	 * request is sent again only if the look-up shows it was not carried out. Without it, such
	 * a write is never sent again.
	 */
	recoveryLookup?: RecoveryLookup;
	/** The longest any one wait may be (a 429's Retry-After included); default 120 s. */
	maxWaitMs?: number;
}

/**
 * A request to the Account API v1. Returns the body of a success (an object with
 * `success: true`, cleared of secrets); anything else is a NodeApiError.
 */
export async function accountApiRequest(
	ctx: CommsContext,
	request: AccountRequest,
): Promise<IDataObject> {
	const connection = await getConnection(ctx, accountApi);
	const qs =
		request.qs &&
		Object.fromEntries(Object.entries(request.qs).filter(([, v]) => v !== undefined && v !== ''));
	return await send(ctx, connection, {
		profile: accountApi,
		method: request.method,
		url: `${connection.url}${request.path}`,
		qs,
		body: request.body ? () => ({ ...request.body }) : undefined,
		itemIndex: request.itemIndex,
		action: request.action ?? 'the request was carried out',
		recoveryLookup: request.method === 'POST' ? request.recoveryLookup : undefined,
		maxWaitMs: request.maxWaitMs,
	});
}

/**
 * The Account API's clock for this node's credential, as every answer in this n8n process has
 * shown it: for any `since` sent to it, and any window on its records' times.
 */
export function accountClock(ctx: CommsContext): Promise<ApiClock> {
	return apiClock(ctx, accountApi);
}
