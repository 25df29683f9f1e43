/**
 * SMS of the Account API: records, their status scripts, the history view and ordering.
 */
import { iso } from './clock';
import { Lifecycle, type Step } from './lifecycle';
import type { Account, PhoneNumber, SmsOrder, SmsRecord } from './state';
import { makeId } from './state';

export const MAX_SMS_CHARACTERS = 1600;
export const SEGMENT_CHARACTERS = 160;

export type SmsOutcome = 'delivered' | 'failed';

/** Sent messages are confirmed by the carrier after 10 sandbox seconds; received ones are final. */
export const SMS_SCRIPTS: Record<SmsOutcome | 'received', Step[]> = {
	delivered: [{ status: 'sent', seconds: 10 }, { status: 'delivered' }],
	failed: [{ status: 'sent', seconds: 10 }, { status: 'failed' }],
	received: [{ status: 'received' }],
};

/** Characters are counted as Unicode code points. */
export function characterCount(text: string): number {
	return [...text].length;
}

export function segmentsOf(text: string): number {
	return Math.max(1, Math.ceil(characterCount(text) / SEGMENT_CHARACTERS));
}

function newSms(
	fields: Pick<SmsRecord, 'seq' | 'direction' | 'fromNumber' | 'toNumber' | 'body' | 'source' | 'outcome'> & {
		account: Account;
		number: PhoneNumber;
		sentAtMs: number;
		createdAtMs: number;
	},
): SmsRecord {
	const { account, number, sentAtMs, createdAtMs, ...rest } = fields;
	return {
		...rest,
		kind: 'sms',
		id: makeId('sms_sbx_', fields.seq),
		messageId: makeId('SMsbx', fields.seq),
		accountId: account.accountId,
		phoneDocId: number.phoneDocId,
		businessName: number.label,
		segments: segmentsOf(fields.body),
		sentAtMs,
		createdAtMs,
		lifecycle: new Lifecycle(SMS_SCRIPTS[fields.outcome as SmsOutcome | 'received'], sentAtMs),
		settled: fields.direction === 'received',
	};
}

export function newOutboundSms(input: {
	seq: number;
	account: Account;
	number: PhoneNumber;
	to: string;
	body: string;
	outcome: SmsOutcome;
	source: string;
	nowMs: number;
}): SmsRecord {
	return newSms({
		seq: input.seq,
		account: input.account,
		number: input.number,
		direction: 'sent',
		fromNumber: input.number.smsNumber as string,
		toNumber: input.to,
		body: input.body,
		source: input.source,
		outcome: input.outcome,
		sentAtMs: input.nowMs,
		createdAtMs: input.nowMs,
	});
}

/** An inbound message; `sentAtMs` may lie before its arrival (`nowMs`), as late deliveries do. */
export function newInboundSms(input: {
	seq: number;
	account: Account;
	number: PhoneNumber;
	from: string;
	body: string;
	sentAtMs: number;
	nowMs: number;
}): SmsRecord {
	return newSms({
		seq: input.seq,
		account: input.account,
		number: input.number,
		direction: 'received',
		fromNumber: input.from,
		toNumber: input.number.smsNumber as string,
		body: input.body,
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
		deliveredAt: final && sms.outcome === 'delivered' ? iso(sms.lifecycle.endedAtMs as number) : null,
	};
}

/** Orders by `sentAt`; messages with equal `sentAt` keep the order in which they arrived. */
export function sortSms(messages: SmsRecord[], order: SmsOrder): SmsRecord[] {
	const direction = order === 'oldestFirst' ? 1 : -1;
	return [...messages].sort((a, b) => direction * (a.sentAtMs - b.sentAtMs || a.seq - b.seq));
}
