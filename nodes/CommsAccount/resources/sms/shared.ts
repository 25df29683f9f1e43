import type { IDataObject } from 'n8n-workflow';

import { pick } from '../../../shared/parameters/nodeParameters';

export const SMS_MAX_LENGTH = 1600;
const SMS_SEGMENT_LENGTH = 160;

/** Segments a message uses, by the API's rule: 160 characters a segment. */
export function smsSegments(message: string): number {
	return Math.max(1, Math.ceil([...message].length / SMS_SEGMENT_LENGTH));
}

const SIMPLE_SMS_FIELDS = [
	'id',
	'messageId',
	'direction',
	'fromNumber',
	'toNumber',
	'body',
	'status',
	'sentAt',
	'segments',
];

export function simplifySms(message: IDataObject): IDataObject {
	return pick(message, SIMPLE_SMS_FIELDS);
}
