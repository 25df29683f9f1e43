/**
 * Readers for the Comms Unified node's own kinds of input: email addresses, the webhook URL and
 * the chat. Each failure names the parameter and the value, and is found before any request.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	optionalString,
	phoneNumber,
	requiredString,
	shown,
} from '../shared/parameters/nodeParameters';
import { textOf } from '../shared/parameters/expressionValues';

function fail(ctx: IExecuteFunctions, i: number, message: string, description?: string): never {
	throw new NodeOperationError(ctx.getNode(), message, { itemIndex: i, description });
}

/** One address, no display name: local part, @, a domain with a dot; no spaces or brackets. */
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@(?:[^\s@<>()[\]\\,;:".]+\.)+[^\s@<>()[\]\\,;:".]{2,}$/;

export function emailAddress(
	ctx: IExecuteFunctions,
	i: number,
	name: string,
	label: string,
): string {
	const value = requiredString(ctx, i, name, label);
	if (value.length > 254 || !EMAIL.test(value)) {
		fail(
			ctx,
			i,
			`${label} "${shown(value)}" is not an email address`,
			'Enter one address such as someone@example.com, without a name or angle brackets.',
		);
	}
	return value;
}

/** An optional phone number (empty: the API's default), in E.164. */
export function optionalPhoneNumber(
	ctx: IExecuteFunctions,
	i: number,
	name: string,
	label: string,
): string | undefined {
	const value = optionalString(ctx, i, name, label);
	return value ? phoneNumber(ctx, i, value, label) : undefined;
}

/** An optional http(s) address (empty: none). */
export function optionalWebhookUrl(
	ctx: IExecuteFunctions,
	i: number,
	name: string,
	label: string,
): string | undefined {
	const value = optionalString(ctx, i, name, label);
	if (!value) return undefined;
	let url: URL | undefined;
	try {
		url = new URL(value);
	} catch {
		url = undefined;
	}
	if (
		!url ||
		(url.protocol !== 'http:' && url.protocol !== 'https:') ||
		!url.hostname ||
		/\s/.test(value)
	) {
		fail(
			ctx,
			i,
			`${label} "${shown(value)}" is not an http(s) URL`,
			'Use a full address starting with https:// (or http://), such as the Production URL of a Comms Unified Trigger.',
		);
	}
	return value;
}

const CHAT_ROLES = ['system', 'user', 'assistant'] as const;

export interface ChatMessage extends IDataObject {
	role: string;
	content: string;
}

/** The chat: at least one message from the user, none empty. */
export function chatMessages(ctx: IExecuteFunctions, i: number): ChatMessage[] {
	const raw = ctx.getNodeParameter('messages.values', i, []) as unknown;
	const entries = Array.isArray(raw) ? (raw as unknown[]) : [];
	if (entries.length === 0)
		fail(ctx, i, 'Messages is empty: add at least one message with Role "User"');
	const messages = entries.map((entry, n): ChatMessage => {
		const { role, content } = (entry && typeof entry === 'object' ? entry : {}) as IDataObject;
		const roleText = textOf(role)?.trim().toLowerCase() ?? '';
		if (!(CHAT_ROLES as readonly string[]).includes(roleText)) {
			fail(
				ctx,
				i,
				`Messages, message ${n + 1}: Role "${shown(role)}" is not one of ${CHAT_ROLES.map((r) => `"${r}"`).join(', ')}`,
			);
		}
		const text = textOf(content);
		if (text === undefined && content !== undefined && content !== null && content !== '') {
			fail(
				ctx,
				i,
				`Messages, message ${n + 1}: Content must be text, but the expression gave ${shown(content)}`,
			);
		}
		if (!text?.trim())
			fail(ctx, i, `Messages, message ${n + 1} (${roleText}): Content is required but was empty`);
		return { role: roleText, content: text };
	});
	if (!messages.some((message) => message.role === 'user')) {
		fail(
			ctx,
			i,
			'Messages has no message with Role "User": the chat needs something to answer',
			'Add a message with Role "User"; "System" messages only set the instructions.',
		);
	}
	return messages;
}
