/**
 * SMS of the Account API: records, their status scripts, the history view and ordering.
 */
import { iso } from './clock';
import { Lifecycle, type Step } from './lifecycle';
import type { Account, PhoneNumber, SmsOrder, SmsRecord } from './state';
import { makeId } from './state';

export const MAX_SMS_CHARACTERS = 1600;
const SEGMENT_CHARACTERS = 160;

export type SmsOutcome = 'delivered' | 'failed' | 'noReceipt';

/** Longer than any run: a status that, for every purpose, never ends. */
const FOREVER_SECONDS = 10 * 365 * 24 * 3600;

/** Sent messages are confirmed by the carrier after 10 sandbox seconds; received ones are final. */
export const SMS_SCRIPTS: Record<SmsOutcome | 'received', Step[]> = {
	delivered: [{ status: 'sent', seconds: 10 }, { status: 'delivered' }],
	failed: [{ status: 'sent', seconds: 10 }, { status: 'failed' }],
	noReceipt: [{ status: 'sent', seconds: FOREVER_SECONDS }, { status: 'delivered' }],
	received: [{ status: 'received' }],
};

/**
 * A sent SMS's path when the sandbox reports statuses nobody listed (the setting
 * `unlistedStatuses`): `sent` 2 s, `submitted` 3 s, then `pending` for the rest of the wait, and a
 * failure ends `undelivered`. Received SMS are unchanged.
 */
export function unlistedSmsPath(steps: Step[]): Step[] {
	if (steps.length < 2) return steps;
	const [sent, final] = steps;
	return [
		{ status: 'sent', seconds: 2 },
		{ status: 'submitted', seconds: 3 },
		{ status: 'pending', seconds: Math.max(0, (sent.seconds ?? 0) - 5) },
		final.status === 'failed' ? { status: 'undelivered' } : final,
	];
}

/** Characters are counted as Unicode code points. */
export function characterCount(text: string): number {
	return [...text].length;
}

export function segmentsOf(text: string): number {
	return Math.max(1, Math.ceil(characterCount(text) / SEGMENT_CHARACTERS));
}

interface SmsBase {
	seq: number;
	account: Account;
	number: PhoneNumber;
	body: string;
}

function newSms(
	{ seq, account, number, body }: SmsBase,
	fields: Pick<
		SmsRecord,
		'direction' | 'fromNumber' | 'toNumber' | 'source' | 'outcome' | 'sentAtMs' | 'createdAtMs'
	> & { unlisted?: boolean },
): SmsRecord {
	return {
		...fields,
		kind: 'sms',
		seq,
		body,
		id: makeId('sms_sbx_', seq),
		messageId: makeId('SMsbx', seq),
		accountId: account.accountId,
		phoneDocId: number.phoneDocId,
		businessName: number.label,
		segments: segmentsOf(body),
		lifecycle: new Lifecycle(
			fields.unlisted
				? unlistedSmsPath(SMS_SCRIPTS[fields.outcome as SmsOutcome | 'received'])
				: SMS_SCRIPTS[fields.outcome as SmsOutcome | 'received'],
			fields.sentAtMs,
		),
		settled: fields.direction === 'received',
	};
}

export function newOutboundSms(
	input: SmsBase & {
		to: string;
		outcome: SmsOutcome;
		source: string;
		nowMs: number;
		/** Through statuses nobody listed (`unlistedSmsPath`). */
		unlisted?: boolean;
	},
): SmsRecord {
	return newSms(input, {
		...(input.unlisted ? { unlisted: true } : {}),
		direction: 'sent',
		fromNumber: input.number.smsNumber as string,
		toNumber: input.to,
		source: input.source,
		outcome: input.outcome,
		sentAtMs: input.nowMs,
		createdAtMs: input.nowMs,
	});
}

/** An inbound message; `sentAtMs` may lie before its arrival (`nowMs`), as late deliveries do. */
export function newInboundSms(
	input: SmsBase & { from: string; sentAtMs: number; nowMs: number },
): SmsRecord {
	return newSms(input, {
		direction: 'received',
		fromNumber: input.from,
		toNumber: input.number.smsNumber as string,
		source: 'inbound',
		outcome: 'received',
		sentAtMs: input.sentAtMs,
		createdAtMs: input.nowMs,
	});
}

export function smsRecordView(sms: SmsRecord): Record<string, unknown> {
	const final = sms.lifecycle.isFinal && sms.direction === 'sent';
	return {
		id: sms.id,
		messageId: sms.messageId,
		direction: sms.direction,
		fromNumber: sms.fromNumber,
		toNumber: sms.toNumber,
		body: sms.body,
		status: sms.lifecycle.status,
		source: sms.source,
		businessName: sms.businessName,
		segments: sms.segments,
		sentAt: iso(sms.sentAtMs),
		createdAt: iso(sms.createdAtMs),
		phoneDocId: sms.phoneDocId,
		deliveredAt:
			final && sms.outcome === 'delivered' ? iso(sms.lifecycle.endedAtMs as number) : null,
	};
}

/** Orders by `sentAt`; messages with equal `sentAt` keep the order in which they arrived. */
export function sortSms(messages: SmsRecord[], order: SmsOrder): SmsRecord[] {
	const direction = order === 'oldestFirst' ? 1 : -1;
	return [...messages].sort((a, b) => direction * (a.sentAtMs - b.sentAtMs || a.seq - b.seq));
}
