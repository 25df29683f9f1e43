import type { IDataObject } from 'n8n-workflow';

import { pick } from '../../shared/params';

const SIMPLE_SMS_FIELDS = ['id', 'messageId', 'direction', 'fromNumber', 'toNumber', 'body', 'status', 'sentAt', 'segments'];

export function simplifySms(message: IDataObject): IDataObject {
	return pick(message, SIMPLE_SMS_FIELDS);
}
