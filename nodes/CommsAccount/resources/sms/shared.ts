import type { IDataObject } from 'n8n-workflow';

import { pick } from '../../../shared/parameters/nodeParameters';
import { SEGMENT_CHARACTERS, segmentsOf } from '../../../shared/parameters/smsLength';

export const SMS_MAX_LENGTH = 1600;
/** The API's 1,600 characters, in segments. */
export const SMS_MAX_SEGMENTS = SMS_MAX_LENGTH / SEGMENT_CHARACTERS;

/** Segments a message uses, by the API's rule: 160 characters a segment. */
export const smsSegments = segmentsOf;

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
