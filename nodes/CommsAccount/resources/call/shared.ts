import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { pick } from '../../../shared/parameters/nodeParameters';

export const callModeParameter: INodeProperties = {
	displayName: 'Mode',
	name: 'mode',
	type: 'options',
	options: [
		{ name: 'Manual', value: 'manual', description: 'Calls placed in manual mode' },
		{ name: 'AI', value: 'ai', description: 'Calls placed by the AI agent' },
	],
	default: 'manual',
	description: 'Manual and AI calls are stored separately; choose which history to read',
};

const SIMPLE_CALL_FIELDS = [
	'id',
	'callId',
	'callSid',
	'mode',
	'status',
	'from',
	'to',
	'phoneDocId',
	'customerName',
	'createdAt',
	'startedAt',
	'endedAt',
	'durationSeconds',
];

export function simplifyCall(call: IDataObject): IDataObject {
	return pick(call, SIMPLE_CALL_FIELDS);
}
