/**
 * Skip If Sent Within, the requests: the SMS history an SMS Send node run reads to find what was
 * already sent (the matching is in `earlierSms.ts`).
 *
 * Once per node run and number, before anything is sent: the number's sent SMS in the window,
 * paged (`smsPaging.ts`, whichever order the server returns), at most 5 pages. So a run of 1,200
 * items after a quiet window costs one request more, not 1,200. When that read cannot be complete
 * (more than 1,000 SMS in the window, or more than a page when the API returns newest first and
 * cannot page back), each recipient's history is read alone instead (`peer`), at most once per
 * recipient in the run; a run with one recipient reads only that. A recipient's read happens
 * before anything goes to that recipient in this run (the runner sends one recipient's items one
 * after another), and every read stops at the moment this execution's first SMS Send began, so no
 * item is matched against an SMS this execution sent.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { executionRecord } from '../../shared/runtime/executionMemory';
import { accountApiRequest, accountClock } from './request';
import { EarlierSms, skipWindow, type SkipWindow } from './earlierSms';
import { collectSms, type SmsPage, type SmsRecord } from './smsPaging';

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
