/**
 * Replays one fast-check counterexample: `FC_SEED=<seed> FC_PATH=<path> npm test -- <file>`
 * runs every property of the file from that seed and path (fast-check prints both on a failure).
 */
import type { Parameters } from 'fast-check';

export function replay<T>(numRuns: number): Parameters<T> {
	const seed = process.env.FC_SEED;
	if (seed === undefined) return { numRuns };
	return { numRuns, seed: Number(seed), path: process.env.FC_PATH, endOnFailure: true, verbose: 2 };
}
