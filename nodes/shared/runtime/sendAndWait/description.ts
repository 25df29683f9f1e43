/**
 * Send and Wait by SMS: the message goes out with a link to a page served by n8n's waiting
 * webhook (the signed resume URL of this execution and node), and the execution waits until the
 * person answers there or the wait limit passes.
 *
 * Unlike n8n's own send-and-wait nodes, whose Approve link answers on a GET (and so has to guess
 * which visitors are bots), opening the link here only ever shows the page: phones, messaging
 * apps and carriers' filters fetch links in an SMS to draw previews, and none of that may answer.
 * Only a POST from the page's buttons or form answers, once: n8n resumes the execution on it, and
 * a link used or expired shows n8n's own "no action required" page afterwards.
 *
 * This file: the operation's parameters and n8n's waiting webhooks; `wait.ts` the wait, `page.ts`
 * the page, `webhook.ts` the answer. What two nodes share lives in this folder; each node's
 * operation file adds its own send.
 */
import type { INodeProperties, IWebhookDescription } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { forOperation } from '../../parameters/descriptions';

/** n8n's waiting webhooks for the signed resume URL (path: the node's ID), page and answer. */
export const sendAndWaitWebhooks: IWebhookDescription[] = ['GET', 'POST'].map((httpMethod) => ({
	name: 'default',
	httpMethod,
	responseMode: 'onReceived',
	responseData: '',
	path: '={{ $nodeId }}',
	restartWebhook: true,
	isFullPath: true,
}));

export type ResponseType = 'approval' | 'freeText';

const limitWaitTimeOption: INodeProperties = {
	displayName: 'Limit Wait Time',
	name: 'limitWaitTime',
	type: 'fixedCollection',
	default: { values: { limitType: 'afterTimeInterval', resumeAmount: 45, resumeUnit: 'minutes' } },
	description:
		'Whether to stop waiting for an answer after a while; the item then says the wait timed out',
	options: [
		{
			displayName: 'Values',
			name: 'values',
			values: [
				{
					displayName: 'Limit Type',
					name: 'limitType',
					type: 'options',
					default: 'afterTimeInterval',
					options: [
						{
							name: 'After Time Interval',
							value: 'afterTimeInterval',
							description: 'Waits for a certain amount of time',
						},
						{
							name: 'At Specified Time',
							value: 'atSpecifiedTime',
							description: 'Waits until the set date and time',
						},
					],
				},
				{
					displayName: 'Amount',
					name: 'resumeAmount',
					type: 'number',
					typeOptions: { minValue: 0, numberPrecision: 2 },
					default: 45,
					description: 'The time to wait',
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
				},
				{
					displayName: 'Unit',
					name: 'resumeUnit',
					type: 'options',
					default: 'minutes',
					options: [
						{ name: 'Minutes', value: 'minutes' },
						{ name: 'Hours', value: 'hours' },
						{ name: 'Days', value: 'days' },
					],
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
				},
				{
					displayName: 'Max Date and Time',
					name: 'maxDateAndTime',
					type: 'dateTime',
					default: '',
					description: 'Stop waiting at this date and time',
					displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
				},
			],
		},
	],
};

/**
 * The operation's parameters: the send's own (`sendDescription`: sender, recipient, message, with
 * the message described by `messageDescription`), then Response Type, the approval options, and
 * Options (the send's options plus Limit Wait Time).
 */
export function sendAndWaitProperties(
	resource: string,
	sendDescription: INodeProperties[],
	messageDescription: string,
): INodeProperties[] {
	const sendProperties = sendDescription
		.filter((property) => property.name !== 'options')
		.map((property) =>
			property.name === 'message' ? { ...property, description: messageDescription } : property,
		);
	const sendOptions = (sendDescription.find((property) => property.name === 'options')?.options ??
		[]) as INodeProperties[];
	return forOperation(resource, SEND_AND_WAIT_OPERATION, [
		...sendProperties,
		{
			displayName: 'Response Type',
			name: 'responseType',
			type: 'options',
			default: 'approval',
			options: [
				{
					name: 'Approval',
					value: 'approval',
					description: 'The person approves or declines on the linked page',
				},
				{
					name: 'Free Text',
					value: 'freeText',
					description: 'The person types an answer on the linked page',
				},
			],
		},
		{
			displayName: 'Approval Options',
			name: 'approvalOptions',
			type: 'fixedCollection',
			placeholder: 'Add Option',
			default: {},
			displayOptions: { show: { responseType: ['approval'] } },
			options: [
				{
					displayName: 'Values',
					name: 'values',
					values: [
						{
							displayName: 'Type of Approval',
							name: 'approvalType',
							type: 'options',
							default: 'double',
							options: [
								{ name: 'Approve and Decline', value: 'double' },
								{ name: 'Approve Only', value: 'single' },
							],
						},
						{
							displayName: 'Approve Button Label',
							name: 'approveLabel',
							type: 'string',
							default: 'Approve',
						},
						{
							displayName: 'Decline Button Label',
							name: 'disapproveLabel',
							type: 'string',
							default: 'Decline',
							displayOptions: { show: { approvalType: ['double'] } },
						},
					],
				},
			],
		},
		{
			displayName: 'Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			options: [...sendOptions, limitWaitTimeOption],
		},
	]);
}
