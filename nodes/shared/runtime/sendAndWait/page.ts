/**
 * The page the answer link opens: the message and the buttons or the form, posting to itself, and
 * the page after an answer. Plain HTML with its own CSS; nothing is loaded from elsewhere.
 */
import type { ResponseType } from './description';

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

export interface PageSettings {
	responseType: ResponseType;
	message: string;
	approveLabel: string;
	declineLabel?: string;
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

export const DONE_PAGE = html(
	'Thank you',
	'<p><strong>Thank you, your answer was recorded.</strong></p><p>You can close this page.</p>',
);
