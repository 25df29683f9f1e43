/**
 * The one timeout every request is bounded by, whole. Its setter is for tests only: the package
 * test checks that nothing it runs reaches it, so `index.ts` re-exports this file with `export *`
 * (which names nothing) rather than by name.
 */
/**
 * How long one request may take, all of it: connecting, the answer's headers and its body.
 * (n8n's `timeout` is axios's, which after the headers only bounds how long the socket may sit
 * idle, so a server trickling its body could hold a request for ever.)
 */
let timeoutMs = 30_000;

/** How long one request may take, in milliseconds. */
export function requestTimeoutMs(): number {
	return timeoutMs;
}

/**
 * Changes the whole-request timeout; returns the previous one. For tests, which cannot wait
 * 30 s. The look-ups of a write whose outcome is unknown span the same time.
 */
export function setRequestTimeout(ms: number): number {
	const previous = timeoutMs;
	timeoutMs = ms;
	return previous;
}
