/**
 * An item's error as the node shows it: a parameter problem or an API failure turned into n8n's
 * per-item error, and the error item "Continue On Fail" outputs, with the fields a user acts on.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { PhoneNumberError } from '../parameters/phoneNumbers';

/** Parameter problems found by pure helpers become the node's per-item errors. */
export function toItemError(ctx: IExecuteFunctions, error: unknown, itemIndex: number): Error {
	if (error instanceof PhoneNumberError)
		return new NodeOperationError(ctx.getNode(), error.message, { itemIndex });
	if (error instanceof NodeOperationError || (error as { name?: string })?.name === 'NodeApiError')
		return error as Error;
	return new NodeOperationError(ctx.getNode(), (error as Error)?.message ?? String(error), {
		itemIndex,
	});
}

export type ItemError = Error & {
	description?: string | null;
	httpCode?: string | null;
	context?: IDataObject;
};

/** The fields of an error that an error item shows and the memory of a failed run keeps. */
export const ERROR_FIELDS = ['apiCode', 'topUpUrl', 'carrierCode', 'outcome'] as const;

export function errorItem(error: ItemError, itemIndex: number): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	if (error.description) json.description = error.description;
	if (error.httpCode) json.httpCode = error.httpCode;
	for (const key of ERROR_FIELDS) {
		if (error.context?.[key] !== undefined) json[key] = error.context[key];
	}
	return { json, pairedItem: { item: itemIndex } };
}

export function apiCodeOf(error: ItemError): string | undefined {
	const code = error.context?.apiCode;
	return typeof code === 'string' ? code : undefined;
}
