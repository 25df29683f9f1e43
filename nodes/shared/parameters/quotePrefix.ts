/**
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
