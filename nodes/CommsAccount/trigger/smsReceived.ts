/** The "SMS Received" event: every SMS the account's numbers receive, once, through the cursor. */
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { type CursorState, DEFAULT_SETTINGS, parseState } from './cursorState';
import { pageOrder, type PageRequest } from './pageReading';
import { runPoll } from './historyCursor';
import { fetchReceived } from './smsHistoryReads';
import { fingerprint } from './pollLifecycle';
import { reportPoll } from './pollWarnings';
import {
	apiNow,
	type PollSetup,
	reportSkipped,
	startOf,
	storedState,
	withinBudget,
} from './pollSettings';

/** Where the cursor lives in the node's static data. */
const STATE_KEY = 'smsCursor';

/** One scheduled (or publish-time) poll: reads from the cursor, stores it, returns what is new. */
export async function pollSmsReceived(
	ctx: IPollFunctions,
	setup: PollSetup,
): Promise<INodeExecutionData[][] | null> {
	const { filter, maxWaitMs } = setup;
	const read = (request: Partial<PageRequest>) =>
		fetchReceived(ctx, filter, request, { maxWaitMs });
	const fp = fingerprint({
		event: 'smsReceived',
		phoneDocId: filter.phoneDocId,
		peer: filter.peer,
	});

	const stored = storedState(ctx, STATE_KEY, parseState, fp);
	const state: CursorState = stored ? { ...stored, fp } : await startOf(ctx, fp, setup, read);

	let now = await apiNow(ctx);
	const result = await runPoll(
		state,
		async (request) => {
			const page = await read(request);
			now = await apiNow(ctx);
			return page;
		},
		{
			settings: { ...DEFAULT_SETTINGS, lookBackMs: setup.lookBackMs },
			// Now on the API's clock, as far as it was measured (its sentAt uses that clock).
			now: () => now,
			keepReading: () => withinBudget(setup),
			// A page of the latest messages, to see which way the server sorts, when this poll's
			// own pages could not show it.
			probeOrder: async () => {
				const order = pageOrder((await read({})).messages);
				return order === 'unordered' ? undefined : order;
			},
		},
	);

	// Every page of this poll has been read: only now does the cursor move.
	ctx.getWorkflowStaticData('node')[STATE_KEY] = result.state as unknown as IDataObject;
	reportSkipped(ctx, result.skipped, 'SMS');
	reportPoll(ctx, result, { records: 'SMS', time: 'sent time' });
	return result.emit.length ? [ctx.helpers.returnJsonArray(result.emit as IDataObject[])] : null;
}
