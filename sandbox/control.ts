/**
 * The control surface: what a person or a test uses to steer the sandbox. Every
 * operation exists in-process (SandboxControl) and over HTTP under /_sandbox/ (no
 * authentication; the server only listens on loopback). Both go through the same
 * methods, so they validate and behave identically.
 */
import {
	ADVANCE_OPTIONS,
	bad,
	BALANCE_FIELDS,
	choice,
	ControlError,
	FAILURE_FIELDS,
	finiteNumber,
	httpUrl,
	INBOUND_FIELDS,
	knownFields,
	nonNegativeInteger,
	positiveInteger,
	SETTING_NAMES,
	timestamp,
} from './controlInput';
import {
	aiCallRecord,
	AI_SCRIPTS,
	MANUAL_SCRIPTS,
	manualCallRecord,
	unlistedAiPath,
	unlistedManualPath,
} from './calls';
import { RATE_ALGORITHMS, type RateAlgorithm } from './ratelimit';
import { formatPounds, penceToUnits, unitsToPence } from './billing';
import { iso } from './clock';
import { LifecycleConflict, type Step } from './lifecycle';
import { maskKey } from './http';
import { newInboundSms, SMS_SCRIPTS, smsRecordView, unlistedSmsPath } from './messages';
import { MAIN_ACCOUNT_ID, PHONE_DOC_IDS, TEST_NUMBERS } from './seed';
import type { Account, Bucket, SmsOrder, TrackedItem, UnifiedService } from './state';
import { BALANCE_NAMES, SMS_ORDERS, UNIFIED_SERVICES, nextSeq } from './state';
import { unifiedScripts } from './unified';
import { E164 } from './validate';
import type { WebhookDelivery } from './webhooks';
import type {
	FailureStatus,
	InjectedFailure,
	RequestLogEntry,
	ServiceLimit,
	Settings,
	UnifiedErrorStatus,
	World,
} from './world';
import { FAILURE_STATUSES } from './world';

// Inputs and views.

export interface InboundSmsInput {
	/** Number whose SMS sender receives the message; default the main number. */
	phoneDocId?: string;
	/** The sender; default TEST_NUMBERS.seededPeer. */
	from?: string;
	/** Text; with count > 1 each message gets " (i/N)" appended. Default "Inbound message". */
	body?: string;
	/** How many messages (default 1, at most 1000). */
	count?: number;
	/** sentAt of the first message (default: now). May lie in the past: a late arrival. */
	sentAt?: string;
	/** Seconds between consecutive sentAt values (default 0: all equal). */
	intervalSeconds?: number;
	/** One sentAt per message; overrides sentAt, intervalSeconds and count. */
	sentAts?: string[];
}

export interface BalancesView {
	minutes: Bucket;
	aiMinutes: Bucket;
	smsCredits: Bucket;
	unifiedCreditsPence: number;
	unifiedCreditsFormatted: string;
}

export interface BalancesPatch {
	minutes?: Partial<Bucket>;
	aiMinutes?: Partial<Bucket>;
	smsCredits?: Partial<Bucket>;
	unifiedCreditsPence?: number;
}

export interface SettingsPatch {
	smsOrder?: SmsOrder;
	unifiedErrorStatus?: UnifiedErrorStatus;
	eventsWebhookUrl?: string | null;
	latencyMs?: number;
	accountRequestsPerMinute?: number;
	rateWindowSeconds?: number;
	rateAlgorithm?: RateAlgorithm;
	rateBurst?: number | null;
	retryAfter?: boolean;
	unifiedLimits?: Partial<Record<UnifiedService, Partial<ServiceLimit>>>;
	services?: Partial<Record<UnifiedService, boolean>>;
	unlistedStatuses?: boolean;
}

export interface FailureInput {
	status: FailureStatus;
	/** How many requests (default 1). */
	count?: number;
	api?: 'account' | 'unified';
	path?: string;
	method?: string;
	service?: UnifiedService;
	/** For 502 (default "30003"). */
	carrierCode?: string;
	/** For 429 (default 1). */
	retryAfterSeconds?: number;
}

export interface TrackedView {
	id: string;
	kind: TrackedItem['kind'];
	status: string;
	final: boolean;
	outcome: string;
	history: { status: string; at: string }[];
	record: Record<string, unknown>;
}

export interface ClockView {
	now: string;
	/** Total fast-forward since the last reset. */
	advancedSeconds: number;
	/** Sandbox time minus real time. */
	offsetSeconds: number;
	/** The skew set with setClockSkew (part of offsetSeconds). */
	skewSeconds: number;
	frozen: boolean;
}

/** Each script passed through `path` (the item's unlisted statuses, when it has them). */
function pathed(
	scripts: Record<string, Step[]>,
	path: ((steps: Step[]) => Step[]) | false | undefined,
): Record<string, Step[]> {
	if (!path) return scripts;
	return Object.fromEntries(Object.entries(scripts).map(([name, steps]) => [name, path(steps)]));
}

function outcomeScripts(item: TrackedItem): Record<string, Step[]> {
	switch (item.kind) {
		case 'manualCall':
			return pathed(MANUAL_SCRIPTS, item.unlisted && unlistedManualPath);
		case 'aiCall':
			return pathed(AI_SCRIPTS, item.unlisted && unlistedAiPath);
		case 'sms':
			return item.direction === 'sent'
				? pathed(
						{
							delivered: SMS_SCRIPTS.delivered,
							failed: SMS_SCRIPTS.failed,
							noReceipt: SMS_SCRIPTS.noReceipt,
						},
						item.unlisted && unlistedSmsPath,
					)
				: {};
		default:
			return unifiedScripts(item);
	}
}

function idOf(item: TrackedItem): string {
	switch (item.kind) {
		case 'manualCall':
			return item.callId;
		case 'aiCall':
			return item.callSid;
		case 'unifiedCall':
			return item.callId;
		default:
			return item.messageId;
	}
}

function unifiedRecordView(
	item: Extract<TrackedItem, { kind: 'unifiedCall' | 'unifiedSms' | 'unifiedEmail' }>,
): Record<string, unknown> {
	const {
		lifecycle,
		seq: _seq,
		settled: _settled,
		keyMask,
		costUnits,
		createdAtMs,
		...fields
	} = item;
	return {
		...fields,
		apiKey: keyMask,
		status: lifecycle.status,
		cost: unitsToPence(costUnits),
		createdAt: iso(createdAtMs),
		endedAt: lifecycle.endedAtMs === null ? null : iso(lifecycle.endedAtMs),
	};
}

const BUCKET_PARTS = ['subscription', 'topUp'] as const;

const MAX_BURST = 1000;
const MAX_LATENCY_MS = 60_000;
const TOP_UP_MIN_PENCE = 500;
const TOP_UP_MAX_PENCE = 100_000;

export class SandboxControl {
	constructor(private readonly world: World) {}

	/** Back to the seeded state (data, balances, settings, limits, failures, logs, clock). */
	reset(): void {
		this.world.reset();
	}

	// Clock

	clock(): ClockView {
		const { clock } = this.world;
		return {
			now: clock.nowIso(),
			advancedSeconds: clock.advancedSeconds,
			offsetSeconds: clock.offsetSeconds,
			skewSeconds: clock.skewSeconds,
			frozen: clock.frozen,
		};
	}

	/** Moves the clock forward and runs every state change due by then (webhooks included). */
	async advanceClock(seconds: number): Promise<ClockView> {
		this.world.clock.advance(finiteNumber(seconds, 'seconds'));
		await this.world.settle();
		return this.clock();
	}

	/**
	 * Sets the sandbox clock `seconds` off real time, either way (an API whose clock is behind or
	 * ahead of n8n's): every time it stamps, its `Date` header included. Until the next reset.
	 */
	setClockSkew(seconds: number): ClockView {
		this.world.clock.setSkew(finiteNumber(seconds, 'seconds', -Infinity));
		return this.clock();
	}

	/** Stops real time from moving the sandbox clock (only advanceClock moves it). */
	freezeClock(): ClockView {
		this.world.clock.freeze();
		return this.clock();
	}

	unfreezeClock(): ClockView {
		this.world.clock.unfreeze();
		return this.clock();
	}

	// Calls, SMS and emails

	/** Ends the current status of a call, SMS or email now; `untilFinal` runs it to its end. */
	async advance(id: string, options: { untilFinal?: boolean } = {}): Promise<TrackedView> {
		knownFields(options, ADVANCE_OPTIONS, 'advance options');
		if (options.untilFinal !== undefined && typeof options.untilFinal !== 'boolean')
			throw bad('untilFinal must be true or false.');
		const item = await this.tracked(id);
		const nowMs = this.world.clock.now();
		if (item.lifecycle.isFinal)
			throw new ControlError(409, `${id} is already ${item.lifecycle.status} (final).`);
		do item.lifecycle.advance(nowMs);
		while (options.untilFinal && !item.lifecycle.isFinal);
		await this.world.settle();
		return this.view(item);
	}

	/** Chooses how a live call, SMS or email will end, if that is still possible. */
	async setOutcome(id: string, outcome: string): Promise<TrackedView> {
		const item = await this.tracked(id);
		const scripts = outcomeScripts(item);
		const steps = scripts[choice(outcome, Object.keys(scripts), 'outcome')];
		try {
			item.lifecycle.rescript(steps);
		} catch (error) {
			if (error instanceof LifecycleConflict)
				throw new ControlError(409, `${id}: ${error.message}.`);
			throw error;
		}
		item.outcome = outcome;
		await this.world.settle();
		return this.view(item);
	}

	async get(id: string): Promise<TrackedView> {
		return this.view(await this.tracked(id));
	}

	private async tracked(id: string): Promise<TrackedItem> {
		if (typeof id !== 'string' || id === '') throw bad('id is required.');
		await this.world.settle();
		const item = this.world.findTracked(id);
		if (!item) throw new ControlError(404, `No call, SMS or email with id ${id}.`);
		return item;
	}

	private view(item: TrackedItem): TrackedView {
		const recordingBase = `${this.world.baseUrl}/_sandbox/recordings`;
		let record: Record<string, unknown>;
		switch (item.kind) {
			case 'manualCall':
				record = manualCallRecord(item, recordingBase);
				break;
			case 'aiCall':
				record = aiCallRecord(item);
				break;
			case 'sms':
				record = smsRecordView(item);
				break;
			default:
				record = unifiedRecordView(item);
		}
		return {
			id: idOf(item),
			kind: item.kind,
			status: item.lifecycle.status,
			final: item.lifecycle.isFinal,
			outcome: item.outcome,
			history: item.lifecycle.history.map((t) => ({ status: t.status, at: iso(t.atMs) })),
			record,
		};
	}

	/** Records on the Unified API side (it has no read endpoint of its own). */
	async unifiedRecords(): Promise<TrackedView[]> {
		await this.world.settle();
		const { state } = this.world;
		return [...state.unifiedCalls, ...state.unifiedSms, ...state.unifiedEmails]
			.sort((a, b) => a.seq - b.seq)
			.map((item) => this.view(item));
	}

	/** Delivers inbound SMS to a number's SMS sender, as if sent by `from`. */
	injectInboundSms(input: InboundSmsInput = {}): Record<string, unknown>[] {
		knownFields(input, INBOUND_FIELDS, 'inbound SMS');
		const { world } = this;
		const account = this.mainAccount();
		const phoneDocId = input.phoneDocId ?? PHONE_DOC_IDS.main;
		const number = account.numbers.find((n) => n.phoneDocId === phoneDocId);
		if (!number) throw new ControlError(404, `No number ${phoneDocId}.`);
		if (number.smsNumber === null)
			throw bad(`${phoneDocId} has no SMS number, so it cannot receive SMS.`);
		const from = input.from ?? TEST_NUMBERS.seededPeer;
		if (!E164.test(from)) throw bad('from must be an E.164 number.');
		const nowMs = world.clock.now();
		let sentAts: number[];
		if (input.sentAts !== undefined) {
			if (
				!Array.isArray(input.sentAts) ||
				input.sentAts.length === 0 ||
				input.sentAts.length > MAX_BURST
			) {
				throw bad(`sentAts must be an array of 1 to ${MAX_BURST} timestamps.`);
			}
			sentAts = input.sentAts.map((value, i) => timestamp(value, `sentAts[${i}]`));
		} else {
			const count =
				input.count === undefined ? 1 : positiveInteger(input.count, 'count', MAX_BURST);
			const first = input.sentAt === undefined ? nowMs : timestamp(input.sentAt, 'sentAt');
			const interval =
				input.intervalSeconds === undefined
					? 0
					: finiteNumber(input.intervalSeconds, 'intervalSeconds');
			sentAts = Array.from({ length: count }, (_, i) => first + Math.round(i * interval * 1000));
		}
		const text = input.body ?? 'Inbound message';
		if (typeof text !== 'string' || text === '') throw bad('body must be a non-empty string.');
		const created = sentAts.map((sentAtMs, i) => {
			const body = sentAts.length > 1 ? `${text} (${i + 1}/${sentAts.length})` : text;
			return newInboundSms({
				seq: nextSeq(world.state),
				account,
				number,
				from,
				body,
				sentAtMs,
				nowMs,
			});
		});
		world.state.sms.push(...created);
		return created.map(smsRecordView);
	}

	// Balances

	balances(): BalancesView {
		const { balances } = this.mainAccount();
		const units = this.world.state.unifiedCreditUnits;
		return {
			minutes: { ...balances.minutes },
			aiMinutes: { ...balances.aiMinutes },
			smsCredits: { ...balances.smsCredits },
			unifiedCreditsPence: unitsToPence(units),
			unifiedCreditsFormatted: formatPounds(units),
		};
	}

	/** Sets any bucket of the main account and the Unified credits; omitted values stay. */
	setBalances(patch: BalancesPatch): BalancesView {
		knownFields(patch, BALANCE_FIELDS, 'balances');
		const { balances } = this.mainAccount();
		const updates: [Bucket, 'subscription' | 'topUp', number][] = [];
		for (const name of BALANCE_NAMES) {
			const bucket = patch[name];
			if (bucket === undefined) continue;
			knownFields(bucket, BUCKET_PARTS, name);
			for (const part of BUCKET_PARTS) {
				if (bucket[part] !== undefined)
					updates.push([balances[name], part, nonNegativeInteger(bucket[part], `${name}.${part}`)]);
			}
		}
		const credits =
			patch.unifiedCreditsPence === undefined
				? null
				: finiteNumber(patch.unifiedCreditsPence, 'unifiedCreditsPence');
		for (const [bucket, part, value] of updates) bucket[part] = value;
		if (credits !== null) this.world.state.unifiedCreditUnits = penceToUnits(credits);
		return this.balances();
	}

	/** Buys Unified credits, within the documented 500 to 100,000 credit range (the topUpUrl target). */
	topUp(pence: number): BalancesView {
		if (
			typeof pence !== 'number' ||
			!Number.isInteger(pence) ||
			pence < TOP_UP_MIN_PENCE ||
			pence > TOP_UP_MAX_PENCE
		) {
			throw bad(`A top-up is ${TOP_UP_MIN_PENCE} to ${TOP_UP_MAX_PENCE} credits (whole pence).`);
		}
		this.world.state.unifiedCreditUnits += penceToUnits(pence);
		return this.balances();
	}

	/** Suspends the main account (402 account_suspended) or lifts the suspension. */
	setAccountSuspended(suspended: boolean): { suspended: boolean } {
		if (typeof suspended !== 'boolean') throw bad('suspended must be true or false.');
		this.mainAccount().suspended = suspended;
		return { suspended };
	}

	private mainAccount(): Account {
		return this.world.state.accounts.get(MAIN_ACCOUNT_ID) as Account;
	}

	// Settings and limits

	settings(): Settings {
		return structuredClone(this.world.settings);
	}

	/** Validates the whole patch first, then applies it. */
	updateSettings(patch: SettingsPatch): Settings {
		knownFields(patch, SETTING_NAMES, 'settings');
		const next = structuredClone(this.world.settings);
		if (patch.smsOrder !== undefined)
			next.smsOrder = choice(patch.smsOrder, SMS_ORDERS, 'smsOrder');
		if (patch.unifiedErrorStatus !== undefined) {
			next.unifiedErrorStatus = choice(
				patch.unifiedErrorStatus,
				['http', 'always200'] as const,
				'unifiedErrorStatus',
			);
		}
		if (patch.eventsWebhookUrl !== undefined) {
			next.eventsWebhookUrl =
				patch.eventsWebhookUrl === null
					? null
					: httpUrl(patch.eventsWebhookUrl, 'eventsWebhookUrl');
		}
		if (patch.latencyMs !== undefined) {
			next.latencyMs = finiteNumber(patch.latencyMs, 'latencyMs');
			if (next.latencyMs > MAX_LATENCY_MS) throw bad(`latencyMs is at most ${MAX_LATENCY_MS}.`);
		}
		if (patch.accountRequestsPerMinute !== undefined) {
			next.accountRequestsPerMinute = positiveInteger(
				patch.accountRequestsPerMinute,
				'accountRequestsPerMinute',
			);
		}
		if (patch.rateWindowSeconds !== undefined) {
			next.rateWindowSeconds = positiveInteger(patch.rateWindowSeconds, 'rateWindowSeconds');
		}
		if (patch.rateAlgorithm !== undefined) {
			next.rateAlgorithm = choice(patch.rateAlgorithm, RATE_ALGORITHMS, 'rateAlgorithm');
		}
		if (patch.rateBurst !== undefined) {
			next.rateBurst =
				patch.rateBurst === null ? null : positiveInteger(patch.rateBurst, 'rateBurst');
		}
		if (patch.retryAfter !== undefined) {
			if (typeof patch.retryAfter !== 'boolean') throw bad('retryAfter must be true or false.');
			next.retryAfter = patch.retryAfter;
		}
		if (patch.unifiedLimits !== undefined)
			knownFields(patch.unifiedLimits, UNIFIED_SERVICES, 'unifiedLimits');
		for (const [service, limit] of Object.entries(patch.unifiedLimits ?? {})) {
			const known = service as UnifiedService;
			knownFields(limit, ['perMinute', 'concurrent'], `unifiedLimits.${known}`);
			if (limit?.perMinute !== undefined) {
				next.unifiedLimits[known].perMinute = positiveInteger(
					limit.perMinute,
					`unifiedLimits.${known}.perMinute`,
				);
			}
			if (limit?.concurrent !== undefined) {
				next.unifiedLimits[known].concurrent = positiveInteger(
					limit.concurrent,
					`unifiedLimits.${known}.concurrent`,
				);
			}
		}
		if (patch.services !== undefined) knownFields(patch.services, UNIFIED_SERVICES, 'services');
		for (const [service, enabled] of Object.entries(patch.services ?? {})) {
			const known = service as UnifiedService;
			if (typeof enabled !== 'boolean') throw bad(`services.${known} must be true or false.`);
			next.services[known] = enabled;
		}
		if (patch.unlistedStatuses !== undefined) {
			if (typeof patch.unlistedStatuses !== 'boolean')
				throw bad('unlistedStatuses must be true or false.');
			next.unlistedStatuses = patch.unlistedStatuses;
		}
		this.world.settings = next;
		return this.settings();
	}

	/** Calls and sent SMS made from now on pass through statuses nobody listed (see Settings). */
	setUnlistedStatuses(unlistedStatuses: boolean): Settings {
		return this.updateSettings({ unlistedStatuses });
	}

	setSmsOrder(smsOrder: SmsOrder): Settings {
		return this.updateSettings({ smsOrder });
	}

	setUnifiedErrorStatus(unifiedErrorStatus: UnifiedErrorStatus): Settings {
		return this.updateSettings({ unifiedErrorStatus });
	}

	setEventsWebhookUrl(eventsWebhookUrl: string | null): Settings {
		return this.updateSettings({ eventsWebhookUrl });
	}

	setLatency(latencyMs: number): Settings {
		return this.updateSettings({ latencyMs });
	}

	setAccountRateLimit(accountRequestsPerMinute: number): Settings {
		return this.updateSettings({ accountRequestsPerMinute });
	}

	setUnifiedLimit(service: UnifiedService, limit: Partial<ServiceLimit>): Settings {
		return this.updateSettings({ unifiedLimits: { [service]: limit } });
	}

	setServiceAvailable(service: UnifiedService, available: boolean): Settings {
		return this.updateSettings({ services: { [service]: available } });
	}

	/** Unified requests in progress, per masked key and service (to observe concurrency caps). */
	inFlight(): Record<string, number> {
		return Object.fromEntries(
			Object.entries(this.world.unifiedGate.snapshot()).map(([bucket, n]) => {
				const at = bucket.lastIndexOf(':');
				return [`${maskKey(bucket.slice(0, at))}:${bucket.slice(at + 1)}`, n];
			}),
		);
	}

	/** API requests currently held by latencyMs (both APIs). */
	heldRequests(): number {
		return this.world.heldRequests;
	}

	// Failures

	/** The next `count` matching API requests are answered with this failure and have no effect. */
	injectFailure(input: FailureInput): InjectedFailure[] {
		knownFields(input, FAILURE_FIELDS, 'failure');
		const failure: InjectedFailure = {
			status: choice(input.status, FAILURE_STATUSES, 'status'),
			remaining: input.count === undefined ? 1 : positiveInteger(input.count, 'count'),
			api:
				input.api === undefined ? null : choice(input.api, ['account', 'unified'] as const, 'api'),
			path: input.path === undefined ? null : String(input.path).replace(/\/+$/, ''),
			method: input.method === undefined ? null : String(input.method).toUpperCase(),
			service:
				input.service === undefined ? null : choice(input.service, UNIFIED_SERVICES, 'service'),
			carrierCode: input.carrierCode === undefined ? '30003' : String(input.carrierCode),
			retryAfterSeconds:
				input.retryAfterSeconds === undefined
					? 1
					: positiveInteger(input.retryAfterSeconds, 'retryAfterSeconds'),
		};
		this.world.failures.push(failure);
		return this.failures();
	}

	failures(): InjectedFailure[] {
		return this.world.failures.map((f) => ({ ...f }));
	}

	clearFailures(): InjectedFailure[] {
		this.world.failures = [];
		return [];
	}

	// Logs

	/** API requests received (control requests are not logged), keys masked. */
	requests(): RequestLogEntry[] {
		return structuredClone(this.world.requestLog);
	}

	clearRequests(): void {
		this.world.requestLog = [];
	}

	deliveries(): WebhookDelivery[] {
		return this.world.webhooks.deliveries();
	}

	/** Waits for every webhook delivery in flight. */
	async flushWebhooks(): Promise<WebhookDelivery[]> {
		await this.world.settle();
		await this.world.webhooks.flush();
		return this.deliveries();
	}

	/** Everything at a glance. */
	async snapshot(): Promise<Record<string, unknown>> {
		await this.world.settle();
		const { state } = this.world;
		return {
			clock: this.clock(),
			balances: this.balances(),
			settings: this.settings(),
			failures: this.failures(),
			inFlight: this.inFlight(),
			heldRequests: this.heldRequests(),
			accountSuspended: this.mainAccount().suspended,
			accountKeys: [...state.accountKeys.values()].map((k) => ({
				key: maskKey(k.key),
				description: k.description,
				state: k.state,
				requestCount: k.requestCount,
				lastUsedAt: k.lastUsedAtMs === null ? null : iso(k.lastUsedAtMs),
			})),
			counts: {
				manualCalls: state.manualCalls.length,
				aiCalls: state.aiCalls.length,
				sms: state.sms.length,
				unifiedCalls: state.unifiedCalls.length,
				unifiedSms: state.unifiedSms.length,
				unifiedEmails: state.unifiedEmails.length,
				requests: this.world.requestLog.length,
				webhookDeliveries: this.world.webhooks.deliveries().length,
			},
		};
	}
}
