/**
 * Field and parameter checks shared by the Account API handlers. Each failure throws an
 * AccountError carrying the documented error code.
 */
import { isPlainObject, type ParsedRequest } from './http';

export const E164 = /^\+[1-9]\d{6,14}$/;
const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export class AccountError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly context: Record<string, unknown> = {},
	) {
		super(message);
	}
}

export type Body = Record<string, unknown>;

/** The JSON object body of a write request; an absent body counts as `{}`. */
export function objectBody(req: ParsedRequest): Body {
	if (req.bodyError !== null)
		throw new AccountError(400, 'invalid_json', `The body is not valid JSON: ${req.bodyError}`);
	if (req.body === undefined) return {};
	if (!isPlainObject(req.body))
		throw new AccountError(400, 'invalid_json', 'The body must be a JSON object.');
	return req.body;
}

/** A required, non-empty string field. */
export function requiredString(body: Body, field: string): string {
	const value = body[field];
	if (typeof value !== 'string' || value === '') {
		throw new AccountError(
			400,
			'missing_field',
			`${field} is required and must be a non-empty string.`,
			{ field },
		);
	}
	return value;
}

/** An optional string field; absent, null and empty all mean "not given". */
export function optionalString(body: Body, field: string): string | null {
	const value = body[field];
	if (value === undefined || value === null || value === '') return null;
	if (typeof value !== 'string')
		throw new AccountError(400, 'invalid_field', `${field} must be a string.`, { field });
	return value;
}

export function checkE164(value: string, field: string): string {
	if (!E164.test(value)) {
		const hint = value.startsWith(' ')
			? ' (a leading space usually means the plus sign was not URL-encoded as %2B)'
			: '';
		throw new AccountError(
			400,
			'invalid_number',
			`${field} must be an E.164 number such as +447700900123${hint}.`,
			{
				field,
				value,
			},
		);
	}
	return value;
}

export function queryE164(req: ParsedRequest, name: string): string | null {
	const value = req.query.get(name);
	return value === null || value === '' ? null : checkE164(value, name);
}

/** An ISO 8601 timestamp query parameter, as epoch milliseconds. */
export function querySince(req: ParsedRequest, name = 'since'): number | null {
	const value = req.query.get(name);
	if (value === null || value === '') return null;
	const ms = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
	if (Number.isNaN(ms)) {
		throw new AccountError(400, 'invalid_field', `${name} must be an ISO 8601 timestamp.`, {
			field: name,
			value,
		});
	}
	return ms;
}

/** Page size: default 50; above 200 is clamped to 200; anything but a positive integer is refused. */
export function queryLimit(req: ParsedRequest): number {
	const value = req.query.get('limit');
	if (value === null || value === '') return DEFAULT_PAGE_SIZE;
	if (!/^\d+$/.test(value) || Number(value) < 1) {
		throw new AccountError(400, 'invalid_field', 'limit must be a positive integer.', {
			field: 'limit',
			value,
		});
	}
	return Math.min(Number(value), MAX_PAGE_SIZE);
}

/** A query parameter restricted to a set of values. */
export function queryChoice<T extends string>(
	req: ParsedRequest,
	name: string,
	choices: readonly T[],
	error = 'invalid_field',
): T | null {
	const value = req.query.get(name);
	if (value === null || value === '') return null;
	if (!(choices as readonly string[]).includes(value)) {
		throw new AccountError(400, error, `${name} must be one of: ${choices.join(', ')}.`, {
			field: name,
			value,
		});
	}
	return value as T;
}
