/**
 * Outbound calls of the Account API: the manual two-leg call and the AI call, their
 * status scripts, the history records and billing when a call ends.
 */
import { billableMinutes, draw } from './billing';
import { iso } from './clock';
import { Lifecycle, type Step } from './lifecycle';
import type { Account, AiCall, ManualCall, PhoneNumber } from './state';
import { makeId } from './state';

/** How long the agent's phone rings before the call gives up. */
const AGENT_RING_SECONDS = 25;

export type ManualOutcome =
	| 'normal'
	| 'agent-no-answer'
	| 'busy'
	| 'customer-no-answer'
	| 'early-hangup'
	| 'voicemail'
	| 'never-ends';

/** Longer than any run: a call that, for every purpose, never ends. */
const FOREVER_SECONDS = 10 * 365 * 24 * 3600;

/**
 * The path of a manual call for each outcome. Between the agent answering and the end
 * the sandbox reports two statuses the spec leaves open: `ringing-customer` (agent
 * answered, customer being dialled) and `in-progress` (bridged, or voicemail recording).
 */
export const MANUAL_SCRIPTS: Record<ManualOutcome, Step[]> = {
	normal: [
		{ status: 'ringing-agent', seconds: 5 },
		{ status: 'ringing-customer', seconds: 6 },
		{ status: 'in-progress', seconds: 180 },
		{ status: 'completed' },
	],
	'agent-no-answer': [
		{ status: 'ringing-agent', seconds: AGENT_RING_SECONDS },
		{ status: 'no-answer-agent' },
	],
	busy: [
		{ status: 'ringing-agent', seconds: 5 },
		{ status: 'ringing-customer', seconds: 4 },
		{ status: 'busy' },
	],
	'customer-no-answer': [
		{ status: 'ringing-agent', seconds: 5 },
		{ status: 'ringing-customer', seconds: 30 },
		{ status: 'completed' },
	],
	'early-hangup': [
		{ status: 'ringing-agent', seconds: 5 },
		{ status: 'ringing-customer', seconds: 6 },
		{ status: 'in-progress', seconds: 14 },
		{ status: 'completed' },
	],
	voicemail: [
		{ status: 'ringing-agent', seconds: 5 },
		{ status: 'ringing-customer', seconds: 20 },
		{ status: 'in-progress', seconds: 45 },
		{ status: 'completed' },
	],
	'never-ends': [
		{ status: 'ringing-agent', seconds: 5 },
		{ status: 'ringing-customer', seconds: 6 },
		{ status: 'in-progress', seconds: FOREVER_SECONDS },
		{ status: 'completed' },
	],
};

const END_REASONS: Record<ManualOutcome, string> = {
	normal: 'completed',
	'agent-no-answer': 'agent-no-answer',
	busy: 'customer-busy',
	'customer-no-answer': 'customer-no-answer',
	'early-hangup': 'hung-up-early',
	voicemail: 'voicemail',
	'never-ends': 'completed',
};

export type AiOutcome = 'completed';

export const AI_SCRIPTS: Record<AiOutcome, Step[]> = {
	completed: [
		{ status: 'initiated', seconds: 10 },
		{ status: 'in-progress', seconds: 80 },
		{ status: 'completed' },
	],
};

/**
 * The path a manual call takes when the sandbox reports statuses nobody listed (the setting
 * `unlistedStatuses`): after the agent answers, `agent-answered` (1 s) and `dialing` (2 s) before
 * `ringing-customer`, which is that much shorter, so every call ends when it would have. A call the
 * agent never answers is unchanged.
 */
export function unlistedManualPath(steps: Step[]): Step[] {
	if (steps[0].status !== 'ringing-agent' || steps.length < 3) return steps;
	const [agent, customer, ...rest] = steps;
	return [
		agent,
		{ status: 'agent-answered', seconds: 1 },
		{ status: 'dialing', seconds: 2 },
		{ ...customer, seconds: Math.max(0, (customer.seconds ?? 0) - 3) },
		...rest,
	];
}

/** An AI call's path with a status nobody listed: `dialing` (3 s) at the end of `initiated`. */
export function unlistedAiPath(steps: Step[]): Step[] {
	const [initiated, ...rest] = steps;
	return [
		{ ...initiated, seconds: Math.max(0, (initiated.seconds ?? 0) - 3) },
		{ status: 'dialing', seconds: 3 },
		...rest,
	];
}

export function newManualCall(input: {
	seq: number;
	account: Account;
	number: PhoneNumber;
	to: string;
	agentPhone: string;
	outcome: ManualOutcome;
	startMs: number;
	/** Through statuses nobody listed (`unlistedManualPath`). */
	unlisted?: boolean;
}): ManualCall {
	return {
		kind: 'manualCall',
		seq: input.seq,
		callId: makeId('call_sbx_', input.seq),
		callSid: makeId('CAsbx', input.seq),
		accountId: input.account.accountId,
		phoneDocId: input.number.phoneDocId,
		from: input.number.voiceNumber,
		to: input.to,
		agentPhone: input.agentPhone,
		outcome: input.outcome,
		lifecycle: new Lifecycle(
			input.unlisted
				? unlistedManualPath(MANUAL_SCRIPTS[input.outcome])
				: MANUAL_SCRIPTS[input.outcome],
			input.startMs,
		),
		settled: false,
		billedMinutes: null,
		...(input.unlisted ? { unlisted: true } : {}),
	};
}

export function newAiCall(input: {
	seq: number;
	account: Account;
	number: PhoneNumber;
	to: string;
	customerName: string | null;
	callPurpose: 'general' | 'custom';
	customCallReason: string | null;
	aiInstructions: string | null;
	startMs: number;
	/** Through a status nobody listed (`unlistedAiPath`). */
	unlisted?: boolean;
}): AiCall {
	return {
		kind: 'aiCall',
		seq: input.seq,
		callSid: makeId('CAaisbx', input.seq),
		accountId: input.account.accountId,
		phoneDocId: input.number.phoneDocId,
		from: input.number.voiceNumber,
		to: input.to,
		customerName: input.customerName,
		callPurpose: input.callPurpose,
		customCallReason: input.customCallReason,
		aiInstructions: input.aiInstructions,
		voiceName: input.number.voiceName,
		outcome: 'completed',
		lifecycle: new Lifecycle(
			input.unlisted ? unlistedAiPath(AI_SCRIPTS.completed) : AI_SCRIPTS.completed,
			input.startMs,
		),
		settled: false,
		billedMinutes: null,
		...(input.unlisted ? { unlisted: true } : {}),
	};
}

/** Seconds from `fromMs` to the end of the call, rounded up; null while the call is live. */
function secondsUntilEnd(lifecycle: Lifecycle, fromMs: number | null): number | null {
	const endedAtMs = lifecycle.endedAtMs;
	if (endedAtMs === null) return null;
	return fromMs === null ? 0 : Math.ceil((endedAtMs - fromMs) / 1000);
}

const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

/** Billing is measured from the moment the agent answered (the customer, for AI calls). */
function billedFrom(call: ManualCall | AiCall): number | null {
	if (call.kind === 'aiCall') return call.lifecycle.reachedAt('in-progress');
	return call.lifecycle.reachedAt('agent-answered') ?? call.lifecycle.reachedAt('ringing-customer');
}

export function manualCallRecord(
	call: ManualCall,
	recordingBaseUrl: string,
): Record<string, unknown> {
	const { lifecycle } = call;
	const customerAnsweredAtMs = lifecycle.reachedAt('in-progress');
	const ended = lifecycle.isFinal;
	return {
		id: call.callId,
		callId: call.callId,
		callSid: call.callSid,
		mode: 'manual',
		direction: 'outbound',
		phoneDocId: call.phoneDocId,
		from: call.from,
		to: call.to,
		agentPhone: call.agentPhone,
		status: lifecycle.status,
		createdAt: iso(lifecycle.startedAtMs),
		startedAt: iso(lifecycle.startedAtMs),
		agentAnsweredAt: isoOrNull(billedFrom(call)),
		customerAnsweredAt: isoOrNull(customerAnsweredAtMs),
		endedAt: isoOrNull(lifecycle.endedAtMs),
		durationSeconds: secondsUntilEnd(lifecycle, billedFrom(call)),
		billedMinutes: call.billedMinutes,
		recordingUrl:
			ended && customerAnsweredAtMs !== null
				? `${recordingBaseUrl}/${encodeURIComponent(call.callId)}`
				: null,
		endReason: ended ? END_REASONS[call.outcome as ManualOutcome] : null,
	};
}

export function aiCallRecord(call: AiCall): Record<string, unknown> {
	const { lifecycle } = call;
	return {
		id: call.callSid,
		callSid: call.callSid,
		mode: 'ai',
		direction: 'outbound',
		phoneDocId: call.phoneDocId,
		from: call.from,
		to: call.to,
		customerName: call.customerName,
		callPurpose: call.callPurpose,
		customCallReason: call.customCallReason,
		aiInstructions: call.aiInstructions,
		status: lifecycle.status,
		createdAt: iso(lifecycle.startedAtMs),
		answeredAt: isoOrNull(billedFrom(call)),
		endedAt: isoOrNull(lifecycle.endedAtMs),
		durationSeconds: secondsUntilEnd(lifecycle, billedFrom(call)),
		billedAiMinutes: call.billedMinutes,
		voiceName: call.voiceName,
	};
}

/** Whole minutes a finished call costs (0 when the agent never answered). */
export function callMinutes(call: ManualCall | AiCall): number {
	return billableMinutes(secondsUntilEnd(call.lifecycle, billedFrom(call)) ?? 0);
}

/** Charges a finished call to the account: minutes for manual calls, AI minutes for AI calls. */
export function billCall(call: ManualCall | AiCall, account: Account): void {
	call.billedMinutes = callMinutes(call);
	draw(
		call.kind === 'manualCall' ? account.balances.minutes : account.balances.aiMinutes,
		call.billedMinutes,
	);
}
