/**
 * Everything one running sandbox knows: the clock, the data, the adjustable settings,
 * limits, injected failures, the request log and the webhook dispatcher. Both APIs and
 * the control surface work on one World.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { billCall } from './calls';
import { Clock } from './clock';
import { unifiedEvent } from './events';
import { redactKeys } from './http';
import { ConcurrencyGate, type RateAlgorithm, RateLimits } from './ratelimit';
import { seedState } from './seed';
import type { SandboxState, SmsOrder, TrackedItem, UnifiedService } from './state';
import { allTracked } from './state';
import { WebhookDispatcher } from './webhooks';

export type UnifiedErrorStatus = 'http' | 'always200';

export interface ServiceLimit {
	perMinute: number;
	concurrent: number;
}

export interface Settings {
	/** Order of GET /v1/sms results. */
	smsOrder: SmsOrder;
	/** `http`: each Unified error code has its own status; `always200`: every error (except 429) is a 200. */
	unifiedErrorStatus: UnifiedErrorStatus;
	/** Where sms.* and email.* events go; null: not delivered. */
	eventsWebhookUrl: string | null;
	/** Real milliseconds every API request is held before it is answered. */
	latencyMs: number;
	/** Account API requests per key per sliding minute. */
	accountRequestsPerMinute: number;
	/**
	 * Length in seconds of every rate window, Account and Unified (default 60, as documented).
	 * Tests and benchmarks shorten it to run the documented rates in seconds, not minutes.
	 */
	rateWindowSeconds: number;
	/** How every rate limit is counted: a sliding window (default), a fixed window or a token bucket. */
	rateAlgorithm: RateAlgorithm;
	/**
	 * A token bucket's size for the Account API (null, the default: the limit). It refills at the
	 * limit per window whatever its size.
	 */
	rateBurst: number | null;
	/**
	 * Whether a 429 carries `Retry-After` (header, body field and message hint). The API
	 * documents none, so clients must cope when it is absent.
	 */
	retryAfter: boolean;
	unifiedLimits: Record<UnifiedService, ServiceLimit>;
	/** false: SERVICE_UNAVAILABLE. */
	services: Record<UnifiedService, boolean>;
	/**
	 * Account calls and sent SMS made while this is on pass through statuses the API documents
	 * nowhere (a manual call `agent-answered` and `dialing`, an AI call `dialing`, an SMS
	 * `submitted` and `pending`; a failed SMS ends `undelivered`), as the API says other
	 * statuses exist. Default false.
	 */
	unlistedStatuses: boolean;
}

function defaultSettings(smsOrder: SmsOrder): Settings {
	return {
		smsOrder,
		unifiedErrorStatus: 'http',
		eventsWebhookUrl: null,
		latencyMs: 0,
		accountRequestsPerMinute: 600,
		rateWindowSeconds: 60,
		rateAlgorithm: 'slidingWindow',
		rateBurst: null,
		retryAfter: true,
		unifiedLimits: {
			voice: { perMinute: 10, concurrent: 5 },
			sms: { perMinute: 100, concurrent: 50 },
			email: { perMinute: 200, concurrent: 100 },
			ai: { perMinute: 30, concurrent: 10 },
		},
		services: { voice: true, sms: true, email: true, ai: true },
		unlistedStatuses: false,
	};
}

export type FailureStatus = 429 | 500 | 502 | 503;
export const FAILURE_STATUSES: readonly FailureStatus[] = [429, 500, 502, 503];

/** A failure served to the next `remaining` matching API requests, which then have no effect. */
export interface InjectedFailure {
	status: FailureStatus;
	remaining: number;
	/** Only requests of this API. */
	api: 'account' | 'unified' | null;
	/** Only this Account path (e.g. `/v1/sms`). */
	path: string | null;
	/** Only this HTTP method. */
	method: string | null;
	/** Only this Unified service. */
	service: UnifiedService | null;
	/** Carrier code of a 502. */
	carrierCode: string;
	/** Retry-After of a 429. */
	retryAfterSeconds: number;
}

export interface RequestLogEntry {
	seq: number;
	/** Sandbox clock time the request arrived. */
	time: string;
	api: 'account' | 'unified' | 'unknown';
	method: string;
	path: string;
	query: Record<string, string>;
	/** The JSON body with every key masked (or the raw text, masked, if it was not JSON). */
	body: unknown;
	status: number;
	/** Error code of a failed request. */
	error: string | null;
	/** The key used, masked like the dashboard (first 8 + last 4 characters). */
	keyMask: string | null;
}

const MAX_LOG_ENTRIES = 10_000;

export interface WorldOptions {
	smsOrder: SmsOrder;
	webhookSecret: string;
	frozenClock: boolean;
	/** The clock set this far off real time (either way), also after every reset. */
	clockSkewSeconds: number;
	log: (line: string) => void;
}

export class World {
	readonly clock = new Clock();
	readonly webhooks: WebhookDispatcher;
	readonly accountWindow = new RateLimits();
	readonly unifiedWindow = new RateLimits();
	unifiedGate = new ConcurrencyGate();
	state: SandboxState;
	settings: Settings;
	failures: InjectedFailure[] = [];
	requestLog: RequestLogEntry[] = [];
	/** API requests currently held by latencyMs. */
	heldRequests = 0;
	/** http://host:port, known once the server listens. */
	baseUrl = '';
	private logSeq = 0;
	private stopping = new AbortController();

	constructor(readonly options: WorldOptions) {
		this.webhooks = new WebhookDispatcher(
			options.webhookSecret,
			() => this.clock.nowIso(),
			options.log,
		);
		this.clock.reset(options.frozenClock);
		this.clock.setSkew(options.clockSkewSeconds);
		this.state = seedState(this.clock.now());
		this.settings = defaultSettings(options.smsOrder);
	}

	/** Back to the seeded state: data, balances, settings, limits, failures, logs and clock. */
	reset(): void {
		this.clock.reset(this.options.frozenClock);
		this.clock.setSkew(this.options.clockSkewSeconds);
		this.state = seedState(this.clock.now());
		this.settings = defaultSettings(this.options.smsOrder);
		this.failures = [];
		this.requestLog = [];
		this.logSeq = 0;
		this.accountWindow.clear();
		this.unifiedWindow.clear();
		this.unifiedGate = new ConcurrencyGate();
		this.webhooks.clear();
	}

	/**
	 * Brings every call, SMS and email up to the clock and runs the effects of those that
	 * have just finished, in the order they finished: billing, and webhook events. The
	 * promise resolves once those webhooks have been delivered.
	 */
	async settle(): Promise<void> {
		const nowMs = this.clock.now();
		const finished: TrackedItem[] = [];
		for (const item of allTracked(this.state)) {
			if (item.settled) continue;
			item.lifecycle.sync(nowMs);
			if (item.lifecycle.isFinal) finished.push(item);
		}
		finished.sort(
			(a, b) =>
				(a.lifecycle.endedAtMs as number) - (b.lifecycle.endedAtMs as number) || a.seq - b.seq,
		);
		const deliveries = finished.map((item) => this.finish(item));
		await Promise.all(deliveries);
	}

	/** Settles in the background (API requests do not wait for webhooks). */
	settleSoon(): void {
		this.settle().catch((error: Error) => this.options.log(`settle failed: ${error.message}`));
	}

	private finish(item: TrackedItem): Promise<unknown> | undefined {
		item.settled = true;
		switch (item.kind) {
			case 'manualCall':
			case 'aiCall': {
				const account = this.state.accounts.get(item.accountId);
				if (account) billCall(item, account);
				return undefined;
			}
			case 'sms':
				return undefined;
			case 'unifiedCall':
				return item.webhookUrl
					? this.webhooks.deliver(item.webhookUrl, unifiedEvent(item))
					: undefined;
			case 'unifiedSms':
			case 'unifiedEmail': {
				const url = this.settings.eventsWebhookUrl;
				return url ? this.webhooks.deliver(url, unifiedEvent(item)) : undefined;
			}
		}
	}

	findTracked(id: string): TrackedItem | null {
		return (
			allTracked(this.state).find((item) => {
				switch (item.kind) {
					case 'manualCall':
						return item.callId === id || item.callSid === id;
					case 'aiCall':
						return item.callSid === id;
					case 'sms':
						return item.messageId === id || item.id === id;
					case 'unifiedCall':
						return item.callId === id;
					case 'unifiedSms':
					case 'unifiedEmail':
						return item.messageId === id;
				}
			}) ?? null
		);
	}

	/** Consumes and returns the first injected failure that matches the request. */
	takeFailure(request: {
		api: 'account' | 'unified';
		path: string;
		method: string;
		service: UnifiedService | null;
	}): InjectedFailure | null {
		const failure = this.failures.find(
			(f) =>
				f.remaining > 0 &&
				(f.api === null || f.api === request.api) &&
				(f.path === null || f.path === request.path) &&
				(f.method === null || f.method === request.method) &&
				(f.service === null || f.service === request.service),
		);
		if (!failure) return null;
		failure.remaining -= 1;
		this.failures = this.failures.filter((f) => f.remaining > 0);
		return failure;
	}

	/** Holds a request for the configured latency (real time); cut short when the server stops. */
	async holdForLatency(): Promise<void> {
		if (this.settings.latencyMs <= 0) return;
		this.heldRequests += 1;
		try {
			await sleep(this.settings.latencyMs, undefined, { signal: this.stopping.signal }).catch(
				() => undefined,
			);
		} finally {
			this.heldRequests -= 1;
		}
	}

	logRequest(
		entry: Omit<RequestLogEntry, 'seq' | 'body' | 'query'> & {
			body: unknown;
			query: Record<string, string>;
		},
	): void {
		this.logSeq += 1;
		this.requestLog.push({
			seq: this.logSeq,
			...entry,
			query: redactKeys(entry.query) as Record<string, string>,
			body: redactKeys(entry.body),
		});
		if (this.requestLog.length > MAX_LOG_ENTRIES)
			this.requestLog.splice(0, this.requestLog.length - MAX_LOG_ENTRIES);
		this.options.log(
			`${entry.method} ${entry.path} -> ${entry.status}${entry.error ? ` ${entry.error}` : ''}`,
		);
	}

	/** Releases requests held for latency; used when the server stops. */
	interruptHeldRequests(): void {
		this.stopping.abort();
		this.stopping = new AbortController();
	}
}
