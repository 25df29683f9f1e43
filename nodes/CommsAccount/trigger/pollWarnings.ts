/**
 * What a poll says in n8n's log when it could not read everything, or let something go: one
 * warning line a poll at most (the reasons joined), in the terms the documentation uses.
 */
import type { IPollFunctions } from 'n8n-workflow';

import { MAX_PAGE_SIZE } from '../api/smsPaging';
import type { Shortfall, Stop } from './pageReading';

/** What a poll's reading ended with (historyCursor.ts's PollResult, inProgressRecords.ts's InProgressResult). */
export interface ReadReport {
	pages: number;
	shortfall?: Shortfall;
	newMayBeHidden: boolean;
	stopped?: Stop;
	steppedPast?: number[];
	/** Records without a usable time emitted by this poll. */
	undated: number;
}

/** What a poll of records in progress let go. */
export interface TrackReport {
	/** SMS no longer watched at the end of their watch. */
	expired: number;
	/** Records in progress let go for room. */
	overflowed: number;
	/** Records in progress the API no longer had. */
	gone: number;
}

export interface Nouns {
	/** The records, plural ("SMS", "sent SMS", "calls"). */
	records: string;
	/** Their time field ("sent time", "creation time"). */
	time: string;
}

const PREFIX = 'Comms Account Trigger: ';

function shortfallText(read: ReadReport, { records, time }: Nouns): string | undefined {
	if (!read.newMayBeHidden || !read.shortfall) return undefined;
	switch (read.shortfall) {
		case 'newestFirstFull':
			return `more ${records} arrived since the last poll than one page (${MAX_PAGE_SIZE}) holds, and the API returns the newest first, so the older of them could not be read. Split the trigger by Phone Number or Peer to stay under ${MAX_PAGE_SIZE} per poll.`;
		case 'sameSentAt': {
			const at = (read.steppedPast ?? []).map((ms) => new Date(ms).toISOString());
			if (at.length > 1)
				return `more than one page (${MAX_PAGE_SIZE}) of ${records} share one ${time} at each of ${at.join(', ')}: the API cannot page past them, so one page at each was read and the trigger moved on past each time.`;
			return `more than one page (${MAX_PAGE_SIZE}) of ${records} share one ${time}${at.length ? ` (${at[0]})` : ''}: the API cannot page past them, so one page of them was read and the trigger moved on past that time.`;
		}
		case 'noProgress':
			return `the API answered with a full page of ${records} all older than the since asked for (it seems to ignore since), so nothing after that page could be read.`;
		case 'unordered':
			return `the API answered with a full page of ${records} in no order of ${time}; the trigger read on from the newest of them, and ${records} that page left out may have been missed.`;
		case 'undated':
			return `the API answered with a full page of ${records} without a readable ${time}, so nothing after that page could be read.`;
	}
	return undefined;
}

/** Logs what the reading of one poll (and, for records in progress, its tracking) could not do. */
export function reportPoll(
	ctx: IPollFunctions,
	read: ReadReport,
	nouns: Nouns,
	track?: TrackReport,
): void {
	const warnings: string[] = [];
	const shortfall = shortfallText(read, nouns);
	if (shortfall) warnings.push(shortfall);
	if (read.stopped === 'pageBudget')
		warnings.push(
			`this poll read ${read.pages} pages of ${nouns.records}, the most one poll reads, and there are more: the next polls read on from there (nothing is skipped).`,
		);
	if (read.undated > 0)
		warnings.push(
			`${read.undated} ${nouns.records} without a readable ${nouns.time} were emitted, each once, in the order read.`,
		);
	if (track?.overflowed)
		warnings.push(
			`${track.overflowed} of the ${nouns.records} still in progress were let go to keep the number watched bounded (the oldest first).`,
		);
	if (track?.gone)
		warnings.push(
			`${track.gone} ${nouns.records} in progress could no longer be looked up (the API did not find them) and are no longer watched.`,
		);
	if (warnings.length) ctx.logger.warn(PREFIX + warnings.join(' '));
	if (read.stopped === 'timeBudget')
		ctx.logger.info(
			`${PREFIX}poll budget reached after ${read.pages} pages; the rest is read on the next poll.`,
		);
	if (track?.expired)
		ctx.logger.info(
			`${PREFIX}${track.expired} sent SMS had no delivery receipt a day after they were sent and are no longer watched.`,
		);
}
