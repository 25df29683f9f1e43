import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { defaultCountryOption, phoneDocIdLocator } from '../shared/descriptions';
import { getNumbers } from '../shared/numbers';
import { itemlessSource, locatorValue, options, phoneNumber, shown } from '../shared/params';
import { ACCOUNT_CREDENTIAL, accountClockOffsetMs, getConnection } from '../shared/transport';
import {
	baseline,
	type CursorState,
	DEFAULT_LOOK_BACK_MINUTES,
	DEFAULT_SETTINGS,
	pageOrder,
	type PageRequest,
	parseState,
	runPoll,
	type PollOutcome,
} from './cursor';
import { failureOf } from './failure';
import { fetchReceived, type InboxFilter, latestReceived } from './inbox';
import {
	boundedOffsetMs,
	claimPoll,
	fingerprint,
	isActivationPoll,
	keepBaseline,
	savedBaseline,
	shortestIntervalMs,
	waitLimitMs,
} from './lifecycle';

/** Where the cursor lives in the node's static data. */
const STATE_KEY = 'smsCursor';
/** n8n's poll budget when the context does not say (older n8n): 5 minutes. */
const DEFAULT_BUDGET_MS = 5 * 60_000;
/** Share of the budget after which no new page is asked for, leaving room for the last one. */
const BUDGET_SHARE = 0.75;

/** A whole number of minutes of at least 0 from the options; `label` names it in the error. */
function minutes(ctx: IPollFunctions, name: string, label: string, fallback: number): number {
	const value = options(itemlessSource(ctx), 0)[name] ?? fallback;
	const number =
		typeof value === 'number'
			? value
			: typeof value === 'string' && value.trim() !== ''
				? Number(value)
				: NaN;
	if (!Number.isFinite(number) || number < 0) {
		throw new NodeOperationError(
			ctx.getNode(),
			`${label} "${shown(value)}" must be a number of minutes, 0 or more`,
			{ failure: { cause: 'configuration-invalid' } },
		);
	}
	return number;
}

function readFilter(ctx: IPollFunctions): InboxFilter {
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

/** The error to throw: n8n's own error types, with the cause declared for n8n's poll backoff. */
function declared(ctx: IPollFunctions, error: unknown): NodeApiError | NodeOperationError {
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

/** Triggers (workflow and node) that have already said their server sent entries that are not records. */
const toldOfJunk = new Set<string>();

function report(ctx: IPollFunctions, outcome: PollOutcome): void {
	const who = `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id ?? ctx.getNode().name}`;
	if (outcome.skipped > 0 && !toldOfJunk.has(who)) {
		toldOfJunk.add(who);
		ctx.logger.warn(
			`Comms Account Trigger: the API sent ${outcome.skipped} entries that are not SMS records (null or not an object) among the messages; they were skipped. Said once per trigger.`,
		);
	}
	if (outcome.newMayBeHidden) {
		ctx.logger.warn(
			outcome.shortfall === 'newestFirstFull'
				? `Comms Account Trigger: more SMS arrived since the last poll than one page (200) holds, and the API returns the newest first, so the older of them could not be read. Split the trigger by Phone Number or Peer to stay under 200 per poll.`
				: `Comms Account Trigger: more than one page (200) of SMS share one sent time, or the API ignored the since filter (${outcome.shortfall}); messages beyond the page could not be read.`,
		);
	} else if (outcome.shortfall === 'stopped') {
		ctx.logger.info(
			`Comms Account Trigger: poll budget reached after ${outcome.pages} pages; the rest is read on the next poll.`,
		);
	}
}

/** One scheduled (or publish-time) poll: reads from the cursor, stores it, returns what is new. */
async function pollOnce(
	ctx: IPollFunctions,
	filter: InboxFilter,
	started: number,
): Promise<INodeExecutionData[][] | null> {
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
	const maxWaitMs = waitLimitMs(
		shortestIntervalMs(ctx.getNodeParameter('pollTimes', {})),
		budgetMs * BUDGET_SHARE,
	);
	const read = (request: Partial<PageRequest>) =>
		fetchReceived(ctx, filter, request, { maxWaitMs });
	const fp = fingerprint({
		event: 'smsReceived',
		phoneDocId: filter.phoneDocId,
		peer: filter.peer,
	});

	const staticData = ctx.getWorkflowStaticData('node');
	let stored = parseState(staticData[STATE_KEY]);
	if (staticData[STATE_KEY] !== undefined && !stored)
		ctx.logger.warn(
			'Comms Account Trigger: the stored cursor could not be read; starting again from now',
		);
	if (stored?.fp !== undefined && stored.fp !== fp) {
		ctx.logger.info(
			'Comms Account Trigger: the event or a filter changed since the last poll; starting again from now',
		);
		stored = undefined;
	}
	let state: CursorState | undefined = stored ? { ...stored, fp } : undefined;
	if (!state) {
		// The first poll: from now on the API's clock (or the last Include Last Minutes), never
		// the whole history. A scheduled poll that finds no cursor starts from the baseline the
		// publish-time poll kept, which n8n may not have committed as the cursor.
		const kept = isActivationPoll(ctx) ? undefined : savedBaseline(ctx, fp);
		let startMs = kept;
		if (startMs === undefined) {
			// One request to read the API's clock (its Date header), when none was read yet.
			if ((await accountClockOffsetMs(ctx)) === undefined) await read({ limit: 1 });
			const offset = boundedOffsetMs(await accountClockOffsetMs(ctx));
			startMs = Date.now() + offset - includeLastMinutes * 60_000;
			keepBaseline(ctx, startMs, fp);
		}
		state = baseline(startMs, fp);
	}

	let offsetMs = await accountClockOffsetMs(ctx);
	const outcome = await runPoll(
		state,
		async (request) => {
			const page = await read(request);
			offsetMs = await accountClockOffsetMs(ctx);
			return page;
		},
		{
			settings: { ...DEFAULT_SETTINGS, lookBackMs: lookBackMinutes * 60_000 },
			// Now on the API's clock (as far as its Date header shows it), which its sentAt uses.
			now: () => Date.now() + boundedOffsetMs(offsetMs),
			keepReading: () => Date.now() - started < budgetMs * BUDGET_SHARE,
			// A page of the latest messages, to see which way the server sorts, when this poll's
			// own pages could not show it.
			probeOrder: async () => {
				const order = pageOrder((await read({})).messages);
				return order === 'unordered' ? undefined : order;
			},
		},
	);

	// Every page of this poll has been read: only now does the cursor move.
	staticData[STATE_KEY] = outcome.state as unknown as IDataObject;
	report(ctx, outcome);
	return outcome.emit.length ? [ctx.helpers.returnJsonArray(outcome.emit as IDataObject[])] : null;
}

export class CommsAccountTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Comms Account Trigger',
		name: 'commsAccountTrigger',
		icon: { light: 'file:../../icons/comms.svg', dark: 'file:../../icons/comms.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '=SMS received',
		description: 'Starts the workflow when an SMS arrives on one of your Comms Account numbers',
		defaults: { name: 'Comms Account Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'commsAccountApi', required: true }],
		properties: [
			{
				...phoneDocIdLocator,
				required: false,
				// Empty means every number, in both modes: "By ID" must accept an empty value, or n8n
				// marks the node as having issues and every execution it starts fails.
				modes: (phoneDocIdLocator.modes ?? []).map((mode) =>
					mode.name === 'id'
						? {
								...mode,
								validation: [
									{
										type: 'regex' as const,
										properties: {
											regex: '(\\S+)?',
											errorMessage:
												'Enter a phoneDocId without spaces, or leave it empty for every number',
										},
									},
								],
							}
						: mode,
				),
				description:
					'Only SMS received on this number. Leave empty to start on SMS to any number of the account.',
			},
			{
				displayName: 'Peer',
				name: 'peer',
				type: 'string',
				default: '',
				placeholder: 'e.g. +44 7700 900123',
				description:
					'Only SMS from this phone number. International form, or national form with the Default Country option. Leave empty for any sender.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					defaultCountryOption,
					{
						displayName: 'Include Last Minutes',
						name: 'includeLastMinutes',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 0,
						description:
							'On the first poll after the workflow is published, also start for SMS received in the last this many minutes. 0 starts from that moment: no history.',
					},
					{
						displayName: 'Late Arrival Window (Minutes)',
						name: 'lookBackMinutes',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: DEFAULT_LOOK_BACK_MINUTES,
						description:
							'Each poll also looks this far back, for SMS the API stores late with an earlier sent time. Messages stored later than this are missed.',
					},
				],
			},
		],
	};

	methods = { listSearch: { getNumbers } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		try {
			await getConnection(this, ACCOUNT_CREDENTIAL).catch((error: unknown) => {
				// The credential's own rules (key prefix, HTTPS): someone has to fix the credential.
				throw new NodeOperationError(this.getNode(), error as Error, {
					failure: { cause: 'credential-invalid' },
				});
			});
			const filter = readFilter(this);

			// "Fetch Test Event": the latest received message; the cursor is neither read nor moved.
			if (this.getMode() === 'manual')
				return [this.helpers.returnJsonArray([await latestReceived(this, filter, Date.now())])];

			const started = Date.now();
			// One poll of this trigger at a time: another one still running (a slow page, a 429
			// waited out) reads the same cursor, and both would emit what they find.
			const release = claimPoll(this, started);
			if (!release) {
				this.logger.debug(
					'Comms Account Trigger: the previous poll of this trigger is still running; this one is skipped',
				);
				return null;
			}
			try {
				return await pollOnce(this, filter, started);
			} finally {
				release();
			}
		} catch (error) {
			// Thrown in both modes: a test run shows it; an active workflow's poller reads the
			// declared cause to back off (a 429 for its wait, a dead key or suspended account for
			// longest) and the next poll starts from the cursor this one left untouched.
			throw declared(this, error);
		}
	}
}
