/**
 * HTTP binding of the control surface: JSON in, JSON out, under /_sandbox/.
 */
import type { JsonReply, ParsedRequest } from './http';
import { isPlainObject } from './http';
import { ControlError, type SandboxControl } from './control';

export const CONTROL_PREFIX = '/_sandbox';

interface RouteContext {
	/** The JSON body ({} when there is none). */
	input: Record<string, unknown>;
	req: ParsedRequest;
	/** The ":id" path segment, for routes that have one. */
	id: string;
	/** Credentials and URLs, for the index page. */
	info: () => Record<string, unknown>;
}

type RouteHandler = (control: SandboxControl, context: RouteContext) => unknown;

interface Route {
	method: string;
	/** Path after /_sandbox; a trailing ":param" matches one path segment. */
	path: string;
	summary: string;
	handle: RouteHandler;
}

const ROUTES: Route[] = [
	{
		method: 'GET',
		path: '',
		summary: 'this index: credentials, URLs and control endpoints',
		handle: (_c, { info }) => ({ ...info(), endpoints: controlIndex() }),
	},
	{ method: 'GET', path: '/state', summary: 'everything at a glance', handle: (c) => c.snapshot() },
	{ method: 'POST', path: '/reset', summary: 'back to the seeded state', handle: (c) => (c.reset(), { reset: true }) },
	{ method: 'GET', path: '/clock', summary: 'sandbox time', handle: (c) => ({ clock: c.clock() }) },
	{
		method: 'POST',
		path: '/clock/advance',
		summary: 'fast-forward: { seconds }',
		handle: async (c, { input }) => ({ clock: await c.advanceClock(input.seconds as number) }),
	},
	{ method: 'POST', path: '/clock/freeze', summary: 'stop real time moving the clock', handle: (c) => ({ clock: c.freezeClock() }) },
	{ method: 'POST', path: '/clock/unfreeze', summary: 'let real time move the clock again', handle: (c) => ({ clock: c.unfreezeClock() }) },
	{
		method: 'POST',
		path: '/sms/inbound',
		summary: 'inbound SMS: { phoneDocId, from, body, count, sentAt, intervalSeconds, sentAts }',
		handle: (c, { input }) => {
			const messages = c.injectInboundSms(input);
			return { messages, count: messages.length };
		},
	},
	{ method: 'GET', path: '/items/:id', summary: 'a call, SMS or email with its status history', handle: async (c, { id }) => ({ item: await c.get(id) }) },
	{
		method: 'POST',
		path: '/advance',
		summary: 'next status now: { id, untilFinal }',
		handle: async (c, { input }) => ({ item: await c.advance(input.id as string, { untilFinal: input.untilFinal === true }) }),
	},
	{
		method: 'POST',
		path: '/outcome',
		summary: 'choose how an item ends: { id, outcome }',
		handle: async (c, { input }) => ({ item: await c.setOutcome(input.id as string, input.outcome as string) }),
	},
	{ method: 'GET', path: '/unified', summary: 'Unified calls, SMS and emails', handle: async (c) => ({ items: await c.unifiedRecords() }) },
	{ method: 'GET', path: '/balances', summary: 'plan buckets and Unified credits', handle: (c) => ({ balances: c.balances() }) },
	{
		method: 'POST',
		path: '/balances',
		summary: '{ minutes|aiMinutes|smsCredits: { subscription, topUp }, unifiedCreditsPence }',
		handle: (c, { input }) => ({ balances: c.setBalances(input) }),
	},
	{ method: 'GET', path: '/top-up', summary: 'the Unified topUpUrl', handle: (c) => ({ balances: c.balances(), howTo: 'POST { "pence": 500..100000 } here' }) },
	{ method: 'POST', path: '/top-up', summary: 'buy Unified credits: { pence }', handle: (c, { input }) => ({ balances: c.topUp(input.pence as number) }) },
	{
		method: 'POST',
		path: '/account',
		summary: 'suspend the main account: { suspended }',
		handle: (c, { input }) => c.setAccountSuspended(input.suspended as boolean),
	},
	{ method: 'GET', path: '/settings', summary: 'order, error statuses, limits, latency, webhook URL', handle: (c) => ({ settings: c.settings() }) },
	{
		method: 'POST',
		path: '/settings',
		summary: '{ smsOrder, unifiedErrorStatus, eventsWebhookUrl, latencyMs, accountRequestsPerMinute, unifiedLimits, services }',
		handle: (c, { input }) => ({ settings: c.updateSettings(input) }),
	},
	{ method: 'GET', path: '/failures', summary: 'injected failures still pending', handle: (c) => ({ failures: c.failures() }) },
	{
		method: 'POST',
		path: '/failures',
		summary: '{ status: 429|500|502|503, count, api, path, method, service, carrierCode, retryAfterSeconds }',
		handle: (c, { input }) => ({ failures: c.injectFailure(input as never) }),
	},
	{ method: 'DELETE', path: '/failures', summary: 'drop pending failures', handle: (c) => ({ failures: c.clearFailures() }) },
	{
		method: 'GET',
		path: '/requests',
		summary: 'request log (keys masked); ?api=account|unified&path=&limit=',
		handle: (c, { req }) => {
			const api = req.query.get('api');
			const path = req.query.get('path');
			const limit = Number(req.query.get('limit') ?? '0');
			let requests = c.requests().filter((r) => (!api || r.api === api) && (!path || r.path === path));
			if (limit > 0) requests = requests.slice(-limit);
			return { requests, count: requests.length };
		},
	},
	{ method: 'DELETE', path: '/requests', summary: 'clear the request log', handle: (c) => (c.clearRequests(), { requests: [] }) },
	{ method: 'GET', path: '/webhooks', summary: 'webhook deliveries log', handle: (c) => ({ deliveries: c.deliveries() }) },
	{
		method: 'POST',
		path: '/webhooks/flush',
		summary: 'wait for deliveries in flight',
		handle: async (c) => ({ deliveries: await c.flushWebhooks() }),
	},
	{
		method: 'GET',
		path: '/recordings/:id',
		summary: 'a manual call recording (a JSON stand-in)',
		handle: async (c, { id }) => {
			const { record } = await c.get(id);
			if (record.recordingUrl === null || record.recordingUrl === undefined) {
				throw new ControlError(404, `Call ${id} has no recording.`);
			}
			return { callId: id, durationSeconds: record.durationSeconds, note: 'Sandbox recording: no audio.' };
		},
	},
];

function match(route: Route, path: string): string | null {
	const full = `${CONTROL_PREFIX}${route.path}`;
	if (!full.endsWith('/:id')) return full === path ? '' : null;
	const prefix = full.slice(0, -':id'.length);
	const rest = path.slice(prefix.length);
	return path.startsWith(prefix) && rest !== '' && !rest.includes('/') ? decodeURIComponent(rest) : null;
}

export function controlIndex(): { method: string; path: string; summary: string }[] {
	return ROUTES.map((r) => ({ method: r.method, path: `${CONTROL_PREFIX}${r.path}`, summary: r.summary }));
}

export async function handleControl(
	control: SandboxControl,
	req: ParsedRequest,
	info: () => Record<string, unknown>,
): Promise<JsonReply> {
	const candidates = ROUTES.map((route) => ({ route, param: match(route, req.path) })).filter((c) => c.param !== null);
	if (candidates.length === 0) return fail(404, 'not_found', `No control endpoint ${req.path}; see GET ${CONTROL_PREFIX}.`);
	const found = candidates.find((c) => c.route.method === req.method);
	if (!found) {
		const allow = candidates.map((c) => c.route.method).join(', ');
		return { ...fail(405, 'method_not_allowed', `${req.method} is not allowed on ${req.path}; use ${allow}.`), headers: { allow } };
	}
	if (req.bodyError !== null) return fail(400, 'invalid_request', `The body is not valid JSON: ${req.bodyError}`);
	if (req.body !== undefined && !isPlainObject(req.body)) return fail(400, 'invalid_request', 'The body must be a JSON object.');
	try {
		const input = (req.body ?? {}) as Record<string, unknown>;
		const result = await found.route.handle(control, { input, req, id: found.param as string, info });
		return { status: 200, body: { success: true, ...(result as Record<string, unknown>) } };
	} catch (error) {
		if (error instanceof ControlError) {
			const code = { 400: 'invalid_request', 404: 'not_found', 409: 'conflict' }[error.status];
			return fail(error.status, code, error.message);
		}
		throw error;
	}
}

function fail(status: number, error: string, message: string): JsonReply {
	return { status, body: { success: false, error, message } };
}
