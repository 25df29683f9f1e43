/**
 * Reading and checking node parameters for one item: the one set of readers every operation
 * of every node uses. A value may arrive as any type an expression gives (nodes/shared/parameters/expressionValues.ts
 * says which are accepted where). Every failure names the parameter and the value, and is
 * thrown before any request is made.
 */
import type { IDataObject, IExecuteFunctions, IGetNodeParameterOptions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { normalisePhoneNumber } from './phoneNumbers';
import { instantOf, integerOf, textOf, quotePrefix } from './expressionValues';

/** What the readers need of a node context (execute, poll and webhook contexts all have it). */
export interface ParameterSource {
	getNode(): INode;
	getNodeParameter: IExecuteFunctions['getNodeParameter'];
	getTimezone(): string;
}

/** How a value is quoted in a message: text as typed, anything else by its type. */
export function shown(value: unknown): string {
	const text = textOf(value);
	if (text !== undefined) return quotePrefix(text);
	if (value === null || value === undefined) return '';
	return Object.prototype.toString.call(value).slice(8, -1);
}

/**
 * The readers for a context whose parameters belong to no item (poll and webhook contexts):
 * every reader is then called with item 0.
 */
export function itemlessSource(ctx: {
	getNode(): INode;
	getNodeParameter(
		name: string,
		fallbackValue?: unknown,
		options?: IGetNodeParameterOptions,
	): unknown;
	getTimezone(): string;
}): ParameterSource {
	return {
		getNode: () => ctx.getNode(),
		getTimezone: () => ctx.getTimezone(),
		getNodeParameter: ((
			name: string,
			_itemIndex: number,
			fallbackValue?: unknown,
			options?: IGetNodeParameterOptions,
		) => ctx.getNodeParameter(name, fallbackValue, options)) as ParameterSource['getNodeParameter'],
	};
}

function fail(ctx: ParameterSource, i: number, message: string, description?: string): never {
	throw new NodeOperationError(ctx.getNode(), message, { itemIndex: i, description });
}

export function options(ctx: ParameterSource, i: number): IDataObject {
	return ctx.getNodeParameter('options', i, {}) as IDataObject;
}

/** Text that must not be empty, trimmed. Numbers from expressions count as text. */
export function requiredString(
	ctx: ParameterSource,
	i: number,
	name: string,
	label: string,
): string {
	const value = ctx.getNodeParameter(name, i, '') as unknown;
	const text = textOf(value)?.trim();
	if (text === undefined && value !== '' && value !== null && value !== undefined) {
		fail(ctx, i, `${label} must be text, but the expression gave ${shown(value)}`);
	}
	if (!text) fail(ctx, i, `${label} is required but was empty`);
	return text;
}

/** Optional text, trimmed; '' when empty. */
export function optionalString(
	ctx: ParameterSource,
	i: number,
	name: string,
	label: string,
): string {
	const value = ctx.getNodeParameter(name, i, '') as unknown;
	if (value === '' || value === null || value === undefined) return '';
	const text = textOf(value);
	if (text === undefined)
		fail(ctx, i, `${label} must be text, but the expression gave ${shown(value)}`);
	return text.trim();
}

/** Text kept exactly as given (a message body), which must contain more than white space. */
export function requiredMessage(
	ctx: ParameterSource,
	i: number,
	name: string,
	label: string,
): string {
	const value = ctx.getNodeParameter(name, i, '') as unknown;
	const text = textOf(value);
	if (text === undefined && value !== '' && value !== null && value !== undefined) {
		fail(ctx, i, `${label} must be text, but the expression gave ${shown(value)}`);
	}
	if (!text?.trim()) fail(ctx, i, `${label} is required but was empty`);
	return text;
}

/** The longest ID accepted (message, call and number IDs are far shorter); longer is not an ID. */
const MAX_ID_LENGTH = 200;

/** A required ID: text, at most `MAX_ID_LENGTH` characters, so a pasted page never reaches the API. */
export function identifier(ctx: ParameterSource, i: number, name: string, label: string): string {
	const text = requiredString(ctx, i, name, label).trim();
	if (text.length > MAX_ID_LENGTH)
		fail(
			ctx,
			i,
			`${label} "${shown(text)}" is ${text.length.toLocaleString('en-GB')} characters long, too long for an ID (at most ${MAX_ID_LENGTH})`,
		);
	return text;
}

/** The value of a resource locator found inside a collection (a string, a number, or `{ mode, value }`). */
export function locatorValue(value: unknown): string {
	const raw = value && typeof value === 'object' ? (value as IDataObject).value : value;
	return textOf(raw)?.trim() ?? '';
}

/** The account number to act from (a resource locator). */
export function phoneDocId(ctx: ParameterSource, i: number, name = 'phoneDocId'): string {
	const text = locatorValue(ctx.getNodeParameter(name, i, '', { extractValue: true }));
	if (!text) fail(ctx, i, 'Phone Number is required: pick a number from the list or enter its ID');
	if (text.length > MAX_ID_LENGTH)
		fail(
			ctx,
			i,
			`Phone Number "${shown(text)}" is ${text.length.toLocaleString('en-GB')} characters long, too long for an ID (at most ${MAX_ID_LENGTH})`,
		);
	return text;
}

/** A phone number in E.164, read with the item's Default Country option. */
export function phoneNumber(
	ctx: ParameterSource,
	i: number,
	value: unknown,
	label: string,
): string {
	return normalisePhoneNumber(value, {
		parameter: label,
		defaultCountry: textOf(options(ctx, i).defaultCountry),
	});
}

/** A date-and-time parameter as ISO 8601 UTC; text without an offset is in the workflow's time zone. */
export function isoTimestamp(
	ctx: ParameterSource,
	i: number,
	value: unknown,
	label: string,
): string {
	const timeZone = ctx.getTimezone();
	const instant = instantOf(value, timeZone);
	if ('error' in instant) {
		fail(
			ctx,
			i,
			`${label} "${shown(value)}" is not a date and time: ${instant.error}`,
			`Use ISO 8601 (2026-11-22T09:30:00Z; without an offset it is read in the workflow's time zone, ${timeZone}), an expression such as {{ $now.minus({ hours: 1 }) }}, or epoch seconds or milliseconds.`,
		);
	}
	return instant.iso;
}

/** Return All (Infinity) or the Limit, a whole number of at least 1. */
export function limitOf(ctx: ParameterSource, i: number): number {
	if (ctx.getNodeParameter('returnAll', i, false) === true) return Infinity;
	const value = ctx.getNodeParameter('limit', i, 50) as unknown;
	const limit = integerOf(value);
	if (limit === undefined || limit < 1)
		fail(ctx, i, `Limit "${shown(value)}" must be a whole number of at least 1`);
	return limit;
}

/** The response without the `success: true` every success carries. */
export function withoutSuccess(body: IDataObject): IDataObject {
	const rest = { ...body };
	delete rest.success;
	return rest;
}

export function pick(record: IDataObject, keys: string[]): IDataObject {
	return Object.fromEntries(
		keys.filter((key) => record[key] !== undefined).map((key) => [key, record[key]]),
	);
}
