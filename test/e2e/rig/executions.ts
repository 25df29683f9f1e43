// Running workflows in a real n8n that is up (`n8n start`) and reading their executions back, for
// the queue-mode run and the benchmarks: a webhook-started burst workflow, and the owner's REST
// view of executions with their run data.

import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { N8nInstall } from './n8n-install.ts';
import { ownerSession, waitFor, type OwnerSession } from './n8n-server.ts';
import type { Json, Workflow, WorkflowNode } from './types.ts';

const require = createRequire(import.meta.url);

/** Webhook (POST /webhook/<path>) -> Code (body.count items: text "<tag> #i", to) -> send node. */
export function burstWorkflow(
	name: string,
	webhookPath: string,
	sendNode: Pick<WorkflowNode, 'type' | 'typeVersion' | 'parameters' | 'credentials'>,
): Workflow {
	const code = [
		'const { tag, count } = $input.first().json.body;',
		// 100 recipients in Ofcom's drama range (+44 7700 900300..399), for nodes that send to $json.to.
		'return Array.from({ length: count }, (_, i) => ({',
		"	json: { text: `${tag} #${i}`, to: '+447700900' + (300 + (i % 100)) },",
		'}));',
	].join('\n');
	return {
		name,
		nodes: [
			{
				id: crypto.randomUUID(),
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: crypto.randomUUID(),
				parameters: {
					httpMethod: 'POST',
					path: webhookPath,
					responseMode: 'onReceived',
					options: {},
				},
			},
			{
				id: crypto.randomUUID(),
				name: 'Make items',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: { jsCode: code },
			},
			{ id: crypto.randomUUID(), position: [440, 0], name: 'Send SMS', ...sendNode },
		],
		connections: {
			Webhook: { main: [[{ node: 'Make items', type: 'main', index: 0 }]] },
			'Make items': { main: [[{ node: 'Send SMS', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
		active: false,
	};
}

/** An execution as n8n's REST API lists it. */
export interface ExecutionSummary {
	id: string;
	workflowId: string;
	status: string;
	startedAt: string;
	stoppedAt: string;
	mode: string;
	[key: string]: Json;
}

export interface ExecutionReader {
	reset(): void;
	list(): Promise<ExecutionSummary[]>;
	get(id: string): Promise<ExecutionSummary & { data: Json }>;
}

export function executionReader(n8n: N8nInstall, mainUrl: () => string): ExecutionReader {
	const flatted = require(path.join(n8n.dir, 'node_modules', 'flatted')) as {
		parse(text: string): Json;
	};
	let session = null as OwnerSession | null;
	const sessionFor = async () => (session ??= await ownerSession(mainUrl()));
	return {
		reset() {
			session = null;
		},
		/** Every execution (newest first): { id, workflowId, status, startedAt, stoppedAt, mode }. */
		async list() {
			const data = await (await sessionFor()).get('/rest/executions?limit=100');
			return data.results || data;
		},
		/** One execution with its run data parsed. */
		async get(id: string) {
			const execution = await (await sessionFor()).get(`/rest/executions/${id}`);
			const runData =
				typeof execution.data === 'string' ? flatted.parse(execution.data) : execution.data;
			return { ...execution, data: runData };
		},
	};
}

export const FINISHED = new Set(['success', 'error', 'crashed', 'canceled']);

/** Waits until `count` executions of workflowId have finished; resolves to them (oldest first). */
export async function finishedExecutions(
	reader: ExecutionReader,
	workflowId: string,
	count: number,
	timeoutMs: number,
): Promise<ExecutionSummary[]> {
	return waitFor(
		`${count} finished execution(s) of workflow ${workflowId}`,
		async () => {
			const list = (await reader.list().catch((): ExecutionSummary[] => [])).filter(
				(e) => e.workflowId === workflowId,
			);
			const done = list.filter((e) => FINISHED.has(e.status));
			return done.length >= count ? done.sort((a, b) => Number(a.id) - Number(b.id)) : null;
		},
		{ timeoutMs, intervalMs: 2000 },
	);
}

function round(value: number, digits = 2): number {
	return Number.isFinite(value) ? Number(value.toFixed(digits)) : value;
}

/**
 * Sends of one burst scenario: the log entries `match` picks; `textOf` reads the SMS text.
 * Least time with a sliding window: the first `limit` at once, each further `limit` a window on.
 */
/** A request the sandbox logged: its answer's status and when it came. */
export interface LoggedRequest {
	status: number;
	time: string;
	[key: string]: Json;
}

export interface BurstOptions {
	textOf: (entry: LoggedRequest) => string;
	limit: number;
	windowSeconds: number;
	items: number;
}

export function burstFigures(
	entries: LoggedRequest[],
	{ textOf, limit, windowSeconds, items }: BurstOptions,
) {
	const accepted = entries.filter((e) => e.status >= 200 && e.status < 300);
	const tooMany = entries.filter((e) => e.status === 429);
	const other = entries.filter((e) => !(e.status >= 200 && e.status < 300) && e.status !== 429);
	const seen = new Map<string, number>();
	for (const entry of accepted) {
		const text = textOf(entry);
		seen.set(text, (seen.get(text) || 0) + 1);
	}
	const duplicates = [...seen.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
	const times = entries.map((e) => Date.parse(e.time));
	const acceptedTimes = accepted.map((e) => Date.parse(e.time));
	const first = times.length ? Math.min(...times) : NaN;
	const lastAccepted = acceptedTimes.length ? Math.max(...acceptedTimes) : NaN;
	const seconds = (lastAccepted - first) / 1000;
	const least = (Math.ceil(items / limit) - 1) * windowSeconds;
	const sortedAccepted = [...acceptedTimes].sort((a, b) => a - b);
	const firstWindowSeconds = sortedAccepted.length
		? (sortedAccepted[Math.min(limit, sortedAccepted.length) - 1] - first) / 1000
		: NaN;
	// How the sends spread over time: accepted per 10 s from the first request, and when each
	// 429 came (seconds from the first request), for whoever tunes the limiter.
	const acceptedPer10s: number[] = [];
	for (const t of acceptedTimes) {
		const bucket = Math.floor((t - first) / 10000);
		while (acceptedPer10s.length <= bucket) acceptedPer10s.push(0);
		acceptedPer10s[bucket] += 1;
	}
	return {
		requests: entries.length,
		accepted: accepted.length,
		distinctAccepted: seen.size,
		duplicates,
		received429: tooMany.length,
		otherErrors: other.length,
		share429OfSends: round(tooMany.length / Math.max(1, accepted.length), 4),
		firstToLastAcceptedSeconds: round(seconds, 1),
		leastSeconds: least,
		timeRatio: least > 0 ? round(seconds / least, 3) : null,
		// The least again, at the pace these processes could send: the sliding window lets the
		// second window's sends go only as the first window's leave it, so the last window can go
		// no faster than the first went out (the first `limit` accepted, from the first request).
		firstWindowSeconds: round(firstWindowSeconds, 1),
		leastAtOwnPaceSeconds: round(least + firstWindowSeconds, 1),
		timeRatioAtOwnPace: least > 0 ? round(seconds / (least + firstWindowSeconds), 3) : null,
		acceptedPer10s,
		secondsOf429s: tooMany.map((e) => round((Date.parse(e.time) - first) / 1000, 1)),
	};
}
