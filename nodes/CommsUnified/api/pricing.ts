/**
 * What an item will cost before it is sent, from the Unified API's price table. Pure.
 *
 * Money is counted in hundredths of a penny (units), so that 0.15p emails add up exactly.
 */
import { SEGMENT_CHARACTERS, segmentsOf } from '../../shared/parameters/smsLength';
import type { UnifiedService } from './unifiedApi';

/** The spec's price table, in pence (1 credit = 1p). */
export const PRICES = {
	voicePerMinute: 7,
	smsPerMessage: 3,
	emailPerEmail: 0.15,
	aiPerRequest: 15,
} as const;

/**
 * A voice call is priced per minute, and how long it will last is not known until it ends (the
 * API documents no maximum). A call is counted as this many minutes, or as the cost the API
 * reports when that is higher: the cost reported when a call is placed may be 0, and the bill
 * comes after the call ends.
 */
export const VOICE_MINUTES_COUNTED = 10;

export const UNITS_PER_PENNY = 100;

export function toUnits(pence: number): number {
	return Math.round(pence * UNITS_PER_PENNY);
}

function toPence(units: number): number {
	return units / UNITS_PER_PENNY;
}

/** "3p", "0.15p", "105p (£1.05)". */
export function formatPence(units: number): string {
	const pence = toPence(units);
	const text = `${Number.isInteger(pence) ? pence : Number(pence.toFixed(2))}p`;
	return units >= 100 * UNITS_PER_PENNY ? `${text} (£${(pence / 100).toFixed(2)})` : text;
}

/** SMS a message uses: "160 characters make one SMS" (characters as a person counts them). */
export const smsCount = segmentsOf;

export interface Price {
	units: number;
	/** How it was counted, in words: "3p: one SMS at 3p". */
	basis: string;
	/**
	 * The API's reported cost is not final (a call is billed by the minute after it ends, and
	 * may be reported at 0 when placed): the item counts at no less than `units`.
	 */
	provisional?: boolean;
}

/** What an item of `service` with `data` costs by the price table. */
export function priceOf(service: UnifiedService, data: Record<string, unknown>): Price {
	switch (service) {
		case 'voice': {
			const units = toUnits(PRICES.voicePerMinute * VOICE_MINUTES_COUNTED);
			return {
				units,
				provisional: true,
				basis: `${formatPence(units)}: a voice call costs ${PRICES.voicePerMinute}p a minute and its length is not known before it ends, so it is counted as ${VOICE_MINUTES_COUNTED} minutes, or as the cost the API reports when that is higher`,
			};
		}
		case 'sms': {
			const count = smsCount(typeof data.message === 'string' ? data.message : '');
			const units = toUnits(PRICES.smsPerMessage * count);
			return {
				units,
				basis: `${formatPence(units)}: ${count === 1 ? 'one SMS' : `${count} SMS (one per started ${SEGMENT_CHARACTERS} characters)`} at ${PRICES.smsPerMessage}p`,
			};
		}
		case 'email':
			return { units: toUnits(PRICES.emailPerEmail), basis: `${PRICES.emailPerEmail}p an email` };
		case 'ai':
			return {
				units: toUnits(PRICES.aiPerRequest),
				basis: `${PRICES.aiPerRequest}p a chat request`,
			};
	}
}
