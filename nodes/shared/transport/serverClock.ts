/**
 * The server's clock: each address's clock as the `Date` header of its latest answer showed it,
 * so that look-ups and history requests use the API's time rather than this host's.
 */
import type { ServerClock } from '../recovery';
import { ACCOUNT_CREDENTIAL, type CommsContext, getConnection } from './connection';

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
