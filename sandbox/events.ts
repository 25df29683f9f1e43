/**
 * Webhook payloads of the Unified API, built when a call, SMS or email reaches its final
 * status. Call events follow the documented payload; SMS and email events (not shown in
 * the spec) use the same envelope with the fields that fit them.
 */
import { unitsToPence } from './billing';
import { iso } from './clock';
import type { UnifiedCall, UnifiedEmail, UnifiedSms } from './state';
import type { WebhookEvent } from './webhooks';

export const UNIFIED_EVENTS = [
	'call.completed',
	'call.failed',
	'sms.delivered',
	'sms.failed',
	'email.delivered',
	'email.bounced',
] as const;

const FAILURE_REASONS: Record<string, string> = {
	'call.failed': 'The number could not be reached.',
	'sms.failed': 'The carrier could not deliver the message.',
	'email.bounced': 'The receiving mail server rejected the address.',
};

export function unifiedEvent(item: UnifiedCall | UnifiedSms | UnifiedEmail): WebhookEvent {
	const status = item.lifecycle.status;
	const common = {
		status,
		cost: unitsToPence(item.costUnits),
		user_id: item.userId,
		api_key: item.keyMask,
	};
	let event: string;
	let data: Record<string, unknown>;
	switch (item.kind) {
		case 'unifiedCall': {
			event = `call.${status}`;
			const answeredAtMs = item.lifecycle.reachedAt('in-progress');
			const duration =
				answeredAtMs === null
					? 0
					: Math.ceil(((item.lifecycle.endedAtMs as number) - answeredAtMs) / 1000);
			data = { call_id: item.callId, to: item.to, from: item.from, ...common, duration };
			break;
		}
		case 'unifiedSms':
			event = `sms.${status}`;
			data = {
				message_id: item.messageId,
				to: item.to,
				from: item.from,
				segments: item.segments,
				...common,
			};
			break;
		case 'unifiedEmail':
			event = `email.${status}`;
			data = { message_id: item.messageId, to: item.to, subject: item.subject, ...common };
			break;
	}
	const reason = FAILURE_REASONS[event];
	return {
		event,
		timestamp: iso(item.lifecycle.endedAtMs as number),
		data: reason ? { ...data, reason } : data,
	};
}
