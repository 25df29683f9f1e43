/**
 * Account API v1: GET /v1/numbers, POST and GET /v1/calls, POST and GET /v1/sms, with
 * header authentication, key scoping, plan balances and the per-key rate limit.
 */
import { available, draw } from './billing';
import {
	newAiCall,
	newManualCall,
	aiCallRecord,
	manualCallRecord,
	type ManualOutcome,
} from './calls';
import { iso } from './clock';
import type { JsonReply, ParsedRequest } from './http';
import { maskKey } from './http';
import {
	MAX_SMS_CHARACTERS,
	characterCount,
	newOutboundSms,
	segmentsOf,
	smsRecordView,
	sortSms,
} from './messages';
import { CARRIER_REJECT_CODE, TEST_NUMBERS } from './seed';
import type { Account, AccountKey, PhoneNumber, SmsRecord } from './state';
import { nextSeq } from './state';
import {
	AccountError,
	checkE164,
	objectBody,
	optionalString,
	queryChoice,
	queryE164,
	queryLimit,
	querySince,
	requiredString,
} from './validate';
import type { InjectedFailure, World } from './world';

export const ACCOUNT_KEY_PREFIX = 'acc_';
const RECORDINGS_PATH = '/_sandbox/recordings';

interface Caller {
	world: World;
	req: ParsedRequest;
	key: AccountKey;
	account: Account;
}

type Handler = (caller: Caller) => JsonReply;

const ROUTES: Record<string, Record<string, Handler>> = {
	'/v1/numbers': { GET: listNumbers },
	'/v1/calls': { GET: listCalls, POST: createCall },
	'/v1/sms': { GET: listSms, POST: sendSms },
};

export function isAccountPath(path: string): boolean {
	return path === '/v1' || path.startsWith('/v1/');
}

/** Handles one Account API request; `onKey` receives the masked key as soon as it is known. */
export async function handleAccount(
	world: World,
	req: ParsedRequest,
	onKey: (keyMask: string) => void,
): Promise<JsonReply> {
	try {
		const route = ROUTES[req.path];
		if (!route) throw new AccountError(404, 'not_found', `No endpoint ${req.path}.`);
		const handler = route[req.method];
		if (!handler) {
			const allow = Object.keys(route).join(', ');
			throw new AccountError(
				405,
				'method_not_allowed',
				`${req.method} is not allowed on ${req.path}; use ${allow}.`,
				{
					allow,
				},
			);
		}
		const failure = world.takeFailure({
			api: 'account',
			path: req.path,
			method: req.method,
			service: null,
		});
		if (failure) return failureReply(failure, world.settings.accountRequestsPerMinute);
		const { key, account } = authenticate(world, req, onKey);
		const { accountRequestsPerMinute, rateWindowSeconds, rateAlgorithm, rateBurst, retryAfter } =
			world.settings;
		const limit = world.accountWindow.take(
			rateAlgorithm,
			key.key,
			accountRequestsPerMinute,
			world.clock.now(),
			rateWindowSeconds * 1000,
			rateBurst ?? undefined,
		);
		if (!limit.allowed) {
			return rateLimited(retryAfter ? limit.retryAfterSeconds : null, accountRequestsPerMinute);
		}
		await world.holdForLatency();
		world.settleSoon();
		return handler({ world, req, key, account });
	} catch (error) {
		if (error instanceof AccountError) {
			return {
				status: error.status,
				body: { success: false, error: error.code, message: error.message, ...error.context },
				headers: error.status === 405 ? { allow: String(error.context.allow) } : undefined,
			};
		}
		world.options.log(`account API failure: ${(error as Error).stack ?? error}`);
		return errorReply(500, 'internal_error', 'Unexpected failure; retry later.');
	}
}

function errorReply(
	status: number,
	code: string,
	message: string,
	context: Record<string, unknown> = {},
): JsonReply {
	return { status, body: { success: false, error: code, message, ...context } };
}

/** A 429; with `retryAfterSeconds` null (the `retryAfter` setting off) it names no wait at all. */
function rateLimited(retryAfterSeconds: number | null, perMinute: number): JsonReply {
	if (retryAfterSeconds === null) {
		return errorReply(
			429,
			'rate_limited',
			`Rate limit of ${perMinute} requests per minute exceeded.`,
		);
	}
	const reply = errorReply(
		429,
		'rate_limited',
		`Rate limit of ${perMinute} requests per minute exceeded; retry after ${retryAfterSeconds} s.`,
		{
			retryAfterSeconds,
		},
	);
	return { ...reply, headers: { 'retry-after': String(retryAfterSeconds) } };
}

function failureReply(failure: InjectedFailure, perMinute: number): JsonReply {
	switch (failure.status) {
		case 429:
			return rateLimited(failure.retryAfterSeconds, perMinute);
		case 500:
			return errorReply(500, 'internal_error', 'Unexpected failure; retry later.');
		case 502:
			return errorReply(502, 'carrier_rejected', 'The downstream carrier rejected the request.', {
				carrierCode: failure.carrierCode,
			});
		case 503:
			return errorReply(
				503,
				'service_unavailable',
				'The service is temporarily unavailable; retry later.',
			);
	}
}

function header(req: ParsedRequest, name: string): string | undefined {
	const value = req.headers[name];
	return Array.isArray(value) ? value[0] : value;
}

function authenticate(
	world: World,
	req: ParsedRequest,
	onKey: (keyMask: string) => void,
): { key: AccountKey; account: Account } {
	const authorization = header(req, 'authorization');
	const apiKeyHeader = header(req, 'x-api-key');
	if (authorization !== undefined && apiKeyHeader !== undefined) {
		throw new AccountError(
			400,
			'ambiguous_credentials',
			'Send the key in exactly one header: Authorization: Bearer or X-API-Key.',
		);
	}
	let raw = apiKeyHeader?.trim();
	if (authorization !== undefined) {
		const bearer = /^Bearer(?:\s+(.*))?$/i.exec(authorization.trim());
		if (!bearer)
			throw new AccountError(
				401,
				'invalid_api_key',
				'The Authorization header must use the Bearer scheme.',
			);
		raw = bearer[1]?.trim();
	}
	if (!raw)
		throw new AccountError(
			401,
			'missing_api_key',
			'No API key: send Authorization: Bearer <key> or X-API-Key.',
		);
	onKey(maskKey(raw));
	if (!raw.startsWith(ACCOUNT_KEY_PREFIX)) {
		throw new AccountError(
			401,
			'invalid_api_key',
			`Account API keys start with "${ACCOUNT_KEY_PREFIX}".`,
		);
	}
	const key = world.state.accountKeys.get(raw);
	if (!key || key.state === 'revoked')
		throw new AccountError(401, 'invalid_api_key', 'The API key is not recognised or was revoked.');
	key.requestCount += 1;
	key.lastUsedAtMs = world.clock.now();
	if (key.state === 'disabled')
		throw new AccountError(
			401,
			'key_disabled',
			'The API key has been disabled by an administrator.',
		);
	const account = world.state.accounts.get(key.accountId) as Account;
	if (account.suspended) {
		throw new AccountError(
			402,
			'account_suspended',
			'The account is suspended; restore credit to continue.',
		);
	}
	return { key, account };
}

function permits(key: AccountKey, phoneDocId: string): boolean {
	return key.allowedPhoneDocIds === null || key.allowedPhoneDocIds.includes(phoneDocId);
}

/** The caller's number with that id: 403 outside the key's allow-list, 404 if the account has none. */
function numberFor(caller: Caller, phoneDocId: string): PhoneNumber {
	if (!permits(caller.key, phoneDocId)) {
		throw new AccountError(403, 'phoneDocId_not_permitted', `This key may not use ${phoneDocId}.`, {
			phoneDocId,
		});
	}
	const number = caller.account.numbers.find((n) => n.phoneDocId === phoneDocId);
	if (!number)
		throw new AccountError(404, 'phoneDoc_not_found', `No number ${phoneDocId} on this account.`, {
			phoneDocId,
		});
	return number;
}

function queryNumber(caller: Caller): PhoneNumber | null {
	const phoneDocId = caller.req.query.get('phoneDocId');
	return phoneDocId ? numberFor(caller, phoneDocId) : null;
}

function carrierRejection(to: string): void {
	if (to === TEST_NUMBERS.carrierRejects) {
		throw new AccountError(502, 'carrier_rejected', `The carrier refused to connect ${to}.`, {
			carrierCode: CARRIER_REJECT_CODE,
		});
	}
}

// GET /v1/numbers

function listNumbers({ key, account }: Caller): JsonReply {
	const numbers = account.numbers
		.filter((n) => permits(key, n.phoneDocId))
		.map(({ phoneDocId, label, voiceNumber, smsNumber, smsEnabled, status }) => ({
			phoneDocId,
			label,
			voiceNumber,
			smsNumber,
			smsEnabled,
			status,
		}));
	return {
		status: 200,
		body: {
			success: true,
			numbers,
			count: numbers.length,
			scoping: {
				unrestricted: key.allowedPhoneDocIds === null,
				allowedPhoneDocIds: [...(key.allowedPhoneDocIds ?? [])],
			},
		},
	};
}

// POST /v1/calls

const MANUAL_OUTCOME_BY_CUSTOMER: Record<string, ManualOutcome> = {
	[TEST_NUMBERS.customerBusy]: 'busy',
	[TEST_NUMBERS.customerNoAnswer]: 'customer-no-answer',
	[TEST_NUMBERS.customerHangsUpEarly]: 'early-hangup',
	[TEST_NUMBERS.customerVoicemail]: 'voicemail',
	[TEST_NUMBERS.customerNeverHangsUp]: 'never-ends',
};

const CALL_MODES = ['manual', 'ai'] as const;
const CALL_PURPOSES = ['general', 'custom'] as const;

function createCall(caller: Caller): JsonReply {
	const { world, req, key, account } = caller;
	const body = objectBody(req);
	const mode = body.mode === undefined || body.mode === null ? 'manual' : body.mode;
	if (mode !== 'manual' && mode !== 'ai') {
		throw new AccountError(400, 'invalid_mode', `mode must be one of: ${CALL_MODES.join(', ')}.`, {
			value: mode,
		});
	}
	const phoneDocId = requiredString(body, 'phoneDocId');
	const to = checkE164(requiredString(body, 'to'), 'to');
	const number = numberFor(caller, phoneDocId);
	const nowMs = world.clock.now();
	if (mode === 'ai') return createAiCall(caller, body, number, to, nowMs);

	const agentPhone = optionalString(body, 'agentPhone') ?? key.defaultAgentPhone;
	if (agentPhone === null) {
		throw new AccountError(
			400,
			'missing_agent_phone',
			'Give agentPhone: this key has no default agent phone.',
		);
	}
	checkE164(agentPhone, 'agentPhone');
	const ownNumbers = account.numbers.flatMap((n) => [n.voiceNumber, n.smsNumber]);
	if (ownNumbers.includes(agentPhone)) {
		throw new AccountError(
			400,
			'agent_phone_is_tc_number',
			"agentPhone must be your own phone, not one of the account's service numbers.",
			{
				agentPhone,
			},
		);
	}
	const availableMinutes = available(account.balances.minutes);
	if (availableMinutes <= 0) {
		throw new AccountError(
			402,
			'insufficient_minutes',
			'No call minutes left; top up to place manual calls.',
			{ availableMinutes },
		);
	}
	carrierRejection(to);
	const outcome =
		agentPhone === TEST_NUMBERS.agentNeverAnswers
			? 'agent-no-answer'
			: (MANUAL_OUTCOME_BY_CUSTOMER[to] ?? 'normal');
	const call = newManualCall({
		seq: nextSeq(world.state),
		account,
		number,
		to,
		agentPhone,
		outcome,
		startMs: nowMs,
		unlisted: world.settings.unlistedStatuses,
	});
	world.state.manualCalls.push(call);
	return {
		status: 201,
		body: {
			success: true,
			callId: call.callId,
			callSid: call.callSid,
			status: call.lifecycle.status,
			phoneDocId: number.phoneDocId,
			from: call.from,
			to,
			agentPhone,
			availableMinutesBefore: availableMinutes,
		},
	};
}

function createAiCall(
	caller: Caller,
	body: Record<string, unknown>,
	number: PhoneNumber,
	to: string,
	nowMs: number,
): JsonReply {
	const { world, account } = caller;
	const customerName = optionalString(body, 'customerName');
	const callPurpose = optionalString(body, 'callPurpose') ?? 'general';
	if (callPurpose !== 'general' && callPurpose !== 'custom') {
		throw new AccountError(
			400,
			'invalid_field',
			`callPurpose must be one of: ${CALL_PURPOSES.join(', ')}.`,
			{
				field: 'callPurpose',
				value: callPurpose,
			},
		);
	}
	const customCallReason = optionalString(body, 'customCallReason');
	if (callPurpose === 'custom' && customCallReason === null) {
		throw new AccountError(
			400,
			'missing_field',
			'customCallReason is required when callPurpose is custom.',
			{
				field: 'customCallReason',
			},
		);
	}
	const aiInstructions = optionalString(body, 'aiInstructions');
	const availableAIMinutes = available(account.balances.aiMinutes);
	if (availableAIMinutes <= 0) {
		throw new AccountError(
			402,
			'insufficient_ai_minutes',
			'No AI minutes left; top up to place AI calls.',
			{
				availableAIMinutes,
			},
		);
	}
	carrierRejection(to);
	const call = newAiCall({
		seq: nextSeq(world.state),
		account,
		number,
		to,
		customerName,
		callPurpose,
		customCallReason,
		aiInstructions,
		startMs: nowMs,
		unlisted: world.settings.unlistedStatuses,
	});
	world.state.aiCalls.push(call);
	return {
		status: 201,
		body: {
			success: true,
			mode: 'ai',
			callId: call.callSid,
			callSid: call.callSid,
			status: call.lifecycle.status,
			phoneDocId: number.phoneDocId,
			from: call.from,
			to,
			voiceUsed: { name: call.voiceName, provider: 'sandbox-tts' },
			availableAIMinutesBefore: availableAIMinutes,
		},
	};
}

// GET /v1/calls

function listCalls(caller: Caller): JsonReply {
	const { world, req, key, account } = caller;
	const mode = queryChoice(req, 'mode', CALL_MODES, 'invalid_mode') ?? 'manual';
	const phoneDocId = req.query.get('phoneDocId') || null;
	const callId = req.query.get('callId') || null;
	if (!phoneDocId && (mode === 'ai' || callId)) {
		const why = callId ? 'a callId lookup' : 'mode=ai';
		throw new AccountError(400, 'missing_field', `phoneDocId is required for ${why}.`, {
			field: 'phoneDocId',
		});
	}
	queryNumber(caller);
	const peer = queryE164(req, 'peer');
	const sinceMs = querySince(req);
	const status = req.query.get('status') || null;
	const limit = queryLimit(req);
	const baseUrl = `${world.baseUrl}${RECORDINGS_PATH}`;

	const source = mode === 'manual' ? world.state.manualCalls : world.state.aiCalls;
	const visible = source.filter(
		(c) => c.accountId === account.accountId && permits(key, c.phoneDocId),
	);
	const toRecord = (c: (typeof visible)[number]) =>
		c.kind === 'manualCall' ? manualCallRecord(c, baseUrl) : aiCallRecord(c);

	if (callId) {
		const call = visible.find(
			(c) =>
				c.phoneDocId === phoneDocId &&
				(c.callSid === callId || (c.kind === 'manualCall' && c.callId === callId)),
		);
		if (!call)
			throw new AccountError(404, 'call_not_found', `No call ${callId} on ${phoneDocId}.`, {
				callId,
				phoneDocId,
			});
		return { status: 200, body: { success: true, mode, calls: [toRecord(call)], count: 1 } };
	}
	const calls = visible
		.filter(
			(c) =>
				(phoneDocId === null || c.phoneDocId === phoneDocId) &&
				(peer === null || c.to === peer) &&
				(sinceMs === null || c.lifecycle.startedAtMs >= sinceMs) &&
				(status === null || c.lifecycle.status === status),
		)
		.sort((a, b) => b.lifecycle.startedAtMs - a.lifecycle.startedAtMs || b.seq - a.seq)
		.slice(0, limit)
		.map(toRecord);
	return { status: 200, body: { success: true, mode, calls, count: calls.length } };
}

// POST /v1/sms

function sendSms(caller: Caller): JsonReply {
	const { world, req, account } = caller;
	const body = objectBody(req);
	const phoneDocId = requiredString(body, 'phoneDocId');
	const to = checkE164(requiredString(body, 'to'), 'to');
	const message = requiredString(body, 'message');
	const length = characterCount(message);
	if (length > MAX_SMS_CHARACTERS) {
		throw new AccountError(
			400,
			'message_too_long',
			`message is ${length} characters; the maximum is ${MAX_SMS_CHARACTERS}.`,
			{
				length,
				maxLength: MAX_SMS_CHARACTERS,
			},
		);
	}
	const number = numberFor(caller, phoneDocId);
	if (number.smsNumber === null) {
		throw new AccountError(
			400,
			'phoneDoc_sms_not_configured',
			`${phoneDocId} has no SMS number paired.`,
			{ phoneDocId },
		);
	}
	if (!number.smsEnabled) {
		throw new AccountError(
			400,
			'phoneDoc_sms_disabled',
			`SMS sending is disabled on ${phoneDocId}.`,
			{ phoneDocId },
		);
	}
	const segments = segmentsOf(message);
	const availableCredits = available(account.balances.smsCredits);
	if (availableCredits < segments) {
		throw new AccountError(
			402,
			'insufficient_sms_credits',
			`This message needs ${segments} SMS credits; ${availableCredits} left.`,
			{
				availableCredits,
				requiredCredits: segments,
			},
		);
	}
	carrierRejection(to);
	draw(account.balances.smsCredits, segments);
	const sms = newOutboundSms({
		seq: nextSeq(world.state),
		account,
		number,
		to,
		body: message,
		outcome:
			to === TEST_NUMBERS.deliveryFails
				? 'failed'
				: to === TEST_NUMBERS.noReceipt
					? 'noReceipt'
					: 'delivered',
		source: 'account-api',
		nowMs: world.clock.now(),
		unlisted: world.settings.unlistedStatuses,
	});
	world.state.sms.push(sms);
	return {
		status: 201,
		body: {
			success: true,
			messageId: sms.messageId,
			status: sms.lifecycle.status,
			from: sms.fromNumber,
			to,
			phoneDocId,
			segmentsUsed: segments,
		},
	};
}

// GET /v1/sms

const SMS_DIRECTIONS = ['sent', 'received'] as const;

function smsListReply(messages: SmsRecord[]): JsonReply {
	const oldest = messages.reduce<number | null>(
		(min, m) => (min === null || m.sentAtMs < min ? m.sentAtMs : min),
		null,
	);
	return {
		status: 200,
		body: {
			success: true,
			messages: messages.map(smsRecordView),
			count: messages.length,
			nextSince: oldest === null ? null : iso(oldest),
		},
	};
}

function listSms(caller: Caller): JsonReply {
	const { world, req, key, account } = caller;
	const visible = world.state.sms.filter(
		(m) => m.accountId === account.accountId && permits(key, m.phoneDocId),
	);
	const messageId = req.query.get('messageId');
	if (messageId) {
		const message = visible.find((m) => m.messageId === messageId);
		if (!message)
			throw new AccountError(404, 'message_not_found', `No SMS ${messageId} on this account.`, {
				messageId,
			});
		return smsListReply([message]);
	}
	const number = queryNumber(caller);
	const direction = queryChoice(req, 'direction', SMS_DIRECTIONS);
	const peer = queryE164(req, 'peer');
	const sinceMs = querySince(req);
	const limit = queryLimit(req);
	const matches = visible.filter(
		(m) =>
			(number === null || m.phoneDocId === number.phoneDocId) &&
			(direction === null || m.direction === direction) &&
			(peer === null || (m.direction === 'sent' ? m.toNumber : m.fromNumber) === peer) &&
			(sinceMs === null || m.sentAtMs >= sinceMs),
	);
	return smsListReply(sortSms(matches, world.settings.smsOrder).slice(0, limit));
}
