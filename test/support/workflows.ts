export { CREDENTIAL_REFS, START, singleNodeWorkflow } from '../../harness';

/** `n` input items with the given json. */
export function items(n: number, json: (i: number) => Record<string, unknown> = (i) => ({ i })) {
	return Array.from({ length: n }, (_, i) => ({ json: json(i) as never }));
}
