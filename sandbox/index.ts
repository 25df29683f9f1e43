/**
 * The local sandbox: both APIs (Account API v1 under /v1, the Unified API at /unified)
 * and the control surface (/_sandbox) on one node:http server bound to loopback.
 *
 *   const sandbox = await startSandbox({ port: 0 });
 *   // … sandbox.url, sandbox.credentials, sandbox.control …
 *   await sandbox.stop();
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { handleAccount, isAccountPath } from './account';
import { SandboxControl } from './control';
import { CONTROL_PREFIX, handleControl } from './controlRoutes';
import {
	BodyTooLarge,
	queryObject,
	readRequest,
	sendJson,
	type JsonReply,
	type ParsedRequest,
} from './http';
import {
	ACCOUNT_KEYS,
	ACCOUNT_KEY_DESCRIPTIONS,
	DEFAULT_HOST,
	DEFAULT_PORT,
	PHONE_DOC_IDS,
	SEEDED_NUMBERS,
	TEST_EMAILS,
	TEST_NUMBERS,
	UNIFIED_KEYS,
	WEBHOOK_SECRET,
} from './seed';
import type { SmsOrder } from './state';
import { SIGNATURE_HEADER } from './webhooks';
import { UNIFIED_PATH, handleUnified } from './unified';
import { World, type RequestLogEntry } from './world';

export type { RequestLogEntry, Settings, InjectedFailure } from './world';
export type { WebhookDelivery, WebhookEvent } from './webhooks';
export type { SmsOrder, UnifiedService } from './state';
export { SandboxControl } from './control';
export type {
	BalancesPatch,
	BalancesView,
	FailureInput,
	InboundSmsInput,
	SettingsPatch,
	TrackedView,
} from './control';
export { sign as signWebhookBody, SIGNATURE_HEADER } from './webhooks';
export * from './seed';

export interface SandboxOptions {
	/** Default 4010; 0 picks a free port. */
	port?: number;
	/** Default 127.0.0.1. */
	host?: string;
	/** Order of GET /v1/sms results (default newestFirst); also switchable through control. */
	smsOrder?: SmsOrder;
	/** HMAC secret for webhook signatures (default WEBHOOK_SECRET). */
	webhookSecret?: string;
	/** Receives one line per request and webhook; default silent. */
	log?: (line: string) => void;
	/** Start (and reset) with a frozen clock that only control.advanceClock moves. Default false. */
	frozenClock?: boolean;
	/** Start (and reset) with the clock this many seconds off real time, either way. Default 0. */
	clockSkewSeconds?: number;
	/**
	 * Also settle state changes every N real milliseconds, so that webhooks go out while
	 * nobody is polling (the command line uses 1000). Default 0: only on requests.
	 */
	autoSettleMs?: number;
}

export interface SandboxCredentials {
	account: {
		unrestricted: string;
		restricted: string;
		disabled: string;
		suspended: string;
		revoked: string;
	};
	unified: { live: string; test: string };
	webhookSecret: string;
}

export interface Sandbox {
	/** http://127.0.0.1:<port> */
	url: string;
	/** Same as url; Account API paths carry /v1 themselves. */
	accountBaseUrl: string;
	/** `${url}/unified` */
	unifiedUrl: string;
	/** `${url}/_sandbox` */
	controlUrl: string;
	credentials: SandboxCredentials;
	/** phoneDocIds of the seeded numbers. */
	numbers: { main: string; noSms: string; smsDisabled: string };
	control: SandboxControl;
	/** The request log: API requests only, keys masked. */
	requests(): RequestLogEntry[];
	/** Back to the seeded state. */
	reset(): void;
	stop(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const log = options.log ?? (() => undefined);
	const webhookSecret = options.webhookSecret ?? WEBHOOK_SECRET;
	const world = new World({
		smsOrder: options.smsOrder ?? 'newestFirst',
		webhookSecret,
		frozenClock: options.frozenClock ?? false,
		clockSkewSeconds: options.clockSkewSeconds ?? 0,
		log,
	});
	const control = new SandboxControl(world);
	const credentials: SandboxCredentials = {
		account: { ...ACCOUNT_KEYS },
		unified: { live: UNIFIED_KEYS.live, test: UNIFIED_KEYS.test },
		webhookSecret,
	};
	const info = (): Record<string, unknown> => describeSandbox(world.baseUrl, credentials);

	const server = createServer((req, res) => {
		serve(world, control, info, req, res).catch((error: Error) => {
			log(`sandbox failure: ${error.stack ?? error.message}`);
			if (!res.headersSent)
				sendJson(res, {
					status: 500,
					body: { success: false, error: 'internal_error', message: 'Unexpected failure.' },
				});
			else res.destroy();
		});
	});
	const host = options.host ?? DEFAULT_HOST;
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? DEFAULT_PORT, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const { port } = server.address() as AddressInfo;
	const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
	world.baseUrl = url;

	const ticker = options.autoSettleMs
		? setInterval(() => world.settleSoon(), options.autoSettleMs)
		: null;
	ticker?.unref();

	let stopped: Promise<void> | null = null;
	return {
		url,
		accountBaseUrl: url,
		unifiedUrl: `${url}${UNIFIED_PATH}`,
		controlUrl: `${url}${CONTROL_PREFIX}`,
		credentials,
		numbers: {
			main: PHONE_DOC_IDS.main,
			noSms: PHONE_DOC_IDS.noSms,
			smsDisabled: PHONE_DOC_IDS.smsDisabled,
		},
		control,
		requests: () => control.requests(),
		reset: () => control.reset(),
		stop() {
			stopped ??= (async () => {
				if (ticker) clearInterval(ticker);
				world.interruptHeldRequests();
				const closed = new Promise<void>((resolve) => server.close(() => resolve()));
				server.closeAllConnections();
				await closed;
				await world.webhooks.flush();
			})();
			return stopped;
		},
	};
}

async function serve(
	world: World,
	control: SandboxControl,
	info: () => Record<string, unknown>,
	req: IncomingMessage,
	res: ServerResponse,
): Promise<void> {
	const arrivedAt = world.clock.nowIso();
	let parsed: ParsedRequest;
	try {
		parsed = await readRequest(req);
	} catch (error) {
		if (!(error instanceof BodyTooLarge)) throw error;
		sendJson(res, {
			status: 413,
			body: { success: false, error: 'payload_too_large', message: error.message },
		});
		req.resume();
		return;
	}
	if (parsed.path === CONTROL_PREFIX || parsed.path.startsWith(`${CONTROL_PREFIX}/`)) {
		sendJson(res, await handleControl(control, parsed, info));
		return;
	}
	let keyMask: string | null = null;
	const onKey = (mask: string): void => {
		keyMask = mask;
	};
	const api = parsed.path === UNIFIED_PATH ? 'unified' : 'account';
	const reply: JsonReply =
		api === 'unified'
			? await handleUnified(world, parsed, onKey)
			: await handleAccount(world, parsed, onKey);
	const body = reply.body as { success?: boolean; code?: string; error?: string };
	world.logRequest({
		time: arrivedAt,
		api: api === 'account' && !isAccountPath(parsed.path) ? 'unknown' : api,
		method: parsed.method,
		path: parsed.path,
		query: queryObject(parsed.query),
		body: parsed.bodyError === null ? (parsed.body ?? null) : parsed.rawBody.toString('utf8'),
		status: reply.status,
		error: body.success === false ? (body.code ?? body.error ?? null) : null,
		keyMask,
	});
	// The API's own clock, as a server writes it (a gateway in front of it may write another).
	sendJson(res, {
		...reply,
		headers: { date: new Date(world.clock.now()).toUTCString(), ...reply.headers },
	});
}

/** Credentials, URLs and test values, as printed by the command line and the control index. */
export function describeSandbox(
	url: string,
	credentials: SandboxCredentials,
): Record<string, unknown> {
	return {
		accountBaseUrl: url,
		accountKeys: Object.fromEntries(
			Object.entries(credentials.account).map(([name, key]) => [
				name,
				{ key, description: ACCOUNT_KEY_DESCRIPTIONS[name as keyof typeof ACCOUNT_KEYS] },
			]),
		),
		unifiedUrl: `${url}${UNIFIED_PATH}`,
		unifiedKeys: credentials.unified,
		webhookSecret: credentials.webhookSecret,
		webhookSignatureHeader: SIGNATURE_HEADER,
		numbers: SEEDED_NUMBERS,
		testNumbers: TEST_NUMBERS,
		testEmails: TEST_EMAILS,
		controlUrl: `${url}${CONTROL_PREFIX}`,
	};
}
