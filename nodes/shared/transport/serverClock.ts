/**
 * The server's clock: each address's clock as the `Date` header of its latest answer showed it,
 * so that look-ups and history requests use the API's time rather than this host's.
 */
import { ACCOUNT_CREDENTIAL, type CommsContext, getConnection } from './connection';

/**
 * What is known of a server's clock, from the `Date` header of one answer: the server's time
 * when it wrote the header lies between `lowMs` and `lowMs + spreadMs` after subtracting our
 * own clock (the header's whole second, and how long that request took, start to end).
 */
export interface ServerClock {
	/** The least the server's clock can be ahead of ours (ms; negative when behind). */
	lowOffsetMs: number;
}

/**
 * Margin below the moment the request was first sent, on top of what the clocks' uncertainty
 * already allows: the server may stamp a record a little before the request is in full.
 */
export const SINCE_MARGIN_MS = 1_000;
/**
 * The margin when the server gave no `Date` header (some gateways strip it): the n8n host's
 * clock is then taken for the server's, and hosts kept by NTP agree within this much. Wider
 * would take an earlier identical message for this one; narrower, miss this one.
 */
export const SINCE_MARGIN_UNKNOWN_CLOCK_MS = 5_000;

/**
 * The `since` of a look-up: the earliest instant, on the server's clock, at which a record the
 * request made can be stamped. With the server's clock known, the request's start moved by the
 * least offset the `Date` header allows; otherwise our own clock, with a margin for skew.
 */
export function lookupSince(firstSentWallMs: number, clock: ServerClock | undefined): number {
	return clock === undefined
		? firstSentWallMs - SINCE_MARGIN_UNKNOWN_CLOCK_MS
		: firstSentWallMs + clock.lowOffsetMs - SINCE_MARGIN_MS;
}

/**
 * What an answer's `Date` header says of the server's clock, for a request sent at
 * `sentWallMs` whose answer arrived at `receivedWallMs` (our clock). The server wrote the
 * header between the two, in whole seconds: so its clock is ahead of ours by at least
 * `date - received`. Undefined without a readable header.
 */
export function serverClockOf(
	dateHeader: unknown,
	sentWallMs: number,
	receivedWallMs: number,
): ServerClock | undefined {
	const value = Array.isArray(dateHeader) ? dateHeader[0] : dateHeader;
	if (typeof value !== 'string') return undefined;
	const serverMs = Date.parse(value);
	if (Number.isNaN(serverMs)) return undefined;
	return { lowOffsetMs: serverMs - Math.max(sentWallMs, receivedWallMs) };
}

/** What each address's clock is known to be, from its latest `Date` header. */
export const serverClocks = new Map<string, ServerClock>();

/**
 * How far the Account API's clock is ahead of n8n's (negative: behind), from the `Date`
 * header of its latest answer in this process (the least its whole seconds and the request's
 * round trip allow); undefined before any answer with one.
 */
export async function accountClockOffsetMs(ctx: CommsContext): Promise<number | undefined> {
	const connection = await getConnection(ctx, ACCOUNT_CREDENTIAL);
	return serverClocks.get(connection.scope)?.lowOffsetMs;
}

/**
 * Now on the Account API's clock, as far as its `Date` headers have shown it (this host's
 * clock when none has): for times sent to it, such as the `since` of a history request.
 */
export async function accountServerNow(ctx: CommsContext): Promise<number> {
	const connection = await getConnection(ctx, ACCOUNT_CREDENTIAL);
	return Date.now() + (serverClocks.get(connection.scope)?.lowOffsetMs ?? 0);
}
