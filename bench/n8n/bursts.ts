// Burst workflows in the real n8n: one started through its webhook and read back (the send
// node's own time, its items, its error), and its figures beside the least time the server's
// limit allows, counted from the sandbox's request log.

import type { Sandbox } from '../../sandbox/index.ts';
import {
	burstFigures,
	finishedExecutions,
	type LoggedRequest,
} from '../../test/e2e/rig/executions.ts';
import type { UnifiedService } from './nodes.ts';
import type { BenchN8n } from './server.ts';

/** The parts of a node's run in n8n's run data that a burst's figures read. */
interface NodeRun {
	startTime?: number;
	executionTime?: number;
	error?: { message?: string };
	data?: { main?: { json?: { error?: unknown } }[][] };
}

export interface BurstResult {
	status: string;
	/** When the send node started (epoch ms), as n8n's run data says. */
	nodeStart: number | null;
	nodeMs: number | null;
	itemsOut: number;
	itemErrors: number;
	nodeError: string | null;
}

/** A server's limit, as the figures count 429s and state it. */
export interface Limit {
	perWindow: number;
	describe: string;
}

export const median = (values: number[]): number => {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : NaN;
};

export const round = (value: number, digits = 3): number | null =>
	Number.isFinite(value) ? +value.toFixed(digits) : null;

/** The least time `n` requests need: sliding window `perWindow` per `windowMs`. */
export function leastSliding(n: number, perWindow: number, windowMs: number): number {
	return Math.floor((n - 1) / perWindow) * windowMs;
}

/** The least time `n` requests need from a full token bucket of `capacity`, refilled at `perSecond`. */
export function leastBucket(n: number, capacity: number, perSecond: number): number {
	return Math.max(0, ((n - capacity) / perSecond) * 1000);
}

/** Starts one burst workflow through its webhook; resolves to the send node's figures. */
export async function runBurst(bench: BenchN8n, key: string, count: number): Promise<BurstResult> {
	const workflow = bench.workflows[key];
	const before = (await bench.reader.list()).filter((e) => e.workflowId === workflow.id).length;
	const response = await fetch(`${bench.url}/webhook/bench-${key}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ tag: key, count }),
	});
	if (!response.ok) throw new Error(`the ${key} webhook answered ${response.status}`);
	const done = await finishedExecutions(bench.reader, workflow.id, before + 1, 10 * 60 * 1000);
	const execution = await bench.reader.get(done[done.length - 1].id);
	const runs: NodeRun[] = execution.data?.resultData?.runData?.['Send SMS'] || [];
	const last = runs[runs.length - 1];
	const items = last?.data?.main?.[0] || [];
	return {
		status: execution.status,
		nodeStart: last?.startTime ?? null,
		nodeMs: last?.executionTime ?? null,
		itemsOut: items.filter((item) => item.json && item.json.error === undefined).length,
		itemErrors: items.filter((item) => item.json && item.json.error !== undefined).length,
		nodeError: last?.error?.message || execution.data?.resultData?.error?.message || null,
	};
}

export interface BulkOptions {
	items: number;
	leastMs: number;
	limit: Limit;
	textOf: (entry: LoggedRequest) => string;
}

/** Figures of a bulk run: the node's time over the least the server allows, and the log's count. */
export function bulkFigures(
	name: string,
	result: BurstResult,
	entries: LoggedRequest[],
	{ items, leastMs, limit, textOf }: BulkOptions,
) {
	const log = burstFigures(entries, { textOf, limit: limit.perWindow, windowSeconds: 60, items });
	return {
		scenario: name,
		items,
		server: limit.describe,
		nodeSeconds: round(Number(result.nodeMs) / 1000, 1),
		leastSeconds: leastMs / 1000,
		ratio: leastMs > 0 ? round(Number(result.nodeMs) / leastMs) : null,
		sent: log.accepted,
		itemsOut: result.itemsOut,
		failed: items - result.itemsOut,
		nodeError: result.nodeError,
		http429: log.received429,
		duplicates: log.duplicates,
		firstWindowSeconds: log.firstWindowSeconds,
	};
}

export type BulkFigures = ReturnType<typeof bulkFigures>;

/** The SMS sends the Account API of `sandbox` logged. */
export const accountPosts = (sandbox: Sandbox): LoggedRequest[] =>
	sandbox.requests().filter((r) => r.method === 'POST' && r.path === '/v1/sms');

/** The Unified requests to `service` that `sandbox` logged. */
export const unifiedPosts = (sandbox: Sandbox, service: UnifiedService): LoggedRequest[] =>
	sandbox
		.requests()
		.filter(
			(r) =>
				r.method === 'POST' &&
				r.api === 'unified' &&
				(r.body as { service?: string } | null)?.service === service,
		);

/** The text an Account SMS carried (for duplicates). */
export const accountText = (entry: LoggedRequest): string => entry.body?.message;

/** The text a Unified request carried (for duplicates): the message, subject or prompt. */
export function unifiedText(entry: LoggedRequest): string {
	const body = entry.body || {};
	const fields = { ...body, ...(body.params || {}), ...(body.data || {}) };
	return (
		fields.message ??
		fields.subject ??
		(Array.isArray(fields.messages) ? JSON.stringify(fields.messages) : JSON.stringify(body))
	);
}
