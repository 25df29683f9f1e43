/**
 * Allowance buckets (Account API) and prepaid credits (Unified API).
 */
import type { Bucket } from './state';

export function available(bucket: Bucket): number {
	return bucket.subscription + bucket.topUp;
}

/**
 * Takes `amount` from the subscription bucket first, then the top-up bucket. A balance
 * never goes below zero: what cannot be covered is written off. Returns what was drawn.
 */
export function draw(bucket: Bucket, amount: number): number {
	const fromSubscription = Math.min(bucket.subscription, amount);
	bucket.subscription -= fromSubscription;
	const fromTopUp = Math.min(bucket.topUp, amount - fromSubscription);
	bucket.topUp -= fromTopUp;
	return fromSubscription + fromTopUp;
}

/** Whole minutes, rounded up; a started minute is a billed minute. */
export function billableMinutes(seconds: number): number {
	return Math.ceil(Math.max(0, seconds) / 60);
}

/** Unified credits are kept in hundredths of a penny: 1 credit = 1p = 100 units. */
export const UNITS_PER_PENNY = 100;

export function penceToUnits(pence: number): number {
	return Math.round(pence * UNITS_PER_PENNY);
}

export function unitsToPence(units: number): number {
	return units / UNITS_PER_PENNY;
}

/** "7p", "0.15p", "105p". */
export function formatPence(units: number): string {
	const pence = unitsToPence(units);
	return `${Number.isInteger(pence) ? pence : Number(pence.toFixed(2))}p`;
}

/** "£20.00", or "£19.9985" when a fraction of a penny is left. */
export function formatPounds(units: number): string {
	const pounds = units / (UNITS_PER_PENNY * 100);
	return `£${pounds.toFixed(units % UNITS_PER_PENNY === 0 ? 2 : 4)}`;
}
