/**
 * The look-ups an Account API write passes to the transport, so that a send whose outcome is
 * unknown is looked up in the history before anything else (see `recoveryMatching.ts`
 * for the matching and `../transport/recovery.ts` for when it happens).
 */
import type { IDataObject } from 'n8n-workflow';

import {
	callIds,
	type CallCreate,
	latestSentSms,
	matchCreatedCall,
	matchSentSms,
	type SmsSend,
	smsIds,
} from './recoveryMatching';
import {
	accountApiRequest,
	accountClock,
	type CommsContext,
	type RecoveryLookup,
} from '../transport';

/** Records asked for in one look-up: the API's largest page. */
const PAGE = 200;

const iso = (ms: number) => new Date(ms).toISOString();

function smsOf(body: IDataObject): SmsSend {
	return {
		phoneDocId: String(body.phoneDocId),
		to: String(body.to),
		message: String(body.message),
	};
}

/** A page of the SMS sent from that number to that recipient since `sinceMs`. */
function sentSmsPage(
	ctx: CommsContext,
	sms: SmsSend,
	sinceMs: number,
	itemIndex: number | undefined,
): Promise<IDataObject> {
	return accountApiRequest(ctx, {
		method: 'GET',
		path: '/v1/sms',
		qs: {
			phoneDocId: sms.phoneDocId,
			peer: sms.to,
			direction: 'sent',
			since: iso(sinceMs),
			limit: PAGE,
		},
		itemIndex,
	});
}

/** For POST /v1/sms with this body: GET /v1/sms for that number, that recipient, sent since just before. */
export function sentSmsLookup(body: IDataObject): RecoveryLookup {
	const sms = smsOf(body);
	return {
		key: `sms|${sms.phoneDocId}|${sms.to}`,
		what: 'the SMS',
		history: 'the SMS history',
		resend: true,
		check: (since) =>
			`look in the SMS history (SMS → Get Many) for an SMS to ${sms.to} with this text since ${since}`,
		idsOf: smsIds,
		async find(ctx, window, itemIndex) {
			const page = await sentSmsPage(ctx, sms, window.sinceMs, itemIndex);
			return matchSentSms(page, sms, window, PAGE);
		},
	};
}

/**
 * The latest SMS sent from that number to that recipient with exactly that text within the
 * last `minutes`, as a send result; undefined when there is none. One GET /v1/sms. The window is
 * on the API's clock, widened by what is not known of it and by the same-moment floor
 * (../transport/serverClock.ts), so an SMS sent `minutes` ago by n8n's clock is always in it.
 */
export async function recentSentSms(
	ctx: CommsContext,
	body: IDataObject,
	minutes: number,
	itemIndex: number,
): Promise<IDataObject | undefined> {
	const sms = smsOf(body);
	const clock = await accountClock(ctx);
	const from = Date.now() - minutes * 60_000;
	const page = await sentSmsPage(ctx, sms, clock.since(from), itemIndex);
	// Checked again with what this very answer showed of the API's clock.
	return latestSentSms(page, sms, clock.since(from));
}

/** For POST /v1/calls with this body: GET /v1/calls in that mode, for that number and customer, since just before. */
export function createdCallLookup(body: IDataObject): RecoveryLookup {
	const call: CallCreate = {
		phoneDocId: String(body.phoneDocId),
		to: String(body.to),
		mode: body.mode === 'ai' ? 'ai' : 'manual',
		agentPhone: typeof body.agentPhone === 'string' ? body.agentPhone : undefined,
		customerName: typeof body.customerName === 'string' ? body.customerName : undefined,
		callPurpose: typeof body.callPurpose === 'string' ? body.callPurpose : undefined,
	};
	return {
		key: `call|${call.mode}|${call.phoneDocId}|${call.to}`,
		what: 'the call',
		history: 'the call history',
		// A second call would ring a person twice: never placed again without a person deciding.
		resend: false,
		check: (since) =>
			`look in the call history (Call → Get Many) for a ${call.mode} call to ${call.to} since ${since}`,
		idsOf: callIds,
		async find(ctx, window, itemIndex) {
			const page = await accountApiRequest(ctx, {
				method: 'GET',
				path: '/v1/calls',
				qs: {
					mode: call.mode,
					phoneDocId: call.phoneDocId,
					peer: call.to,
					since: iso(window.sinceMs),
					limit: PAGE,
				},
				itemIndex,
			});
			return matchCreatedCall(page, call, window, PAGE);
		},
	};
}
