/**
 * What the nodes call: a request to the Account API v1, and an envelope to the Unified API.
 */
import type { IDataObject } from 'n8n-workflow';

import { accountApi } from '../../CommsAccount/api/accountApi';
import type { RecoveryLookup } from './attempt';
import { type CommsContext, getConnection } from './connection';
import { unifiedApi, type UnifiedService } from '../../CommsUnified/api/unifiedApi';
import { send } from './send';

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
	 * For a write: how to look it up when its outcome is unknown (see `../../CommsAccount/api/recoveryLookups.ts`). Then a
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
	const connection = await getConnection(ctx, accountApi.credential);
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

export interface UnifiedSuccess extends IDataObject {
	success: true;
	result: IDataObject;
	billing: IDataObject;
}

/**
 * One envelope to the Unified API. Returns the success envelope (cleared of secrets). The API
 * has nothing to look a request up with, so one whose outcome is unknown is never sent again.
 */
export async function unifiedApiRequest(
	ctx: CommsContext,
	service: UnifiedService,
	action: string,
	data: IDataObject,
	itemIndex?: number,
): Promise<UnifiedSuccess> {
	const connection = await getConnection(ctx, unifiedApi.credential);
	return (await send(ctx, connection, {
		profile: unifiedApi,
		lane: service,
		method: 'POST',
		url: connection.url,
		body: () => ({ service, action, data: { ...data } }),
		itemIndex,
		action: `the ${service} request was carried out`,
		check: `check in the API dashboard (or the events its webhook received) whether it was`,
	})) as UnifiedSuccess;
}
