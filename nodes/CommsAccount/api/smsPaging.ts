/**
 * Reading many SMS records from GET /v1/sms, whatever the server does with its cursor.
 *
 * The spec gives `since` as an inclusive lower bound and `nextSince` as the sentAt of the
 * oldest message returned, "to page backwards", and leaves the order of results unstated.
 * Those cannot all hold at once, so this follows whichever cursor can make progress:
 * - results oldest first: the next page starts at the newest sentAt seen (forward paging);
 * - results newest first: the next page asks for the server's `nextSince` (backward paging,
 *   if the server really does that).
 * Records are told apart by id, so a record is never returned twice, and reading stops as
 * soon as a page brings nothing new: it always ends, and says when the API could not give
 * more than it did.
 */

export interface SmsRecord {
	id?: unknown;
	messageId?: unknown;
	sentAt?: unknown;
	[key: string]: unknown;
}

export interface SmsPage {
	messages: SmsRecord[];
	nextSince?: unknown;
}

export type FetchSmsPage = (query: { since?: string; limit: number }) => Promise<SmsPage>;

export interface CollectResult {
	messages: SmsRecord[];
	/** Set when the API could not return everything that matched. */
	incomplete?: string;
}

/** The API's largest page for list endpoints (GET /v1/sms and GET /v1/calls). */
export const MAX_PAGE_SIZE = 200;

/** An entry of a page that is a record (an object, not null, not an array). */
export function isSmsRecord(entry: unknown): entry is SmsRecord {
	return typeof entry === 'object' && entry !== null && !Array.isArray(entry);
}

export function recordKey(record: SmsRecord): string {
	if (!isSmsRecord(record)) return JSON.stringify(record) ?? String(record);
	const id = record.id ?? record.messageId;
	return id !== undefined && id !== null ? String(id) : JSON.stringify(record);
}

function time(record: SmsRecord): number {
	return typeof record.sentAt === 'string' ? Date.parse(record.sentAt) : NaN;
}

/** The cursor for the page after `page`, or undefined when no cursor can move on. */
function nextCursor(page: SmsPage): string | undefined {
	const dated = page.messages.filter((m) => isSmsRecord(m) && !Number.isNaN(time(m)));
	if (dated.length === 0) return undefined;
	const first = time(dated[0]);
	const last = time(dated[dated.length - 1]);
	let cursor: unknown;
	if (first < last) cursor = dated[dated.length - 1].sentAt;
	else if (first > last) cursor = page.nextSince ?? dated[dated.length - 1].sentAt;
	else cursor = dated[0].sentAt;
	return typeof cursor === 'string' ? cursor : undefined;
}

/**
 * Reads up to `limit` records (Infinity for all), starting at `since`.
 * `maxPages` is a last-resort bound against a server that keeps inventing records.
 */
export async function collectSms(
	fetchPage: FetchSmsPage,
	{ limit, since, maxPages = 1000 }: { limit: number; since?: string; maxPages?: number },
): Promise<CollectResult> {
	const seen = new Set<string>();
	const messages: SmsRecord[] = [];
	let cursor = since;
	for (let pageNumber = 1; ; pageNumber++) {
		// Always a full page (trimmed below): a short last page would bring back the record at an
		// inclusive cursor and little else, and look like the end of the data.
		const pageSize = Math.min(MAX_PAGE_SIZE, limit);
		const page = await fetchPage({ since: cursor, limit: pageSize });
		let fresh = 0;
		for (const record of page.messages) {
			// A server that sends null (or any non-object) among the records: skipped.
			if (!isSmsRecord(record)) continue;
			const key = recordKey(record);
			if (seen.has(key)) continue;
			seen.add(key);
			fresh++;
			messages.push(record);
			if (messages.length >= limit) return { messages };
		}
		if (page.messages.length < pageSize) return { messages };
		const following = nextCursor(page);
		if (fresh === 0 || following === undefined) {
			return {
				messages,
				incomplete: `The API could not return more than these ${messages.length} messages for this filter: asking for the next page brought nothing new. To reach other messages, narrow the filter (Since, Direction, Peer or Phone Number).`,
			};
		}
		if (pageNumber >= maxPages) {
			return {
				messages,
				incomplete: `Stopped after ${maxPages} pages (${messages.length} messages). Narrow the filter to read the rest.`,
			};
		}
		cursor = following;
	}
}
