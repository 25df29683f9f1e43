/**
 * Skip If Sent Within: which SMS already in the history stand for items of a node run, so that
 * running a workflow again after lost work (a worker or n8n killed mid-send, an execution that
 * failed half-way) sends nothing twice; and the reads of the history that find them.
 *
 * The rule (docs/guarantees.md, "Running a workflow again"): an item is skipped when the SMS
 * history holds an SMS from the same number to the same recipient with exactly the same text,
 * sent inside the window, which ends when this execution's first SMS Send began, and which no
 * other item of this node run has taken. So each earlier SMS excuses one item (two identical items
 * after one earlier SMS: one is skipped, one is sent), and what this execution sends itself (this
 * node run, or an earlier one in a loop or before a Wait) is never a reason to skip: a second
 * identical SMS inside one execution is deliberate.
 *
 * The reads: once per node run and number, before anything is sent: the number's sent SMS in the window,
 * paged (`smsPaging.ts`, whichever order the server returns), at most 5 pages. So a run of 1,200
 * items after a quiet window costs one request more, not 1,200. When that read cannot be complete
 * (more than 1,000 SMS in the window, or more than a page when the API returns newest first and
 * cannot page back), each recipient's history is read alone instead (`peer`), at most once per
 * recipient in the run; a run with one recipient reads only that. A recipient's read happens
 * before anything goes to that recipient in this run (the runner sends one recipient's items one
 * after another), and every read stops at the moment this execution's first SMS Send began, so no
 * item is matched against an SMS this execution sent.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { executionRecord } from '../../shared/runtime/executionMemory';
import { accountApiRequest, accountClock } from './accountApi';
import { collectSms, isSmsRecord, recordKey, type SmsPage, type SmsRecord } from './smsPaging';

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

/** Pages one history read may take (1,000 SMS); past that, each recipient's history is read alone. */
const MAX_PAGES = 5;

interface HistoryRead {
	earlier: EarlierSms;
	/** Set when the read could not hold everything in the window: how many SMS it did read. */
	incomplete?: number;
}

/** What one node run has read and taken: kept per node run (n8n makes a context per run). */
interface RunReads {
	/** Each number's recipients in this run (noted as items are prepared, before any is run). */
	recipients: Map<string, Set<string>>;
	windows: Map<number, Promise<SkipWindow>>;
	reads: Map<string, Promise<HistoryRead>>;
	/** Earlier SMS already standing for an item of this run. */
	taken: Set<string>;
}

const runs = new WeakMap<object, RunReads>();

function runOf(ctx: IExecuteFunctions): RunReads {
	let run = runs.get(ctx);
	if (!run) {
		run = { recipients: new Map(), windows: new Map(), reads: new Map(), taken: new Set() };
		runs.set(ctx, run);
	}
	return run;
}

function once<T>(
	map: Map<string | number, Promise<T>>,
	key: string | number,
	make: () => Promise<T>,
) {
	let value = map.get(key);
	if (!value) {
		value = make();
		map.set(key, value);
	}
	return value;
}

export interface SmsToSend {
	phoneDocId: string;
	to: string;
	message: string;
}

/** Notes an item's number and recipient when it is prepared, so the run knows all its recipients. */
export function noteSmsToSend(ctx: IExecuteFunctions, sms: SmsToSend): void {
	const run = runOf(ctx);
	const recipients = run.recipients.get(sms.phoneDocId) ?? new Set<string>();
	recipients.add(sms.to);
	run.recipients.set(sms.phoneDocId, recipients);
}

/**
 * When this execution's first SMS Send began, on n8n's clock: kept with the execution (so a loop,
 * or a run after a Wait, on any worker, uses the same moment), and taken anew by another
 * execution, the editor's Retry of a failed one included (a new execution id).
 */
function executionAnchor(ctx: IExecuteFunctions): number {
	const execution = String(ctx.getExecutionId?.() ?? '');
	const record = executionRecord(ctx);
	const kept = record.smsSendsBegan as { execution?: string; atMs?: number } | undefined;
	if (kept?.execution === execution && typeof kept.atMs === 'number') return kept.atMs;
	const atMs = Date.now();
	record.smsSendsBegan = { execution, atMs };
	return atMs;
}

/**
 * One history read over `window` (its `since`), whose records are then placed in the window as
 * the API's clock is known once that very answer is in: a record the node made, read back,
 * measures the clock, so the window is taken again (`remake`) before the records are matched.
 */
async function readHistory(
	ctx: IExecuteFunctions,
	filter: { phoneDocId: string; peer?: string },
	window: SkipWindow,
	remake: () => Promise<SkipWindow>,
	itemIndex: number,
): Promise<HistoryRead> {
	const { messages, incomplete } = await collectSms(
		async (page) => {
			const body = await accountApiRequest(ctx, {
				method: 'GET',
				path: '/v1/sms',
				qs: { ...filter, direction: 'sent', since: page.since, limit: page.limit },
				itemIndex,
			});
			return {
				messages: Array.isArray(body.messages) ? body.messages : [],
				nextSince: body.nextSince,
			} as SmsPage;
		},
		{ limit: Infinity, since: new Date(window.fromMs).toISOString(), maxPages: MAX_PAGES },
	);
	return {
		earlier: new EarlierSms(messages, await remake()),
		incomplete: incomplete === undefined ? undefined : messages.length,
	};
}

export interface EarlierSmsFound {
	window: SkipWindow;
	/** The earlier SMS standing for this item, if there is one. */
	record?: SmsRecord;
	/** Set when nothing was found and the history could not be read in full for this recipient. */
	unchecked?: string;
}

/** The earlier SMS that stands for this item in the history, if the history holds one. */
export async function findEarlierSms(
	ctx: IExecuteFunctions,
	sms: SmsToSend,
	minutes: number,
	itemIndex: number,
): Promise<EarlierSmsFound> {
	const run = runOf(ctx);
	const anchor = executionAnchor(ctx);
	const remake = async () => skipWindow(await accountClock(ctx), anchor, minutes);
	const window = await once(run.windows, minutes, remake);
	if ((run.recipients.get(sms.phoneDocId)?.size ?? 1) > 1) {
		const all = await once(run.reads, `${minutes}|${sms.phoneDocId}`, () =>
			readHistory(ctx, { phoneDocId: sms.phoneDocId }, window, remake, itemIndex),
		);
		const record = all.earlier.take(sms.to, sms.message, run.taken);
		if (record || !all.incomplete) return { window, record };
	}
	const own = await once(run.reads, `${minutes}|${sms.phoneDocId}|${sms.to}`, () =>
		readHistory(ctx, { phoneDocId: sms.phoneDocId, peer: sms.to }, window, remake, itemIndex),
	);
	const record = own.earlier.take(sms.to, sms.message, run.taken);
	if (record) return { window, record };
	return {
		window,
		unchecked:
			own.incomplete === undefined
				? undefined
				: `the API returned ${own.incomplete} of this number's SMS to ${sms.to} since ${new Date(window.fromMs).toISOString()} and could not return the rest`,
	};
}
