/**
 * Skip If Sent Within, the pure half: which SMS already in the history stand for items of a node
 * run, so that running a workflow again after lost work (a worker or n8n killed mid-send, an
 * execution that failed half-way) sends nothing twice. The requests are in `earlierSmsReads.ts`.
 *
 * The rule (docs/guarantees.md, "Running a workflow again"): an item is skipped when the SMS
 * history holds an SMS from the same number to the same recipient with exactly the same text,
 * sent inside the window, which ends when this execution's first SMS Send began, and which no
 * other item of this node run has taken. So each earlier SMS excuses one item (two identical items
 * after one earlier SMS: one is skipped, one is sent), and what this execution sends itself (this
 * node run, or an earlier one in a loop or before a Wait) is never a reason to skip: a second
 * identical SMS inside one execution is deliberate.
 */
import type { IDataObject } from 'n8n-workflow';

import { isSmsRecord, recordKey, type SmsRecord } from './smsPaging';

/** The history an item's earlier send may be in: sent at or after `fromMs`, before `beforeMs` (the API's clock). */
export interface SkipWindow {
	fromMs: number;
	beforeMs: number;
}

/** What the window needs of the API's clock (../../shared/transport/serverClock.ts, `ApiClock`). */
export interface WindowClock {
	/** The earliest API time of a record made at or after n8n's `wallMs`. */
	since(wallMs: number): number;
	/** From this API time on, a record was made after n8n's `wallMs`. */
	madeAfter(wallMs: number): number;
}

/**
 * The window of a run, in one place: on the API's clock, from `minutes` before `anchorWallMs`
 * (n8n's clock when this execution's first SMS Send began) to that moment. Its start takes in
 * everything sent since then, however far the API's clock may be off; its end leaves out
 * everything made after it (this execution's own SMS), so an SMS sent in the last few seconds
 * before the anchor (the clock's same-moment floor, widened by what is not known of it) is left
 * out too.
 */
export function skipWindow(clock: WindowClock, anchorWallMs: number, minutes: number): SkipWindow {
	return {
		fromMs: clock.since(anchorWallMs - minutes * 60_000),
		beforeMs: clock.madeAfter(anchorWallMs),
	};
}

function sentTime(record: SmsRecord): number | undefined {
	for (const key of ['sentAt', 'createdAt']) {
		const value = record[key];
		if (typeof value !== 'string') continue;
		const ms = Date.parse(value);
		if (!Number.isNaN(ms)) return ms;
	}
	return undefined;
}

const pairKey = (to: string, message: string) => `${to}\u0000${message}`;

/**
 * Earlier SMS from one number, read from its history, by recipient and text, oldest first. A
 * record counts when it was sent (direction `sent`, or none given), to a recipient, with a text,
 * at a readable time inside the window; a record whose time cannot be read cannot be placed
 * before this execution, so it counts for nothing.
 */
export class EarlierSms {
	private readonly byPair = new Map<string, SmsRecord[]>();

	constructor(records: unknown[], window: SkipWindow) {
		const dated: Array<{ record: SmsRecord; at: number }> = [];
		for (const record of records) {
			if (!isSmsRecord(record)) continue;
			if (record.direction !== undefined && record.direction !== 'sent') continue;
			if (typeof record.toNumber !== 'string' || typeof record.body !== 'string') continue;
			const at = sentTime(record);
			if (at === undefined || at < window.fromMs || at >= window.beforeMs) continue;
			dated.push({ record, at });
		}
		dated.sort((a, b) => a.at - b.at);
		for (const { record } of dated) {
			const key = pairKey(record.toNumber as string, record.body as string);
			const list = this.byPair.get(key) ?? [];
			list.push(record);
			this.byPair.set(key, list);
		}
	}

	/**
	 * The oldest earlier SMS to `to` with exactly `message` that `taken` does not hold yet; it is
	 * added to `taken` (the run's, shared by every read of the run, so one record excuses one item).
	 */
	take(to: string, message: string, taken: Set<string>): SmsRecord | undefined {
		for (const record of this.byPair.get(pairKey(to, message)) ?? []) {
			const key = recordKey(record);
			if (taken.has(key)) continue;
			taken.add(key);
			return record;
		}
		return undefined;
	}
}

/**
 * The item of an SMS found already sent: the send result the API gave for it, as far as the
 * record says, with `skipped` and, in words, what was found and why nothing was sent.
 */
export function skippedOutput(
	record: SmsRecord,
	sms: { phoneDocId: string; to: string },
	minutes: number,
	segmentsFallback: number,
): IDataObject {
	const messageId = record.messageId ?? record.id;
	const result: IDataObject = {
		messageId: messageId as IDataObject[string],
		status: record.status as IDataObject[string],
		from: record.fromNumber as IDataObject[string],
		to: sms.to,
		phoneDocId: sms.phoneDocId,
		segmentsUsed: typeof record.segments === 'number' ? record.segments : segmentsFallback,
	};
	if (record.sentAt !== undefined) result.sentAt = record.sentAt as IDataObject[string];
	const when = typeof record.sentAt === 'string' ? ` at ${record.sentAt}` : '';
	const id = typeof messageId === 'string' && messageId !== '' ? ` (message ${messageId})` : '';
	return {
		...result,
		skipped: true,
		skippedBecause: `Already sent: the SMS history holds an SMS from this number to ${sms.to} with exactly this text, sent${when}${id}, in the ${minutes} minutes before this execution's first SMS Send (Skip If Sent Within). So it was not sent again. To send it anyway, set Skip If Sent Within to 0.`,
	};
}
