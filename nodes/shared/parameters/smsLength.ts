/**
 * How long an SMS may be before anything is sent: Max Segments, on every operation of both nodes
 * that sends an SMS. An SMS is charged by the segment (160 characters, as both APIs count them),
 * so a message that an expression made far longer than meant (a whole document, a list of every
 * order) would otherwise go out as one item costing pounds. By default an SMS may use 10 segments
 * (1,600 characters, the Account API's own ceiling); a longer one fails as bad input does: the
 * item says the option and the value, nothing is sent, and Continue On Fail is honoured.
 */
import type { INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { integerOf, quotePrefix } from './expressionValues';
import { options, type ParameterSource, shown } from './nodeParameters';

/** Characters in one segment, as both APIs count them. */
export const SEGMENT_CHARACTERS = 160;

/** Segments an SMS may use unless Max Segments says otherwise: 1,600 characters. */
export const DEFAULT_MAX_SEGMENTS = 10;

/** Segments a message uses: one per started 160 characters (characters as a person counts them). */
export function segmentsOf(message: string): number {
	return Math.max(1, Math.ceil([...message].length / SEGMENT_CHARACTERS));
}

/**
 * The Max Segments option. `ceiling`: the most the API accepts (the Account API's 1,600
 * characters), when it has one; `charge`: what a segment costs, in words, for the description.
 */
export function maxSegmentsOption({
	ceiling,
	charge,
}: {
	ceiling?: number;
	charge: string;
}): INodeProperties {
	return {
		displayName: 'Max Segments',
		name: 'maxSegments',
		type: 'number',
		typeOptions: { minValue: 1, ...(ceiling ? { maxValue: ceiling } : {}) },
		default: DEFAULT_MAX_SEGMENTS,
		description: `Refuse, before sending, an SMS longer than this many segments of ${SEGMENT_CHARACTERS} characters (${charge}). The default, ${DEFAULT_MAX_SEGMENTS}, is ${(DEFAULT_MAX_SEGMENTS * SEGMENT_CHARACTERS).toLocaleString('en-GB')} characters${ceiling ? `, the most the API accepts` : `; raise it to send longer messages`}.`,
	};
}

/** Max Segments of an item: a whole number of at least 1 (and at most `ceiling`). */
export function maxSegments(ctx: ParameterSource, i: number, ceiling?: number): number {
	const value = options(ctx, i).maxSegments;
	if (value === undefined || value === null || value === '') return DEFAULT_MAX_SEGMENTS;
	const segments = integerOf(value);
	if (segments === undefined || segments < 1 || (ceiling !== undefined && segments > ceiling))
		throw new NodeOperationError(
			ctx.getNode(),
			`Max Segments "${shown(value)}" must be a whole number from 1${ceiling === undefined ? '' : ` to ${ceiling}`}`,
			{
				itemIndex: i,
				description:
					ceiling === undefined
						? undefined
						: `The API accepts at most ${(ceiling * SEGMENT_CHARACTERS).toLocaleString('en-GB')} characters (${ceiling} segments).`,
			},
		);
	return segments;
}

/**
 * Refuses, before anything is sent, a message longer than `max` segments. `label`: what the
 * text is ("Message", "Message with the answer link"); `cost`: what that many segments would
 * cost, in words, when the node knows.
 */
export function checkSegments(
	ctx: ParameterSource,
	i: number,
	text: string,
	max: number,
	{ label = 'Message', cost }: { label?: string; cost?: (segments: number) => string } = {},
): void {
	const segments = segmentsOf(text);
	if (segments <= max) return;
	const characters = [...text].length;
	throw new NodeOperationError(
		ctx.getNode(),
		`${label} is ${characters.toLocaleString('en-GB')} characters long: ${segments.toLocaleString('en-GB')} segments of ${SEGMENT_CHARACTERS} characters, more than Max Segments (${max}). It was not sent.`,
		{
			itemIndex: i,
			description: `${cost ? `Sent, it would cost ${cost(segments)}. ` : ''}It starts "${quotePrefix(text, 40)}". Shorten it, or raise Max Segments under Options to send SMS of up to that many segments.`,
		},
	);
}
