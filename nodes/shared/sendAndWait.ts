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
 * What two nodes share lives here; each node's operation file adds its own send.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeOperationError, SEND_AND_WAIT_OPERATION, WAIT_INDEFINITELY } from 'n8n-workflow';

import { forOperation } from './descriptions';

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

/** The SMS text: the message, then the link on a line of its own. */
export function withAnswerLink(message: string, url: string): string {
	return `${message.trimEnd()}\n${url}`;
}

/** The signed link of this execution and node, for the SMS. */
export function answerLink(ctx: IExecuteFunctions): string {
	return ctx.getSignedResumeUrl();
}

const UNIT_MS: Record<string, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

/** When to stop waiting, from Limit Wait Time (none: wait until answered). */
export function waitTill(ctx: IExecuteFunctions, now: Date = new Date()): Date {
	const limit = ctx.getNodeParameter('options.limitWaitTime.values', 0, {}) as IDataObject;
	if (Object.keys(limit).length === 0) return WAIT_INDEFINITELY;
	let until: Date;
	if ((limit.limitType ?? 'afterTimeInterval') === 'afterTimeInterval') {
		const amount = Number(limit.resumeAmount ?? 45);
		const unit = UNIT_MS[String(limit.resumeUnit ?? 'minutes')];
		until = new Date(now.getTime() + amount * (unit ?? NaN));
		if (!(amount >= 0) || unit === undefined) until = new Date(NaN);
	} else {
		until = new Date(String(limit.maxDateAndTime ?? ''));
	}
	if (Number.isNaN(until.getTime())) {
		throw new NodeOperationError(
			ctx.getNode(),
			'Limit Wait Time is not a time n8n can wait until',
			{
				itemIndex: 0,
				description:
					'Give an amount of 0 or more minutes, hours or days, or a date and time such as 2026-12-01T09:00:00Z.',
			},
		);
	}
	return until;
}

/**
 * Checked before anything is sent: n8n waits for one answer per execution, so the operation
 * takes one item.
 */
function assertOneItem(ctx: IExecuteFunctions): void {
	const count = ctx.getInputData().length;
	if (count > 1) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Send and Wait for Response sends one SMS and waits for one answer, but it received ${count} items; nothing was sent`,
			{
				description:
					'An execution can wait for one answer. Give the node one item, for example after a Limit node, or run one execution per person (Loop Over Items into a sub-workflow).',
			},
		);
	}
}

/**
 * After the SMS went out: the execution waits. What the node leaves on its place in the execution
 * stack is what it outputs if nobody answers before the limit (n8n then runs on with the waiting
 * node's input) and what the answer page's expressions read, so that item is the input item with
 * the wait's outcome added; an answer replaces it with the answer.
 */
async function waitForAnswer(
	ctx: IExecuteFunctions,
	sent: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const [item] = sent;
	// Failed with Continue On Fail (or nothing to send): there is nothing to wait for.
	if (!item || item.json.error !== undefined) return [sent];
	const until = waitTill(ctx);
	const responseType = ctx.getNodeParameter('responseType', 0, 'approval') as ResponseType;
	if (until.getTime() !== WAIT_INDEFINITELY.getTime()) {
		const stacked = ctx.getExecuteData?.()?.data;
		if (stacked && Array.isArray(stacked.main)) {
			// The input item goes on (as n8n's own send-and-wait passes it through on a timeout),
			// so expressions on it still work on the answer page, with what happened added.
			const [input] = ctx.getInputData();
			stacked.main[0] = [
				{
					...(input?.binary ? { binary: input.binary } : {}),
					json: {
						...input?.json,
						timedOut: true,
						responseType,
						...(responseType === 'approval' ? { approved: false } : {}),
						waitedUntil: until.toISOString(),
						sms: item.json,
					},
					pairedItem: { item: 0 },
				},
			];
		}
	}
	await ctx.putExecutionToWait(until);
	return [sent];
}

/**
 * A node's run: the items of any operation (`run`); for Send and Wait, one item checked first
 * and the wait for the answer after it went out.
 */
export async function runOrWait(
	ctx: IExecuteFunctions,
	operation: string,
	run: () => Promise<INodeExecutionData[]>,
): Promise<INodeExecutionData[][]> {
	if (operation !== SEND_AND_WAIT_OPERATION) return [await run()];
	assertOneItem(ctx);
	return await waitForAnswer(ctx, await run());
}

// The page ---------------------------------------------------------------------------------------

function escapeHtml(text: string): string {
	return text.replace(
		/[&<>"']/g,
		(c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
	);
}

const STYLE =
	'body{font:16px/1.45 system-ui,-apple-system,sans-serif;margin:0;padding:24px 16px;background:#f6f6f8;color:#1d1d1f}' +
	'main{max-width:480px;margin:0 auto;background:#fff;border-radius:12px;padding:20px;box-shadow:0 1px 3px rgba(0,0,0,.08)}' +
	'p{white-space:pre-wrap;margin:0 0 16px}form{margin:0}textarea{width:100%;box-sizing:border-box;min-height:120px;font:inherit;padding:10px;border:1px solid #c7c7cc;border-radius:8px}' +
	'.buttons{display:flex;gap:12px;flex-wrap:wrap}button{flex:1;min-width:120px;font:inherit;font-weight:600;padding:14px;border-radius:10px;border:1px solid #1d1d1f;background:#fff;color:#1d1d1f}' +
	'button.primary{background:#1d1d1f;color:#fff}.error{color:#b00020}';

function html(title: string, body: string): string {
	return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex,nofollow"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

interface PageSettings {
	responseType: ResponseType;
	message: string;
	approveLabel: string;
	declineLabel?: string;
}

function settingsOf(ctx: IWebhookFunctions): PageSettings {
	const responseType =
		(ctx.getNodeParameter('responseType', 'approval') as string) === 'freeText'
			? 'freeText'
			: 'approval';
	let message = '';
	try {
		message = String(ctx.getNodeParameter('message', '') ?? '');
	} catch {
		// An expression that needs the run's data cannot be read here: the page shows no message.
		message = '';
	}
	const approval = ctx.getNodeParameter('approvalOptions.values', {}) as IDataObject;
	const label = (value: unknown, fallback: string) =>
		typeof value === 'string' && value.trim() ? value.trim() : fallback;
	return {
		responseType,
		message,
		approveLabel: label(approval.approveLabel, 'Approve'),
		declineLabel:
			(approval.approvalType ?? 'double') === 'double'
				? label(approval.disapproveLabel, 'Decline')
				: undefined,
	};
}

/** The page the link opens: the message and the buttons or the form; it posts to itself. */
export function answerPage(settings: PageSettings, problem?: string): string {
	const message = settings.message ? `<p>${escapeHtml(settings.message)}</p>` : '';
	const error = problem ? `<p class="error" role="alert">${escapeHtml(problem)}</p>` : '';
	const form =
		settings.responseType === 'freeText'
			? '<form method="post"><p><label for="answer">Your answer</label></p><textarea id="answer" name="text" required></textarea><div class="buttons" style="margin-top:12px"><button class="primary" type="submit">Send</button></div></form>'
			: `<form method="post" class="buttons">${
					settings.declineLabel
						? `<button type="submit" name="approved" value="false">${escapeHtml(settings.declineLabel)}</button>`
						: ''
				}<button class="primary" type="submit" name="approved" value="true">${escapeHtml(settings.approveLabel)}</button></form>`;
	return html('Your answer', `${message}${error}${form}`);
}

const DONE_PAGE = html(
	'Thank you',
	'<p><strong>Thank you, your answer was recorded.</strong></p><p>You can close this page.</p>',
);

function send(ctx: IWebhookFunctions, status: number, body: string): IWebhookResponseData {
	const res = ctx.getResponseObject();
	res.status(status);
	res.setHeader('Content-Type', 'text/html; charset=utf-8');
	// The link is the key to the answer: keep it out of caches, search engines and Referer headers.
	res.setHeader('Cache-Control', 'no-store');
	res.setHeader('Referrer-Policy', 'no-referrer');
	res.setHeader('X-Robots-Tag', 'noindex, nofollow');
	res.setHeader(
		'Content-Security-Policy',
		"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
	);
	res.send(body);
	return { noWebhookResponse: true };
}

/** What the person chose, from the posted form; undefined when the post is not a valid answer. */
export function answerOf(
	settings: Pick<PageSettings, 'responseType' | 'declineLabel'>,
	body: IDataObject,
): IDataObject | undefined {
	if (settings.responseType === 'freeText') {
		const text = typeof body.text === 'string' ? body.text.trim() : '';
		return text ? { text } : undefined;
	}
	if (body.approved === 'true') return { approved: true };
	if (body.approved === 'false' && settings.declineLabel !== undefined) return { approved: false };
	return undefined;
}

/**
 * The waiting webhook. A GET (a person opening the link, or a link preview) shows the page and
 * leaves the execution waiting; a POST from the page answers and resumes it.
 */
export async function sendAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const settings = settingsOf(this);
	if (this.getRequestObject().method !== 'POST') return send(this, 200, answerPage(settings));
	const body = (this.getBodyData() ?? {}) as IDataObject;
	const answer = answerOf(settings, body);
	if (!answer) {
		const problem =
			settings.responseType === 'freeText'
				? 'Please type an answer before sending.'
				: 'Please choose one of the buttons.';
		return send(this, 400, answerPage(settings, problem));
	}
	send(this, 200, DONE_PAGE);
	return {
		noWebhookResponse: true,
		workflowData: [
			[
				{
					json: {
						...answer,
						responseType: settings.responseType,
						timedOut: false,
						respondedAt: new Date().toISOString(),
					},
				},
			],
		],
	};
}
