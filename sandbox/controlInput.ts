/**
 * What the control surface accepts: its error (a status and a message for the person who
 * sent it), the small validators every operation's input goes through, and the fields each
 * operation that takes an object accepts. The HTTP routes (controlRoutes.ts) and the
 * in-process methods (control.ts) both check with these, so they refuse alike.
 */
import { isPlainObject } from './http';
import { BALANCE_NAMES } from './state';
import type { Settings } from './world';

export class ControlError extends Error {
	constructor(
		readonly status: 400 | 404 | 409,
		message: string,
	) {
		super(message);
	}
}

export const bad = (message: string): ControlError => new ControlError(400, message);

export function nonNegativeInteger(value: unknown, name: string): number {
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
		throw bad(`${name} must be a non-negative integer.`);
	return value;
}

export function positiveInteger(
	value: unknown,
	name: string,
	max = Number.MAX_SAFE_INTEGER,
): number {
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
		throw bad(`${name} must be an integer from 1 to ${max}.`);
	}
	return value;
}

export function finiteNumber(value: unknown, name: string, min = 0): number {
	if (typeof value !== 'number' || !Number.isFinite(value) || value < min)
		throw bad(`${name} must be a number ≥ ${min}.`);
	return value;
}

export function choice<T>(value: unknown, choices: readonly T[], name: string): T {
	if (!choices.includes(value as T)) throw bad(`${name} must be one of: ${choices.join(', ')}.`);
	return value as T;
}

/**
 * Refuses misspelt or unknown fields, which would otherwise be ignored silently: the one
 * check behind every control endpoint's body and query (see controlRoutes.ts) and every
 * in-process operation that takes an object. The message names the unknown fields and
 * lists the accepted ones.
 */
export function knownFields(
	value: unknown,
	allowed: readonly string[],
	name: string,
	noun = 'field',
): void {
	if (!isPlainObject(value)) throw bad(`${name} must be an object.`);
	const unknown = Object.keys(value).filter((field) => !allowed.includes(field));
	if (unknown.length === 0) return;
	const accepted = allowed.length === 0 ? `it takes no ${noun}s` : `expected ${allowed.join(', ')}`;
	throw bad(`${name}: unknown ${noun}(s) ${unknown.join(', ')}; ${accepted}.`);
}

export function timestamp(value: unknown, name: string): number {
	const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
	if (Number.isNaN(ms)) throw bad(`${name} must be an ISO 8601 timestamp.`);
	return ms;
}

export function httpUrl(value: unknown, name: string): string {
	if (typeof value !== 'string' || !/^https?:\/\/\S+$/i.test(value))
		throw bad(`${name} must be an http(s) URL.`);
	return value;
}

// Accepted fields of the operations that take an object; the HTTP routes declare the same lists.
export const BALANCE_FIELDS: readonly string[] = [...BALANCE_NAMES, 'unifiedCreditsPence'];
export const ADVANCE_OPTIONS: readonly string[] = ['untilFinal'];
export const SETTING_NAMES: readonly (keyof Settings)[] = [
	'smsOrder',
	'unifiedErrorStatus',
	'eventsWebhookUrl',
	'latencyMs',
	'accountRequestsPerMinute',
	'rateWindowSeconds',
	'rateAlgorithm',
	'rateBurst',
	'retryAfter',
	'unifiedLimits',
	'services',
	'unlistedStatuses',
];
export const FAILURE_FIELDS: readonly string[] = [
	'status',
	'count',
	'api',
	'path',
	'method',
	'service',
	'carrierCode',
	'retryAfterSeconds',
];
export const INBOUND_FIELDS: readonly string[] = [
	'phoneDocId',
	'from',
	'body',
	'count',
	'sentAt',
	'intervalSeconds',
	'sentAts',
];
