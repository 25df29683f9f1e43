/**
 * The Unified API's webhook events: their names, reading a verified body, and the item a
 * workflow receives. Pure functions; nothing here is reached before the signature is checked.
 */

export const UNIFIED_EVENTS = [
	'call.completed',
	'call.failed',
	'sms.delivered',
	'sms.failed',
	'email.delivered',
	'email.bounced',
] as const;

export type UnifiedEvent = (typeof UNIFIED_EVENTS)[number];

export const EVENT_OPTIONS: Array<{ name: string; value: UnifiedEvent; description: string }> = [
	{ name: 'Call Completed', value: 'call.completed', description: 'A voice call finished' },
	{ name: 'Call Failed', value: 'call.failed', description: 'A voice call failed' },
	{ name: 'Email Bounced', value: 'email.bounced', description: 'An email bounced' },
	{ name: 'Email Delivered', value: 'email.delivered', description: 'An email was delivered' },
	{ name: 'SMS Delivered', value: 'sms.delivered', description: 'An SMS was delivered' },
	{ name: 'SMS Failed', value: 'sms.failed', description: 'An SMS could not be delivered' },
];

export type JsonObject = Record<string, unknown>;

export type ParsedEvent =
	{ ok: true; event: string; payload: JsonObject } | { ok: false; reason: string };

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Reads a verified body: UTF-8 JSON (a leading byte-order mark is allowed), an object with a text `event`. */
export function parseEvent(rawBody: Uint8Array | string): ParsedEvent {
	let text: string;
	try {
		text = typeof rawBody === 'string' ? rawBody : decoder.decode(rawBody);
	} catch {
		return { ok: false, reason: 'the body is not UTF-8 text' };
	}
	if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
	let payload: unknown;
	try {
		payload = JSON.parse(text);
	} catch {
		return { ok: false, reason: 'the body is not JSON' };
	}
	if (!payload || typeof payload !== 'object' || Array.isArray(payload))
		return { ok: false, reason: 'the body is not a JSON object' };
	const event = (payload as JsonObject).event;
	if (typeof event !== 'string' || event === '')
		return { ok: false, reason: 'the body has no "event" name' };
	return { ok: true, event, payload: payload as JsonObject };
}

/**
 * The item for one event: the fields of its `data` at the top level (so `{{ $json.call_id }}`
 * works), with `event`, `timestamp` and `eventId` (the event's identity, the same for every copy
 * of it: replay.ts, `eventIdOf`) beside them. Any other top-level field the sender adds is kept
 * too; `event`, `timestamp` and `eventId` always come from the envelope and the trigger (a `data`
 * that is not an object stays as `data`).
 */
export function eventItem(payload: JsonObject, eventId: string): JsonObject {
	const { data, event, timestamp, ...rest } = payload;
	const fields =
		data && typeof data === 'object' && !Array.isArray(data)
			? (data as JsonObject)
			: data === undefined
				? {}
				: { data };
	const envelope = timestamp === undefined ? { event, eventId } : { event, timestamp, eventId };
	return { ...envelope, ...rest, ...fields, ...envelope };
}
