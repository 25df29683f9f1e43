/**
 * Parameter values as n8n hands them over, turned into what the API needs. Pure functions.
 *
 * An expression gives a parameter whatever type it evaluates to: `{{ 12345 }}` is a number,
 * `{{ $now.minus({ hours: 1 }) }}` a Luxon DateTime, `{{ new Date() }}` a Date, and a value
 * read from JSON may be an epoch number. Each reader accepts every type that makes sense for
 * its parameter and says plainly what it could not use.
 */

/** Text from a string, number, bigint or boolean; undefined for anything else (objects, null). */
export function textOf(value: unknown): string | undefined {
	if (typeof value === 'string') return value;
	if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
	if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
	return undefined;
}

/** Something that looks like a Luxon DateTime (n8n's $now, $today, DateTime.fromISO(...)). */
interface DateTimeLike {
	isValid: boolean;
	toMillis(): number;
}

function isDateTimeLike(value: unknown): value is DateTimeLike {
	return (
		typeof value === 'object' &&
		value !== null &&
		typeof (value as DateTimeLike).toMillis === 'function' &&
		typeof (value as DateTimeLike).isValid === 'boolean'
	);
}

/**
 * A DateTime as n8n 2.x's `vm` expression engine hands it over: results cross the sandbox
 * boundary by structured clone, so a DateTime arrives as a marker object naming its type.
 */
interface DateTimeMarker {
	__n8nType: 'DateTime';
	__isoString: string;
}

function isDateTimeMarker(value: unknown): value is DateTimeMarker {
	return (
		typeof value === 'object' &&
		value !== null &&
		(value as DateTimeMarker).__n8nType === 'DateTime' &&
		typeof (value as DateTimeMarker).__isoString === 'string'
	);
}

/** A Date, also one from another realm (an expression sandbox), where instanceof fails. */
function isDate(value: unknown): value is Date {
	return (
		Object.prototype.toString.call(value) === '[object Date]' &&
		typeof (value as Date).getTime === 'function'
	);
}

export type Instant = { iso: string } | { error: string };

/** Epoch numbers below this are seconds, above it milliseconds (1e11 s is the year 5138). */
const EPOCH_SECONDS_BELOW = 1e11;

function fromMillis(ms: number): Instant {
	const date = new Date(ms);
	return Number.isNaN(date.getTime())
		? { error: 'it is out of range' }
		: { iso: date.toISOString() };
}

/** An ISO 8601 time followed by an offset: ...T09:30Z, ...T09:30:00+01:00, ...T09:30-0500, ...T09:30-05. */
const HAS_OFFSET = /[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?:[zZ]|[+-]\d\d(?::?\d\d)?)$/;

/** Other forms Date.parse reads unambiguously: with a named UTC zone or a numeric offset (RFC 2822). */
const OTHER_WITH_ZONE = /\b(?:GMT|UTC)\b|[+-]\d{4}$/;

const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?$/;

/**
 * A point in time from a date-and-time parameter. Text without an offset is the wall-clock time
 * in `timeZone` (the workflow's time zone, as n8n's own date fields are).
 */
export function instantOf(value: unknown, timeZone: string): Instant {
	if (isDate(value)) return fromMillis(value.getTime());
	if (isDateTimeLike(value))
		return value.isValid ? fromMillis(value.toMillis()) : { error: 'it is an invalid DateTime' };
	if (isDateTimeMarker(value)) return instantOf(value.__isoString, timeZone);
	if (typeof value === 'number') {
		if (!Number.isFinite(value)) return { error: 'it is not a finite number' };
		return fromMillis(Math.abs(value) < EPOCH_SECONDS_BELOW ? value * 1000 : value);
	}
	const text = textOf(value)?.trim();
	if (!text) return { error: 'it is empty' };
	if (/^-?\d+(\.\d+)?$/.test(text)) return instantOf(Number(text), timeZone);
	if (HAS_OFFSET.test(text)) {
		const ms = Date.parse(text);
		return Number.isNaN(ms) ? { error: 'it is not a date and time' } : fromMillis(ms);
	}
	const wall = WALL_TIME.exec(text);
	if (!wall) {
		const ms = OTHER_WITH_ZONE.test(text) ? Date.parse(text) : NaN;
		return Number.isNaN(ms) ? { error: 'it is not a date and time' } : fromMillis(ms);
	}
	const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '0'] = wall;
	const parts = [
		Number(y),
		Number(mo) - 1,
		Number(d),
		Number(h),
		Number(mi),
		Number(s),
		Number(frac.padEnd(3, '0').slice(0, 3)),
	] as const;
	const utc = Date.UTC(...parts);
	const check = new Date(utc);
	if (
		Number.isNaN(utc) ||
		check.getUTCMonth() !== parts[1] ||
		check.getUTCDate() !== parts[2] ||
		parts[3] > 23 ||
		parts[4] > 59 ||
		parts[5] > 59
	) {
		return { error: 'it is not a date and time' };
	}
	const ms = wallTimeToUtc(utc, timeZone);
	return ms === undefined
		? { error: `the time zone "${quotePrefix(timeZone)}" is unknown` }
		: fromMillis(ms);
}

/** Offset of `timeZone` from UTC at the instant `ms`, in milliseconds; undefined for an unknown zone. */
function zoneOffsetMs(ms: number, timeZone: string): number | undefined {
	let format: Intl.DateTimeFormat;
	try {
		format = new Intl.DateTimeFormat('en-US', {
			timeZone,
			hourCycle: 'h23',
			year: 'numeric',
			month: 'numeric',
			day: 'numeric',
			hour: 'numeric',
			minute: 'numeric',
			second: 'numeric',
		});
	} catch {
		return undefined;
	}
	const part = Object.fromEntries(
		format.formatToParts(new Date(ms)).map(({ type, value }) => [type, Number(value)]),
	);
	const asUtc = Date.UTC(part.year, part.month - 1, part.day, part.hour, part.minute, part.second);
	return asUtc - (ms - (((ms % 1000) + 1000) % 1000));
}

/**
 * The UTC instant at which clocks in `timeZone` show the wall time `wallAsUtc` (that wall time
 * written as if it were UTC). In a DST gap the time is read with the offset from before the
 * change; in an overlap, the earlier of the two instants.
 */
export function wallTimeToUtc(wallAsUtc: number, timeZone: string): number | undefined {
	const before = zoneOffsetMs(wallAsUtc - 86_400_000, timeZone);
	const after = zoneOffsetMs(wallAsUtc + 86_400_000, timeZone);
	if (before === undefined || after === undefined) return undefined;
	const candidates = [...new Set([before, after])]
		.map((offset) => wallAsUtc - offset)
		.filter((ms) => zoneOffsetMs(ms, timeZone) === wallAsUtc - ms)
		.sort((a, b) => a - b);
	return candidates[0] ?? wallAsUtc - before;
}

/** A number from a number or numeric text; NaN otherwise. */
export function numberOf(value: unknown): number {
	return typeof value === 'number'
		? value
		: typeof value === 'string' && value.trim() !== ''
			? Number(value)
			: NaN;
}

/** A whole number from a number or numeric text; undefined otherwise. */
export function integerOf(value: unknown): number | undefined {
	const number = numberOf(value);
	return Number.isInteger(number) ? number : undefined;
}

/*
 * Quoting what a user typed in a message: at most a short prefix, so a 100 kB value gives a
 * short message, not a 100 kB one.
 */
/** Characters of a value quoted in a message before it is cut. */
export const QUOTE_MAX = 80;

/** `text` as typed when short, else its first `max` characters (no half character) and "…". */
export function quotePrefix(text: string, max = QUOTE_MAX): string {
	if (text.length <= max) return text;
	const last = text.charCodeAt(max - 1);
	const cut = last >= 0xd800 && last <= 0xdbff ? max - 1 : max;
	return `${text.slice(0, cut)}…`;
}
