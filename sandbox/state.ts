/**
 * The sandbox's data model: accounts, keys, numbers, balances and every call, SMS and
 * email it has seen. Everything here is plain data, rebuilt from the seed on reset.
 */
import type { Lifecycle } from './lifecycle';

export type SmsOrder = 'newestFirst' | 'oldestFirst';
export const SMS_ORDERS: readonly SmsOrder[] = ['newestFirst', 'oldestFirst'];

export type UnifiedService = 'voice' | 'sms' | 'email' | 'ai';
export const UNIFIED_SERVICES: readonly UnifiedService[] = ['voice', 'sms', 'email', 'ai'];

/** A plan allowance: the monthly subscription bucket is drawn first, then the top-up bucket. */
export interface Bucket {
	subscription: number;
	topUp: number;
}

export interface AccountBalances {
	minutes: Bucket;
	aiMinutes: Bucket;
	smsCredits: Bucket;
}
export type BalanceName = keyof AccountBalances;
export const BALANCE_NAMES: readonly BalanceName[] = ['minutes', 'aiMinutes', 'smsCredits'];

export interface PhoneNumber {
	phoneDocId: string;
	label: string;
	voiceNumber: string;
	smsNumber: string | null;
	smsEnabled: boolean;
	status: 'active';
	/** The voice configured on the number for AI calls (there is no per-call choice). */
	voiceName: string;
}

export interface Account {
	accountId: string;
	name: string;
	suspended: boolean;
	numbers: PhoneNumber[];
	balances: AccountBalances;
}

export interface AccountKey {
	key: string;
	accountId: string;
	state: 'active' | 'disabled' | 'revoked';
	/** null: unrestricted. */
	allowedPhoneDocIds: string[] | null;
	defaultAgentPhone: string | null;
	description: string;
	requestCount: number;
	lastUsedAtMs: number | null;
}

export interface UnifiedKey {
	key: string;
	userId: string;
	live: boolean;
	revoked: boolean;
	description: string;
}

/** Something whose status moves with the clock; `settled` once its final effects ran. */
export interface Tracked {
	lifecycle: Lifecycle;
	outcome: string;
	settled: boolean;
	/** Creation order, used to break ties between equal timestamps. */
	seq: number;
	/** Made while the setting `unlistedStatuses` was on: its path passes statuses nobody listed. */
	unlisted?: boolean;
}

export interface ManualCall extends Tracked {
	kind: 'manualCall';
	callId: string;
	callSid: string;
	accountId: string;
	phoneDocId: string;
	from: string;
	to: string;
	agentPhone: string;
	billedMinutes: number | null;
}

export interface AiCall extends Tracked {
	kind: 'aiCall';
	callSid: string;
	accountId: string;
	phoneDocId: string;
	from: string;
	to: string;
	customerName: string | null;
	callPurpose: 'general' | 'custom';
	customCallReason: string | null;
	aiInstructions: string | null;
	voiceName: string;
	billedMinutes: number | null;
}

export interface SmsRecord extends Tracked {
	kind: 'sms';
	id: string;
	messageId: string;
	accountId: string;
	phoneDocId: string;
	direction: 'sent' | 'received';
	fromNumber: string;
	toNumber: string;
	body: string;
	source: string;
	businessName: string;
	segments: number;
	sentAtMs: number;
	createdAtMs: number;
}

interface UnifiedRecord extends Tracked {
	userId: string;
	live: boolean;
	keyMask: string;
	/** Charged amount in hundredths of a penny (0 for test keys). */
	costUnits: number;
	createdAtMs: number;
}

export interface UnifiedCall extends UnifiedRecord {
	kind: 'unifiedCall';
	callId: string;
	to: string;
	from: string;
	message: string;
	voice: string;
	webhookUrl: string | null;
	estimatedSeconds: number;
}

export interface UnifiedSms extends UnifiedRecord {
	kind: 'unifiedSms';
	messageId: string;
	to: string;
	from: string;
	message: string;
	segments: number;
}

export interface UnifiedEmail extends UnifiedRecord {
	kind: 'unifiedEmail';
	messageId: string;
	to: string;
	subject: string;
	fromName: string | null;
}

export type TrackedItem = ManualCall | AiCall | SmsRecord | UnifiedCall | UnifiedSms | UnifiedEmail;

export interface SandboxState {
	accounts: Map<string, Account>;
	accountKeys: Map<string, AccountKey>;
	unifiedKeys: Map<string, UnifiedKey>;
	/** Prepaid Unified credits in hundredths of a penny, so that 0.15p stays exact. */
	unifiedCreditUnits: number;
	manualCalls: ManualCall[];
	aiCalls: AiCall[];
	sms: SmsRecord[];
	unifiedCalls: UnifiedCall[];
	unifiedSms: UnifiedSms[];
	unifiedEmails: UnifiedEmail[];
	nextSeq: number;
}

export function nextSeq(state: SandboxState): number {
	state.nextSeq += 1;
	return state.nextSeq;
}

/** Deterministic identifiers: a prefix and the creation sequence number. */
export function makeId(prefix: string, seq: number): string {
	return `${prefix}${String(seq).padStart(6, '0')}`;
}

export function allTracked(state: SandboxState): TrackedItem[] {
	return [
		...state.manualCalls,
		...state.aiCalls,
		...state.sms,
		...state.unifiedCalls,
		...state.unifiedSms,
		...state.unifiedEmails,
	];
}
