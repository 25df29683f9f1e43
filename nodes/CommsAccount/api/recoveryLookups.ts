/**
 * The look-ups an Account API write passes to the transport, so that a send whose outcome is
 * unknown is looked up in the history before anything else (see `recoveryMatching.ts`
 * for the matching and `../../shared/transport/recovery.ts` for when it happens).
 */
import type { IDataObject } from 'n8n-workflow';

import {
	callIds,
	type CallCreate,
	matchCreatedCall,
	matchSentSms,
	type SmsSend,
	smsIds,
} from './recoveryMatching';
import { type CommsContext, type RecoveryLookup } from '../../shared/transport';
import { accountApiRequest } from './accountApi';

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
