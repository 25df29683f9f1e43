/**
 * What every event of the trigger reads the same way: its filters and options, the poll's
 * budget and longest wait, the baseline of a first poll, and the errors it throws.
 */
import type { IPollFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	itemlessSource,
	locatorValue,
	options,
	phoneNumber,
	shown,
} from '../../shared/parameters/nodeParameters';
import { accountClock } from '../api/accountApi';
import { numberOf } from '../../shared/parameters/expressionValues';
import { type CursorState, DEFAULT_LOOK_BACK_MINUTES, type RecordShape } from './cursorState';
import { type PageRequest } from './pageReading';
import { activate } from './startingPoint';
import type { SmsPage } from '../api/smsPaging';
import { failureOf } from './pollFailure';
import type { InboxFilter } from './smsHistoryReads';
import {
	isActivationPoll,
	keepBaseline,
	savedBaseline,
	shortestIntervalMs,
	waitLimitMs,
} from './pollLifecycle';

/** n8n's poll budget when the context does not say (older n8n): 5 minutes. */
const DEFAULT_BUDGET_MS = 5 * 60_000;
/** Share of the budget after which no new page is asked for, leaving room for the last one. */
const BUDGET_SHARE = 0.75;

/** A whole number of minutes of at least 0 from the options; `label` names it in the error. */
function minutes(ctx: IPollFunctions, name: string, label: string, fallback: number): number {
	const value = options(itemlessSource(ctx), 0)[name] ?? fallback;
	const number = numberOf(value);
	if (!Number.isFinite(number) || number < 0) {
		throw new NodeOperationError(
			ctx.getNode(),
			`${label} "${shown(value)}" must be a number of minutes, 0 or more`,
			{ failure: { cause: 'configuration-invalid' } },
		);
	}
	return number;
}

export function readFilter(ctx: IPollFunctions): InboxFilter {
	const source = itemlessSource(ctx);
	const phoneDocId = locatorValue(ctx.getNodeParameter('phoneDocId', '', { extractValue: true }));
	const raw = ctx.getNodeParameter('peer', '') as unknown;
	let peer = '';
	if (raw !== '' && raw !== null && raw !== undefined) {
		try {
			peer = phoneNumber(source, 0, raw, 'Peer');
		} catch (error) {
			throw new NodeOperationError(ctx.getNode(), error as Error, {
				failure: { cause: 'configuration-invalid' },
			});
		}
	}
	return { phoneDocId, peer };
}

export interface PollSetup {
	filter: InboxFilter;
	includeLastMs: number;
	lookBackMs: number;
	/** When the poll started (Date.now()). */
	started: number;
	budgetMs: number;
	/** The longest any one wait of a request may be in this poll. */
	maxWaitMs: number;
}

export function readSetup(ctx: IPollFunctions, filter: InboxFilter, started: number): PollSetup {
	const includeLastMinutes = minutes(ctx, 'includeLastMinutes', 'Include Last Minutes', 0);
	const lookBackMinutes = minutes(
		ctx,
		'lookBackMinutes',
		'Late Arrival Window (Minutes)',
		DEFAULT_LOOK_BACK_MINUTES,
	);
	const budgetMs =
		(ctx as Partial<Pick<IPollFunctions, 'getPollBudgetMs'>>).getPollBudgetMs?.() ??
		DEFAULT_BUDGET_MS;
	return {
		filter,
		includeLastMs: includeLastMinutes * 60_000,
		lookBackMs: lookBackMinutes * 60_000,
		started,
		budgetMs,
		maxWaitMs: waitLimitMs(
			shortestIntervalMs(ctx.getNodeParameter('pollTimes', {})),
			budgetMs * BUDGET_SHARE,
		),
	};
}

/** Whether the poll may ask for another page (the budget counts from the poll's start). */
export function withinBudget(setup: PollSetup): boolean {
	return Date.now() - setup.started < setup.budgetMs * BUDGET_SHARE;
}

/**
 * Now on the API's clock, as the records this n8n made have shown it (n8n's clock where nothing
 * has): what the trigger dates by, and what its position never passes (serverClock.ts).
 */
export async function apiNow(ctx: IPollFunctions): Promise<number> {
	return (await accountClock(ctx)).now();
}

/**
 * Where a trigger without a state starts. A scheduled poll that finds no state starts from the one
 * the publish-time poll kept, which n8n may not have committed as the node's state. Otherwise it
 * reads the history at activation: what that read finds was there before, and is history;
 * anything after it is new, whatever the API's clock says (startingPoint.ts). With Include Last
 * Minutes, from that many minutes before the moment of publishing, on the API's clock as that
 * read showed it. `read` asks for one page; `shape` dates and tells the records apart.
 */
export async function startOf(
	ctx: IPollFunctions,
	fp: string,
	setup: PollSetup,
	read: (request: PageRequest) => Promise<SmsPage>,
	shape?: RecordShape,
): Promise<CursorState> {
	const kept = isActivationPoll(ctx) ? undefined : savedBaseline(ctx, fp);
	if (kept !== undefined) return { ...kept, fp };
	const clock = await accountClock(ctx);
	const publishedMs = Date.now();
	const state = await activate(read, {
		publishedMs,
		since: () => clock.since(publishedMs),
		now: () => clock.now(),
		includeLastMs: setup.includeLastMs,
		shape,
		keepReading: () => withinBudget(setup),
		fp,
	});
	keepBaseline(ctx, state, fp);
	return state;
}

/** Whether a stored state is for another event or other filters (then it is started afresh). */
function forOtherFilters(ctx: IPollFunctions, storedFp: string | undefined, fp: string) {
	if (storedFp === undefined || storedFp === fp) return false;
	ctx.logger.info(
		'Comms Account Trigger: the event or a filter changed since the last poll; starting again from now',
	);
	return true;
}

/**
 * The state this trigger node stored under `key`, as `parse` reads it; undefined when there is
 * none, when it cannot be read (said in n8n's log), or when it is for another event or other
 * filters than `fp` (then the trigger starts afresh from now).
 */
export function storedState<T extends { fp?: string }>(
	ctx: IPollFunctions,
	key: string,
	parse: (value: unknown) => T | undefined,
	fp: string,
): T | undefined {
	const value = ctx.getWorkflowStaticData('node')[key];
	const stored = parse(value);
	if (value !== undefined && !stored)
		ctx.logger.warn(
			'Comms Account Trigger: the stored state could not be read; starting again from now',
		);
	return forOtherFilters(ctx, stored?.fp, fp) ? undefined : stored;
}

/** Triggers (workflow and node) that have already said their server sent entries that are not records. */
const toldOfJunk = new Set<string>();

/** Says once per trigger (in this process) that the API sent entries that are not records. */
export function reportSkipped(ctx: IPollFunctions, skipped: number, what: string): void {
	const who = `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id ?? ctx.getNode().name}`;
	if (skipped === 0 || toldOfJunk.has(who)) return;
	toldOfJunk.add(who);
	ctx.logger.warn(
		`Comms Account Trigger: the API sent ${skipped} entries that are not ${what} records (null or not an object); they were skipped. Said once per trigger.`,
	);
}

/** The error to throw: n8n's own error types, with the cause declared for n8n's poll backoff. */
export function declared(ctx: IPollFunctions, error: unknown): NodeApiError | NodeOperationError {
	const failure = (error as { failure?: unknown })?.failure ? undefined : failureOf(error);
	if (error instanceof NodeApiError)
		return new NodeApiError(
			ctx.getNode(),
			error as unknown as JsonObject,
			failure ? { failure } : {},
		);
	return new NodeOperationError(
		ctx.getNode(),
		error instanceof Error ? error : String(error),
		failure ? { failure } : {},
	);
}
