/**
 * The Unified API: one POST endpoint taking a { service, action, data, api_key }
 * envelope for voice calls, SMS, email and AI chat, with prepaid credits, per-service
 * rate limits and concurrency caps, and webhook events when calls and messages finish.
 */
import { formatPence, formatPounds, penceToUnits, unitsToPence } from './billing';
import { Lifecycle, type Step } from './lifecycle';
import type { JsonReply, ParsedRequest } from './http';
import { isPlainObject, maskKey } from './http';
import { MAX_SMS_CHARACTERS, characterCount, segmentsOf } from './messages';
import { TEST_EMAILS, TEST_NUMBERS, UNIFIED_DEFAULT_FROM } from './seed';
import type { UnifiedCall, UnifiedEmail, UnifiedKey, UnifiedService, UnifiedSms } from './state';
import { UNIFIED_SERVICES, makeId, nextSeq } from './state';
import { E164 } from './validate';
import type { InjectedFailure, World } from './world';

export const UNIFIED_PATH = '/unified';
const TOP_UP_PATH = '/_sandbox/top-up';
const UNIFIED_KEY_PREFIXES = ['key_live_', 'key_test_'] as const;

const ACTIONS: Record<UnifiedService, string> = {
	voice: 'make_call',
	sms: 'send',
	email: 'send',
	ai: 'chat',
};

export const VOICES = [
	'Voice.Amy',
	'Voice.Brian',
	'Voice.Emma',
	'Voice.Joanna',
	'Voice.Matthew',
] as const;
export const DEFAULT_VOICE = 'Voice.Amy';
const AI_MODELS = ['model-capable', 'model-fast'] as const;
const DEFAULT_AI_MODEL = 'model-capable';
const AI_ROLES = ['system', 'user', 'assistant'] as const;

/** Prices in pence. */
export const PRICES = { voicePerMinute: 7, smsPerSegment: 3, email: 0.15, aiChat: 15 } as const;

/** Maximum lengths (not given by the spec). */
const MAX_VOICE_SCRIPT = 4000;
const MAX_EMAIL_HTML = 100_000;
const MAX_EMAIL_SUBJECT = 998;
/** A voice call is estimated at one minute per started 500 characters of script. */
const SCRIPT_CHARACTERS_PER_MINUTE = 500;

export type UnifiedCode =
	| 'MISSING_API_KEY'
	| 'INVALID_API_KEY'
	| 'INSUFFICIENT_CREDITS'
	| 'SERVICE_UNAVAILABLE'
	| 'INTERNAL_ERROR'
	| 'INVALID_PARAMETERS'
	| 'RATE_LIMITED'
	| 'METHOD_NOT_ALLOWED'
	| 'CARRIER_ERROR';

const STATUS_BY_CODE: Record<UnifiedCode, number> = {
	MISSING_API_KEY: 401,
	INVALID_API_KEY: 401,
	INSUFFICIENT_CREDITS: 402,
	SERVICE_UNAVAILABLE: 503,
	INTERNAL_ERROR: 500,
	INVALID_PARAMETERS: 400,
	RATE_LIMITED: 429,
	METHOD_NOT_ALLOWED: 405,
	CARRIER_ERROR: 502,
};

class UnifiedError extends Error {
	constructor(
		readonly code: UnifiedCode,
		message: string,
		readonly extra: Record<string, unknown> = {},
		readonly retryAfterSeconds: number | null = null,
	) {
		super(message);
	}
}

const invalid = (message: string): UnifiedError => new UnifiedError('INVALID_PARAMETERS', message);

// Lifecycles of Unified calls, SMS and emails.

export function unifiedScripts(
	item: UnifiedCall | UnifiedSms | UnifiedEmail,
): Record<string, Step[]> {
	switch (item.kind) {
		case 'unifiedCall':
			return {
				completed: [
					{ status: 'initiated', seconds: 10 },
					{ status: 'in-progress', seconds: item.estimatedSeconds },
					{ status: 'completed' },
				],
				failed: [{ status: 'initiated', seconds: 10 }, { status: 'failed' }],
			};
		case 'unifiedSms':
			return {
				delivered: [{ status: 'sent', seconds: 10 }, { status: 'delivered' }],
				failed: [{ status: 'sent', seconds: 10 }, { status: 'failed' }],
			};
		case 'unifiedEmail':
			return {
				delivered: [{ status: 'sent', seconds: 10 }, { status: 'delivered' }],
				bounced: [{ status: 'sent', seconds: 10 }, { status: 'bounced' }],
			};
	}
}

/** Gives a new record its lifecycle for the chosen outcome, and stores it. */
function track<T extends UnifiedCall | UnifiedSms | UnifiedEmail>(
	list: T[],
	item: Omit<T, 'lifecycle'>,
): T {
	const steps = unifiedScripts(item as T)[item.outcome];
	const full = { ...item, lifecycle: new Lifecycle(steps, item.createdAtMs) } as T;
	list.push(full);
	return full;
}

// Data validation, one function per service.

type Data = Record<string, unknown>;

function requiredText(data: Data, field: string, max: number | null = null): string {
	const value = data[field];
	if (typeof value !== 'string' || value.trim() === '')
		throw invalid(`data.${field} is required and must be a non-empty string.`);
	if (max !== null && characterCount(value) > max)
		throw invalid(`data.${field} is longer than ${max} characters.`);
	return value;
}

function optionalText(data: Data, field: string): string | null {
	const value = data[field];
	if (value === undefined || value === null || value === '') return null;
	if (typeof value !== 'string') throw invalid(`data.${field} must be a string.`);
	return value;
}

function phone(value: string, field: string): string {
	if (!E164.test(value))
		throw invalid(`data.${field} must be an E.164 number such as +447700900123.`);
	return value;
}

function optionalChoice<T extends string>(
	data: Data,
	field: string,
	choices: readonly T[],
): T | null {
	const value = optionalText(data, field);
	if (value !== null && !(choices as readonly string[]).includes(value)) {
		throw invalid(`data.${field} must be one of: ${choices.join(', ')}.`);
	}
	return value as T | null;
}

interface Operation<Input> {
	validate(data: Data): Input;
	/** Price in hundredths of a penny. */
	cost(input: Input): number;
	perform(
		context: { world: World; key: UnifiedKey; chargeUnits: number },
		input: Input,
	): Record<string, unknown>;
}

function operation<Input>(op: Operation<Input>): Operation<unknown> {
	return op as Operation<unknown>;
}

function record(world: World, key: UnifiedKey, chargeUnits: number, outcome: string) {
	const nowMs = world.clock.now();
	return {
		seq: nextSeq(world.state),
		userId: key.userId,
		live: key.live,
		keyMask: maskKey(key.key),
		costUnits: chargeUnits,
		createdAtMs: nowMs,
		outcome,
		settled: false,
	};
}

const OPERATIONS: Record<UnifiedService, Operation<unknown>> = {
	voice: operation({
		validate(data) {
			const webhookUrl = optionalText(data, 'webhook_url');
			if (webhookUrl !== null && !/^https?:\/\/[^\s]+$/i.test(webhookUrl))
				throw invalid('data.webhook_url must be an http(s) URL.');
			const from = optionalText(data, 'from');
			const message = requiredText(data, 'message', MAX_VOICE_SCRIPT);
			return {
				to: phone(requiredText(data, 'to'), 'to'),
				message,
				from: from === null ? UNIFIED_DEFAULT_FROM.voice : phone(from, 'from'),
				voice: optionalChoice(data, 'voice', VOICES) ?? DEFAULT_VOICE,
				webhookUrl,
				estimatedSeconds:
					60 * Math.max(1, Math.ceil(characterCount(message) / SCRIPT_CHARACTERS_PER_MINUTE)),
			};
		},
		cost: (input) => penceToUnits(PRICES.voicePerMinute * (input.estimatedSeconds / 60)),
		perform({ world, key, chargeUnits }, input) {
			const base = record(
				world,
				key,
				chargeUnits,
				input.to === TEST_NUMBERS.deliveryFails ? 'failed' : 'completed',
			);
			const call = track<UnifiedCall>(world.state.unifiedCalls, {
				...base,
				kind: 'unifiedCall',
				callId: makeId('ucall_sbx_', base.seq),
				...input,
			});
			return {
				call_id: call.callId,
				status: call.lifecycle.status,
				to: call.to,
				from: call.from,
				estimated_duration: call.estimatedSeconds,
				voice: call.voice,
			};
		},
	}),
	sms: operation({
		validate(data) {
			const from = optionalText(data, 'from');
			const message = requiredText(data, 'message', MAX_SMS_CHARACTERS);
			return {
				to: phone(requiredText(data, 'to'), 'to'),
				message,
				from: from === null ? UNIFIED_DEFAULT_FROM.sms : phone(from, 'from'),
				segments: segmentsOf(message),
			};
		},
		cost: (input) => penceToUnits(PRICES.smsPerSegment * input.segments),
		perform({ world, key, chargeUnits }, input) {
			const base = record(
				world,
				key,
				chargeUnits,
				input.to === TEST_NUMBERS.deliveryFails ? 'failed' : 'delivered',
			);
			const sms = track<UnifiedSms>(world.state.unifiedSms, {
				...base,
				kind: 'unifiedSms',
				messageId: makeId('usms_sbx_', base.seq),
				...input,
			});
			return {
				message_id: sms.messageId,
				status: sms.lifecycle.status,
				to: sms.to,
				from: sms.from,
				segments: sms.segments,
			};
		},
	}),
	email: operation({
		validate(data) {
			const to = requiredText(data, 'to');
			if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(to))
				throw invalid('data.to must be an email address.');
			return {
				to,
				subject: requiredText(data, 'subject', MAX_EMAIL_SUBJECT),
				html: requiredText(data, 'html', MAX_EMAIL_HTML),
				fromName: optionalText(data, 'from_name'),
			};
		},
		cost: () => penceToUnits(PRICES.email),
		perform({ world, key, chargeUnits }, input) {
			const base = record(
				world,
				key,
				chargeUnits,
				input.to.toLowerCase() === TEST_EMAILS.bounces ? 'bounced' : 'delivered',
			);
			const email = track<UnifiedEmail>(world.state.unifiedEmails, {
				...base,
				kind: 'unifiedEmail',
				messageId: makeId('uemail_sbx_', base.seq),
				to: input.to,
				subject: input.subject,
				fromName: input.fromName,
			});
			return {
				message_id: email.messageId,
				status: email.lifecycle.status,
				to: email.to,
				subject: email.subject,
			};
		},
	}),
	ai: operation({
		validate(data) {
			const messages = data.messages;
			if (!Array.isArray(messages) || messages.length === 0)
				throw invalid('data.messages must be a non-empty array.');
			const checked = messages.map((m, i) => {
				if (
					!isPlainObject(m) ||
					typeof m.content !== 'string' ||
					!(AI_ROLES as readonly unknown[]).includes(m.role)
				) {
					throw invalid(
						`data.messages[${i}] must be { role: ${AI_ROLES.join('|')}, content: string }.`,
					);
				}
				return { role: m.role as string, content: m.content };
			});
			if (!checked.some((m) => m.role === 'user'))
				throw invalid('data.messages needs at least one user message.');
			return {
				messages: checked,
				model: optionalChoice(data, 'model', AI_MODELS) ?? DEFAULT_AI_MODEL,
			};
		},
		cost: () => penceToUnits(PRICES.aiChat),
		perform(_context, input) {
			return chatAnswer(input.messages, input.model);
		},
	}),
};

function shorten(text: string, max: number): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A deterministic answer: the same messages and model always give the same response. */
export function chatAnswer(
	messages: { role: string; content: string }[],
	model: string,
): Record<string, unknown> {
	const question = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
	const instructions = messages
		.filter((m) => m.role === 'system')
		.map((m) => m.content)
		.join(' ');
	const words = question.split(/\s+/).filter(Boolean).length;
	const response =
		model === 'model-fast'
			? `Sandbox answer (${model}) to "${shorten(question, 60)}".`
			: `Sandbox answer (${model}) to "${shorten(question, 200)}": a ${words}-word question, ` +
				`answered in a conversation of ${messages.length} message(s)` +
				(instructions ? ` following the instructions "${shorten(instructions, 100)}".` : '.');
	const promptCharacters = messages.reduce((sum, m) => sum + characterCount(m.content), 0);
	return {
		response,
		model,
		tokens_used: Math.ceil(promptCharacters / 4) + Math.ceil(characterCount(response) / 4),
	};
}

// The endpoint.

function authenticate(world: World, envelope: Data, onKey: (keyMask: string) => void): UnifiedKey {
	const raw = envelope.api_key;
	if (raw === undefined || raw === null || raw === '')
		throw new UnifiedError('MISSING_API_KEY', 'No API key: set api_key in the request body.');
	if (typeof raw !== 'string')
		throw new UnifiedError('INVALID_API_KEY', 'api_key must be a string.');
	onKey(maskKey(raw));
	if (!UNIFIED_KEY_PREFIXES.some((prefix) => raw.startsWith(prefix))) {
		throw new UnifiedError(
			'INVALID_API_KEY',
			`Unified API keys start with ${UNIFIED_KEY_PREFIXES.join(' or ')}.`,
		);
	}
	const key = world.state.unifiedKeys.get(raw);
	if (!key || key.revoked)
		throw new UnifiedError('INVALID_API_KEY', 'The API key is invalid or has been revoked.');
	return key;
}

function serviceOf(envelope: Data): UnifiedService {
	const { service, action, data } = envelope;
	if (!(UNIFIED_SERVICES as readonly unknown[]).includes(service)) {
		throw invalid(`service must be one of: ${UNIFIED_SERVICES.join(', ')}.`);
	}
	const known = service as UnifiedService;
	if (action !== ACTIONS[known])
		throw invalid(`The ${known} service takes action "${ACTIONS[known]}".`);
	if (!isPlainObject(data)) throw invalid('data must be an object.');
	return known;
}

function failureError(failure: InjectedFailure): UnifiedError {
	switch (failure.status) {
		case 429:
			return new UnifiedError(
				'RATE_LIMITED',
				'Rate limit exceeded; retry later.',
				{},
				failure.retryAfterSeconds,
			);
		case 500:
			return new UnifiedError('INTERNAL_ERROR', 'Internal server error; retry later.');
		case 502:
			return new UnifiedError('CARRIER_ERROR', 'The downstream carrier rejected the request.', {
				carrierCode: failure.carrierCode,
			});
		case 503:
			return new UnifiedError('SERVICE_UNAVAILABLE', 'The service is temporarily unavailable.');
	}
}

function limitFor(world: World, key: UnifiedKey, service: UnifiedService): () => void {
	const limits = world.settings.unifiedLimits[service];
	const bucket = `${key.key}:${service}`;
	const verdict = world.unifiedWindow.take(
		world.settings.rateAlgorithm,
		bucket,
		limits.perMinute,
		world.clock.now(),
		world.settings.rateWindowSeconds * 1000,
	);
	if (!verdict.allowed) {
		if (!world.settings.retryAfter) {
			throw new UnifiedError(
				'RATE_LIMITED',
				`Rate limit of ${limits.perMinute} ${service} requests per minute exceeded.`,
			);
		}
		throw new UnifiedError(
			'RATE_LIMITED',
			`Rate limit of ${limits.perMinute} ${service} requests per minute exceeded; retry after ${verdict.retryAfterSeconds} s.`,
			{},
			verdict.retryAfterSeconds,
		);
	}
	const release = world.unifiedGate.acquire(bucket, limits.concurrent);
	if (!release) {
		throw new UnifiedError(
			'RATE_LIMITED',
			`More than ${limits.concurrent} concurrent ${service} requests; retry shortly.`,
			{},
			world.settings.retryAfter ? 1 : null,
		);
	}
	return release;
}

export async function handleUnified(
	world: World,
	req: ParsedRequest,
	onKey: (keyMask: string) => void,
): Promise<JsonReply> {
	const envelope: Data = isPlainObject(req.body) ? req.body : {};
	const echo = {
		service: typeof envelope.service === 'string' ? envelope.service : null,
		action: typeof envelope.action === 'string' ? envelope.action : null,
	};
	let release: (() => void) | null = null;
	try {
		if (req.method !== 'POST')
			throw new UnifiedError('METHOD_NOT_ALLOWED', `Use POST ${UNIFIED_PATH}.`);
		const service = (UNIFIED_SERVICES as readonly unknown[]).includes(echo.service)
			? (echo.service as UnifiedService)
			: null;
		const failure = world.takeFailure({
			api: 'unified',
			path: req.path,
			method: req.method,
			service,
		});
		if (failure) throw failureError(failure);
		if (req.bodyError !== null || !isPlainObject(req.body))
			throw invalid('The body must be a JSON object (the request envelope).');
		const key = authenticate(world, envelope, onKey);
		const known = serviceOf(envelope);
		if (!world.settings.services[known]) {
			throw new UnifiedError(
				'SERVICE_UNAVAILABLE',
				`The ${known} service is not available for this account.`,
			);
		}
		release = limitFor(world, key, known);
		await world.holdForLatency();
		world.settleSoon();
		const op = OPERATIONS[known];
		const input = op.validate(envelope.data as Data);
		const priceUnits = op.cost(input);
		const { state } = world;
		if (key.live && state.unifiedCreditUnits < priceUnits) {
			throw new UnifiedError(
				'INSUFFICIENT_CREDITS',
				`Insufficient credits: balance ${formatPence(state.unifiedCreditUnits)}, required ${formatPence(priceUnits)}.`,
				{ topUpUrl: `${world.baseUrl}${TOP_UP_PATH}` },
			);
		}
		const chargeUnits = key.live ? priceUnits : 0;
		state.unifiedCreditUnits -= chargeUnits;
		const result = op.perform({ world, key, chargeUnits }, input);
		return {
			status: 200,
			body: {
				success: true,
				result,
				billing: {
					cost: unitsToPence(chargeUnits),
					costFormatted: formatPence(chargeUnits),
					service: known,
					action: ACTIONS[known],
					isLive: key.live,
					creditsRemaining: unitsToPence(state.unifiedCreditUnits),
					creditsRemainingFormatted: formatPounds(state.unifiedCreditUnits),
				},
				timestamp: world.clock.nowIso(),
				nodeVersion: process.version,
			},
		};
	} catch (caught) {
		const error =
			caught instanceof UnifiedError
				? caught
				: new UnifiedError('INTERNAL_ERROR', 'Internal server error; retry later.');
		if (!(caught instanceof UnifiedError))
			world.options.log(`unified API failure: ${(caught as Error).stack ?? caught}`);
		return errorReply(world, error, echo);
	} finally {
		release?.();
	}
}

function errorReply(
	world: World,
	error: UnifiedError,
	echo: { service: string | null; action: string | null },
): JsonReply {
	const status =
		error.code === 'RATE_LIMITED' || world.settings.unifiedErrorStatus === 'http'
			? STATUS_BY_CODE[error.code]
			: 200;
	const headers: Record<string, string> = {};
	if (error.retryAfterSeconds !== null) headers['retry-after'] = String(error.retryAfterSeconds);
	if (error.code === 'METHOD_NOT_ALLOWED') headers.allow = 'POST';
	return {
		status,
		headers,
		body: {
			success: false,
			error: error.message,
			code: error.code,
			message: error.message,
			...error.extra,
			timestamp: world.clock.nowIso(),
			service: echo.service,
			action: echo.action,
		},
	};
}
