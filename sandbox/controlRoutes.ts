/**
 * HTTP binding of the control surface: JSON in, JSON out, under /_sandbox/.
 */
import type { JsonReply, ParsedRequest } from './http';
import { isPlainObject } from './http';
import type { SandboxControl } from './control';
import {
	ADVANCE_OPTIONS,
	BALANCE_FIELDS,
	ControlError,
	FAILURE_FIELDS,
	INBOUND_FIELDS,
	SETTING_NAMES,
	choice,
	knownFields,
	nonNegativeInteger,
} from './controlInput';

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
	/**
	 * The body fields it accepts; anything else is refused (400) before the handler runs, so a
	 * refused request changes nothing. Routes that pass the body to an operation that takes an
	 * object use that operation's own list.
	 */
	fields: readonly string[];
	/** The query parameters it accepts (default none), checked the same way. */
	query?: readonly string[];
	handle: RouteHandler;
}

const NONE: readonly string[] = [];
const REQUEST_APIS = ['account', 'unified', 'unknown'] as const;

const ROUTES: Route[] = [
	{
		method: 'GET',
		path: '',
		summary: 'this index: credentials, URLs and control endpoints',
		fields: NONE,
		handle: (_c, { info }) => ({ ...info(), endpoints: controlIndex() }),
	},
	{
		method: 'GET',
		path: '/state',
		summary: 'everything at a glance',
		fields: NONE,
		handle: (c) => c.snapshot(),
	},
	{
		method: 'POST',
		path: '/reset',
		summary: 'back to the seeded state',
		fields: NONE,
		handle: (c) => (c.reset(), { reset: true }),
	},
	{
		method: 'GET',
		path: '/clock',
		summary: 'sandbox time',
		fields: NONE,
		handle: (c) => ({ clock: c.clock() }),
	},
	{
		method: 'POST',
		path: '/clock/advance',
		summary: 'fast-forward',
		fields: ['seconds'],
		handle: async (c, { input }) => ({ clock: await c.advanceClock(input.seconds as number) }),
	},
	{
		method: 'POST',
		path: '/clock/skew',
		summary: "set the clock off real time, either way (an API whose clock is off n8n's)",
		fields: ['seconds'],
		handle: (c, { input }) => ({ clock: c.setClockSkew(input.seconds as number) }),
	},
	{
		method: 'POST',
		path: '/clock/freeze',
		summary: 'stop real time moving the clock',
		fields: NONE,
		handle: (c) => ({ clock: c.freezeClock() }),
	},
	{
		method: 'POST',
		path: '/clock/unfreeze',
		summary: 'let real time move the clock again',
		fields: NONE,
		handle: (c) => ({ clock: c.unfreezeClock() }),
	},
	{
		method: 'POST',
		path: '/sms/inbound',
		summary: 'inbound SMS',
		fields: INBOUND_FIELDS,
		handle: (c, { input }) => {
			const messages = c.injectInboundSms(input);
			return { messages, count: messages.length };
		},
	},
	{
		method: 'GET',
		path: '/items/:id',
		summary: 'a call, SMS or email with its status history',
		fields: NONE,
		handle: async (c, { id }) => ({ item: await c.get(id) }),
	},
	{
		method: 'POST',
		path: '/advance',
		summary: 'next status now (untilFinal: to the end)',
		fields: ['id', ...ADVANCE_OPTIONS],
		handle: async (c, { input }) => {
			const { id, ...options } = input;
			return { item: await c.advance(id as string, options) };
		},
	},
	{
		method: 'POST',
		path: '/outcome',
		summary: 'choose how an item ends',
		fields: ['id', 'outcome'],
		handle: async (c, { input }) => ({
			item: await c.setOutcome(input.id as string, input.outcome as string),
		}),
	},
	{
		method: 'GET',
		path: '/unified',
		summary: 'Unified calls, SMS and emails',
		fields: NONE,
		handle: async (c) => ({ items: await c.unifiedRecords() }),
	},
	{
		method: 'GET',
		path: '/balances',
		summary: 'plan buckets and Unified credits',
		fields: NONE,
		handle: (c) => ({ balances: c.balances() }),
	},
	{
		method: 'POST',
		path: '/balances',
		summary: 'set buckets ({ subscription, topUp } each) and Unified credits',
		fields: BALANCE_FIELDS,
		handle: (c, { input }) => ({ balances: c.setBalances(input) }),
	},
	{
		method: 'GET',
		path: '/top-up',
		summary: 'the Unified topUpUrl',
		fields: NONE,
		handle: (c) => ({ balances: c.balances(), howTo: 'POST { "pence": 500..100000 } here' }),
	},
	{
		method: 'POST',
		path: '/top-up',
		summary: 'buy Unified credits (500 to 100000 pence)',
		fields: ['pence'],
		handle: (c, { input }) => ({ balances: c.topUp(input.pence as number) }),
	},
	{
		method: 'POST',
		path: '/account',
		summary: 'suspend the main account or lift it',
		fields: ['suspended'],
		handle: (c, { input }) => c.setAccountSuspended(input.suspended as boolean),
	},
	{
		method: 'GET',
		path: '/settings',
		summary: 'order, error statuses, limits, latency, webhook URL',
		fields: NONE,
		handle: (c) => ({ settings: c.settings() }),
	},
	{
		method: 'POST',
		path: '/settings',
		summary: 'change settings, validated as a whole',
		fields: SETTING_NAMES,
		handle: (c, { input }) => ({ settings: c.updateSettings(input) }),
	},
	{
		method: 'GET',
		path: '/failures',
		summary: 'injected failures still pending',
		fields: NONE,
		handle: (c) => ({ failures: c.failures() }),
	},
	{
		method: 'POST',
		path: '/failures',
		summary: 'inject failures (status 429|500|502|503)',
		fields: FAILURE_FIELDS,
		handle: (c, { input }) => ({ failures: c.injectFailure(input as never) }),
	},
	{
		method: 'DELETE',
		path: '/failures',
		summary: 'drop pending failures',
		fields: NONE,
		handle: (c) => ({ failures: c.clearFailures() }),
	},
	{
		method: 'GET',
		path: '/requests',
		summary: 'request log (keys masked); api=account|unified|unknown, exact path, last limit',
		fields: NONE,
		query: ['api', 'path', 'limit'],
		handle: (c, { req }) => {
			const api = req.query.get('api') || null;
			if (api !== null) choice(api, REQUEST_APIS, 'api');
			const path = req.query.get('path') || null;
			const limitText = req.query.get('limit') || null;
			const limit = limitText === null ? 0 : nonNegativeInteger(Number(limitText), 'limit');
			let requests = c
				.requests()
				.filter((r) => (!api || r.api === api) && (!path || r.path === path));
			if (limit > 0) requests = requests.slice(-limit);
			return { requests, count: requests.length };
		},
	},
	{
		method: 'DELETE',
		path: '/requests',
		summary: 'clear the request log',
		fields: NONE,
		handle: (c) => (c.clearRequests(), { requests: [] }),
	},
	{
		method: 'GET',
		path: '/webhooks',
		summary: 'webhook deliveries log',
		fields: NONE,
		handle: (c) => ({ deliveries: c.deliveries() }),
	},
	{
		method: 'POST',
		path: '/webhooks/flush',
		summary: 'wait for deliveries in flight',
		fields: NONE,
		handle: async (c) => ({ deliveries: await c.flushWebhooks() }),
	},
	{
		method: 'GET',
		path: '/recordings/:id',
		summary: 'a manual call recording (a JSON stand-in)',
		fields: NONE,
		handle: async (c, { id }) => {
			const { record } = await c.get(id);
			if (record.recordingUrl === null || record.recordingUrl === undefined) {
				throw new ControlError(404, `Call ${id} has no recording.`);
			}
			return {
				callId: id,
				durationSeconds: record.durationSeconds,
				note: 'Sandbox recording: no audio.',
			};
		},
	},
];

function match(route: Route, path: string): string | null {
	const full = `${CONTROL_PREFIX}${route.path}`;
	if (!full.endsWith('/:id')) return full === path ? '' : null;
	const prefix = full.slice(0, -':id'.length);
	const rest = path.slice(prefix.length);
	return path.startsWith(prefix) && rest !== '' && !rest.includes('/')
		? decodeURIComponent(rest)
		: null;
}

export interface ControlEndpoint {
	method: string;
	path: string;
	summary: string;
	/** Accepted body fields. */
	fields: readonly string[];
	/** Accepted query parameters. */
	query: readonly string[];
}

function controlIndex(): ControlEndpoint[] {
	return ROUTES.map((r) => ({
		method: r.method,
		path: `${CONTROL_PREFIX}${r.path}`,
		summary: r.summary,
		fields: r.fields,
		query: r.query ?? NONE,
	}));
}

export async function handleControl(
	control: SandboxControl,
	req: ParsedRequest,
	info: () => Record<string, unknown>,
): Promise<JsonReply> {
	const candidates = ROUTES.map((route) => ({ route, param: match(route, req.path) })).filter(
		(c) => c.param !== null,
	);
	if (candidates.length === 0)
		return fail(404, 'not_found', `No control endpoint ${req.path}; see GET ${CONTROL_PREFIX}.`);
	const found = candidates.find((c) => c.route.method === req.method);
	if (!found) {
		const allow = candidates.map((c) => c.route.method).join(', ');
		return {
			...fail(
				405,
				'method_not_allowed',
				`${req.method} is not allowed on ${req.path}; use ${allow}.`,
			),
			headers: { allow },
		};
	}
	if (req.bodyError !== null)
		return fail(400, 'invalid_request', `The body is not valid JSON: ${req.bodyError}`);
	if (req.body !== undefined && !isPlainObject(req.body))
		return fail(400, 'invalid_request', 'The body must be a JSON object.');
	try {
		const input = (req.body ?? {}) as Record<string, unknown>;
		const { route } = found;
		const name = `${route.method} ${CONTROL_PREFIX}${route.path}`;
		knownFields(
			Object.fromEntries([...req.query.keys()].map((key) => [key, true])),
			route.query ?? NONE,
			name,
			'query parameter',
		);
		knownFields(input, route.fields, name);
		const result = await found.route.handle(control, {
			input,
			req,
			id: found.param as string,
			info,
		});
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
