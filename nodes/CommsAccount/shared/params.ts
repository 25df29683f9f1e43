/**
 * Reading and checking the Account node's parameters for one item. Every failure names the
 * parameter and the value, and is thrown before any request is made.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { normalisePhoneNumber } from '../../shared/phone';

export const SMS_MAX_LENGTH = 1600;
export const SMS_SEGMENT_LENGTH = 160;

/** Segments a message uses, by the API's rule: 160 characters a segment. */
export function smsSegments(message: string): number {
	return Math.max(1, Math.ceil([...message].length / SMS_SEGMENT_LENGTH));
}

export function options(ctx: IExecuteFunctions, i: number): IDataObject {
	return ctx.getNodeParameter('options', i, {}) as IDataObject;
}

export function requiredString(ctx: IExecuteFunctions, i: number, name: string, label: string): string {
	const value = ctx.getNodeParameter(name, i, '') as unknown;
	const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
	if (!text) throw new NodeOperationError(ctx.getNode(), `${label} is required but was empty`, { itemIndex: i });
	return text;
}

export function phoneDocId(ctx: IExecuteFunctions, i: number, name = 'phoneDocId'): string {
	const value = ctx.getNodeParameter(name, i, '', { extractValue: true }) as unknown;
	const text = typeof value === 'string' ? value.trim() : '';
	if (!text) throw new NodeOperationError(ctx.getNode(), 'Phone Number is required: pick a number from the list or enter its ID', { itemIndex: i });
	return text;
}

/** The value of a resource locator found inside a collection (a string, or `{ mode, value }`). */
export function locatorValue(value: unknown): string {
	const raw = value && typeof value === 'object' ? (value as IDataObject).value : value;
	return typeof raw === 'string' ? raw.trim() : '';
}

export function phoneNumber(ctx: IExecuteFunctions, i: number, value: unknown, label: string): string {
	return normalisePhoneNumber(value, { parameter: label, defaultCountry: options(ctx, i).defaultCountry as string | undefined });
}

/** A dateTime parameter as ISO 8601; a value without an offset is taken as UTC. */
export function isoTimestamp(ctx: IExecuteFunctions, i: number, value: unknown, label: string): string {
	const text = typeof value === 'string' ? value.trim() : '';
	const withZone = /([zZ]|[+-]\d\d:?\d\d)$/.test(text) ? text : `${text}Z`;
	const time = Date.parse(withZone);
	if (!text || Number.isNaN(time)) {
		throw new NodeOperationError(ctx.getNode(), `${label} "${text}" is not a date and time`, { itemIndex: i, description: 'Use ISO 8601, for example 2026-11-22T09:30:00Z.' });
	}
	return new Date(time).toISOString();
}

export function limitOf(ctx: IExecuteFunctions, i: number): number {
	if (ctx.getNodeParameter('returnAll', i, false) as boolean) return Infinity;
	const limit = Number(ctx.getNodeParameter('limit', i, 50));
	if (!Number.isInteger(limit) || limit < 1) throw new NodeOperationError(ctx.getNode(), `Limit "${limit}" must be a whole number of at least 1`, { itemIndex: i });
	return limit;
}

/** The response without the `success: true` every success carries. */
export function withoutSuccess(body: IDataObject): IDataObject {
	const { success: _success, ...rest } = body;
	return rest;
}

export function pick(record: IDataObject, keys: string[]): IDataObject {
	return Object.fromEntries(keys.filter((key) => record[key] !== undefined).map((key) => [key, record[key]]));
}
