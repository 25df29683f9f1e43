/**
 * What the Unified node calls: one envelope to the Unified API, sent through the shared transport
 * with this API's profile (unifiedApi.ts).
 */
import type { IDataObject } from 'n8n-workflow';

import { type CommsContext, getConnection, send } from '../../shared/transport';
import { unifiedApi, type UnifiedService } from './unifiedApi';

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
	const connection = await getConnection(ctx, unifiedApi);
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
