/**
 * Send and Wait's waiting webhook: a GET (a person opening the link, or a link preview) shows the
 * page and leaves the execution waiting; only a POST from the page answers and resumes it.
 */
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { answerPage, DONE_PAGE, type PageSettings } from './page';

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
