/**
 * The seeded world: fixed keys, numbers, test numbers and balances. Every value is a
 * constant so that documentation and examples can show them; `seedState` rebuilds the
 * same world (with a little history relative to "now") on every reset.
 *
 * Numbers come from Ofcom's ranges reserved for drama: voice numbers +44 1632 960xxx,
 * mobile numbers +44 7700 900xxx. None of them can reach a real phone.
 */
import { callMinutes, newAiCall, newManualCall } from './calls';
import { newInboundSms, newOutboundSms } from './messages';
import type {
	Account,
	AccountBalances,
	AccountKey,
	PhoneNumber,
	SandboxState,
	UnifiedKey,
} from './state';
import { nextSeq } from './state';

export const DEFAULT_PORT = 4010;
export const DEFAULT_HOST = '127.0.0.1';

/** Account API keys (header `Authorization: Bearer …` or `X-API-Key: …`). */
export const ACCOUNT_KEYS = {
	/** Every number; default agent phone AGENT_PHONE. */
	unrestricted: 'acc_sbx_unrestricted_4f9c2a7e1b',
	/** Only PHONE_DOC_IDS.main; no default agent phone. */
	restricted: 'acc_sbx_restricted_8d3e5b0c72',
	/** Administratively disabled: 401 key_disabled. */
	disabled: 'acc_sbx_disabled_2b7f9e4a15',
	/** Key of a suspended account: 402 account_suspended on every request. */
	suspended: 'acc_sbx_suspended_6c1d8f3a90',
	/** Replaced by rotation: 401 invalid_api_key. */
	revoked: 'acc_sbx_revoked_9e4b2c7d31',
} as const;

/** Unified API keys (field `api_key` of the envelope). */
export const UNIFIED_KEYS = {
	live: 'key_live_sbx_7a3f9c1e5b2d',
	test: 'key_test_sbx_3e8b6d2f9a4c',
	/** Regenerated: INVALID_API_KEY. */
	revoked: 'key_live_sbx_revoked_5c9e1a77',
} as const;

export const WEBHOOK_SECRET = 'whsec_sbx_5d2a8f1c7e3b9a6d';

export const MAIN_ACCOUNT_ID = 'acct_sbx_main';
const SUSPENDED_ACCOUNT_ID = 'acct_sbx_suspended';
export const UNIFIED_USER_ID = 'usr_sbx_0001';

export const PHONE_DOC_IDS = {
	/** SMS paired and enabled. */
	main: 'pdoc_sbx_main',
	/** No SMS number paired (smsNumber null). */
	noSms: 'pdoc_sbx_nosms',
	/** SMS paired but disabled. */
	smsDisabled: 'pdoc_sbx_smsoff',
	/** The only number of the suspended account. */
	suspended: 'pdoc_sbx_lapsed',
} as const;

export const SEEDED_NUMBERS: readonly PhoneNumber[] = [
	{
		phoneDocId: PHONE_DOC_IDS.main,
		label: 'Sandbox Trading - Main line',
		voiceNumber: '+441632960001',
		smsNumber: '+447700900001',
		smsEnabled: true,
		status: 'active',
		voiceName: 'Amy',
	},
	{
		phoneDocId: PHONE_DOC_IDS.noSms,
		label: 'Sandbox Trading - Support (voice only)',
		voiceNumber: '+441632960002',
		smsNumber: null,
		smsEnabled: false,
		status: 'active',
		voiceName: 'Brian',
	},
	{
		phoneDocId: PHONE_DOC_IDS.smsDisabled,
		label: 'Sandbox Trading - Sales (SMS off)',
		voiceNumber: '+441632960003',
		smsNumber: '+447700900003',
		smsEnabled: false,
		status: 'active',
		voiceName: 'Emma',
	},
];

const SUSPENDED_NUMBER: PhoneNumber = {
	phoneDocId: PHONE_DOC_IDS.suspended,
	label: 'Lapsed Ltd',
	voiceNumber: '+441632960009',
	smsNumber: '+447700900009',
	smsEnabled: true,
	status: 'active',
	voiceName: 'Amy',
};

/** The unrestricted key's default agent phone; it answers after 5 seconds. */
export const AGENT_PHONE = '+447700900100';

/**
 * Numbers that choose an outcome. Any other valid number is a normal conversation
 * (agent answers after 5 s, customer after 6 s more, 180 s of talk).
 */
export const TEST_NUMBERS = {
	/** As agentPhone: never answers, the call ends no-answer-agent after 25 s. */
	agentNeverAnswers: '+447700900199',
	/** As a manual call's `to`: busy. */
	customerBusy: '+447700900201',
	/** As a manual call's `to`: rings 30 s unanswered, completed (agent leg billed). */
	customerNoAnswer: '+447700900202',
	/** As a manual call's `to`: answers, hangs up after 14 s. */
	customerHangsUpEarly: '+447700900203',
	/** As a manual call's `to`: voicemail picks up and records 45 s. */
	customerVoicemail: '+447700900204',
	/** As a manual call's `to`: answers and never hangs up; the call stays `in-progress`. */
	customerNeverHangsUp: '+447700900205',
	/** As `to`: Account SMS end `failed`; Unified calls/SMS send call.failed / sms.failed. */
	deliveryFails: '+447700900666',
	/** As `to` of an Account SMS: no delivery receipt ever comes; it stays `sent`. */
	noReceipt: '+447700900667',
	/** As `to` of POST /v1/calls or /v1/sms: the carrier refuses, 502 carrier_rejected. */
	carrierRejects: '+447700900502',
	/** An ordinary customer, for examples. */
	customer: '+447700900123',
	/** The customer of the seeded SMS conversation and call history. */
	seededPeer: '+447700900456',
} as const;

export const CARRIER_REJECT_CODE = '30003';

/** Email recipients that choose an outcome; any other address is delivered. */
export const TEST_EMAILS = {
	delivers: 'someone@example.com',
	bounces: 'bounce@example.com',
} as const;

/** Caller IDs the Unified API uses when `from` is omitted. */
export const UNIFIED_DEFAULT_FROM = {
	voice: '+441632960100',
	sms: '+447700900010',
} as const;

function seedBalances(): AccountBalances {
	return {
		minutes: { subscription: 500, topUp: 100 },
		aiMinutes: { subscription: 60, topUp: 30 },
		smsCredits: { subscription: 1000, topUp: 200 },
	};
}

/** £20.00 of prepaid Unified credits. */
const SEED_UNIFIED_CREDITS_PENCE = 2000;

function accountKey(
	key: string,
	accountId: string,
	description: string,
	fields: Partial<Pick<AccountKey, 'state' | 'allowedPhoneDocIds' | 'defaultAgentPhone'>> = {},
): [string, AccountKey] {
	return [
		key,
		{
			key,
			accountId,
			description,
			state: fields.state ?? 'active',
			allowedPhoneDocIds: fields.allowedPhoneDocIds ?? null,
			defaultAgentPhone: fields.defaultAgentPhone ?? null,
			requestCount: 0,
			lastUsedAtMs: null,
		},
	];
}

function unifiedKey(
	key: string,
	live: boolean,
	description: string,
	revoked = false,
): [string, UnifiedKey] {
	return [key, { key, userId: UNIFIED_USER_ID, live, revoked, description }];
}

export const ACCOUNT_KEY_DESCRIPTIONS: Record<keyof typeof ACCOUNT_KEYS, string> = {
	unrestricted: `unrestricted, default agent phone ${AGENT_PHONE}`,
	restricted: `restricted to ${PHONE_DOC_IDS.main}, no default agent phone`,
	disabled: 'administratively disabled (401 key_disabled)',
	suspended: 'key of a suspended account (402 account_suspended)',
	revoked: 'rotated away (401 invalid_api_key)',
};

export function seedState(nowMs: number): SandboxState {
	const main: Account = {
		accountId: MAIN_ACCOUNT_ID,
		name: 'Sandbox Trading Ltd',
		suspended: false,
		numbers: SEEDED_NUMBERS.map((n) => ({ ...n })),
		balances: seedBalances(),
	};
	const lapsed: Account = {
		accountId: SUSPENDED_ACCOUNT_ID,
		name: 'Lapsed Ltd',
		suspended: true,
		numbers: [{ ...SUSPENDED_NUMBER }],
		balances: {
			minutes: { subscription: 0, topUp: 0 },
			aiMinutes: { subscription: 0, topUp: 0 },
			smsCredits: { subscription: 0, topUp: 0 },
		},
	};
	const state: SandboxState = {
		accounts: new Map([main, lapsed].map((a) => [a.accountId, a])),
		accountKeys: new Map([
			accountKey(
				ACCOUNT_KEYS.unrestricted,
				MAIN_ACCOUNT_ID,
				ACCOUNT_KEY_DESCRIPTIONS.unrestricted,
				{
					defaultAgentPhone: AGENT_PHONE,
				},
			),
			accountKey(ACCOUNT_KEYS.restricted, MAIN_ACCOUNT_ID, ACCOUNT_KEY_DESCRIPTIONS.restricted, {
				allowedPhoneDocIds: [PHONE_DOC_IDS.main],
			}),
			accountKey(ACCOUNT_KEYS.disabled, MAIN_ACCOUNT_ID, ACCOUNT_KEY_DESCRIPTIONS.disabled, {
				state: 'disabled',
			}),
			accountKey(ACCOUNT_KEYS.suspended, SUSPENDED_ACCOUNT_ID, ACCOUNT_KEY_DESCRIPTIONS.suspended),
			accountKey(ACCOUNT_KEYS.revoked, MAIN_ACCOUNT_ID, ACCOUNT_KEY_DESCRIPTIONS.revoked, {
				state: 'revoked',
			}),
		]),
		unifiedKeys: new Map([
			unifiedKey(UNIFIED_KEYS.live, true, 'live key: charges credits'),
			unifiedKey(UNIFIED_KEYS.test, false, 'test key: never charges'),
			unifiedKey(UNIFIED_KEYS.revoked, true, 'regenerated (INVALID_API_KEY)', true),
		]),
		unifiedCreditUnits: SEED_UNIFIED_CREDITS_PENCE * 100,
		manualCalls: [],
		aiCalls: [],
		sms: [],
		unifiedCalls: [],
		unifiedSms: [],
		unifiedEmails: [],
		nextSeq: 0,
	};
	seedHistory(state, main, nowMs);
	return state;
}

/** A short, already finished history on the main number, so that lists are not empty. */
function seedHistory(state: SandboxState, account: Account, nowMs: number): void {
	const number = account.numbers[0];
	const peer = TEST_NUMBERS.seededPeer;
	const hoursAgo = (hours: number): number => nowMs - hours * 3_600_000;
	const inbound = (body: string, hours: number) =>
		newInboundSms({
			seq: nextSeq(state),
			account,
			number,
			from: peer,
			body,
			sentAtMs: hoursAgo(hours),
			nowMs: hoursAgo(hours),
		});
	state.sms.push(
		inbound('Hi, is my order ready?', 3),
		newOutboundSms({
			seq: nextSeq(state),
			account,
			number,
			to: peer,
			body: 'Yes, it is ready for collection.',
			outcome: 'delivered',
			source: 'dashboard',
			nowMs: hoursAgo(2.9),
		}),
		inbound('Thanks!', 2.8),
	);
	state.manualCalls.push(
		newManualCall({
			seq: nextSeq(state),
			account,
			number,
			to: peer,
			agentPhone: AGENT_PHONE,
			outcome: 'normal',
			startMs: hoursAgo(2),
		}),
	);
	state.aiCalls.push(
		newAiCall({
			seq: nextSeq(state),
			account,
			number,
			to: peer,
			customerName: 'Sam Example',
			callPurpose: 'general',
			customCallReason: null,
			aiInstructions: null,
			startMs: hoursAgo(1),
		}),
	);
	// The history is finished and was billed long ago: bring it to its end without charging.
	for (const item of [...state.sms, ...state.manualCalls, ...state.aiCalls]) {
		item.lifecycle.sync(nowMs);
		item.settled = true;
	}
	for (const call of [...state.manualCalls, ...state.aiCalls])
		call.billedMinutes = callMinutes(call);
}
