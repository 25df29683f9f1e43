/**
 * A model of several clients sharing one API key, each with its own RateLimiter (as n8n
 * workers in queue mode do), against a server that enforces limits of any shape (sliding or
 * fixed windows, token buckets, several at once, changing mid-run: rateServer.ts) and optionally
 * a cap on concurrent requests, in simulated time. Each client runs its items the
 * way the transport does: a place from the limiter, the request, the limiter told how it
 * ended, and on a 429 the retry decision of retry.ts (its wait, and the hold on the key).
 */
import type { Clock } from '../../nodes/shared/transport/serverClock';
import { RateLimiter, type RateLimit } from '../../nodes/shared/transport/pacing';
import { decideRetry } from '../../nodes/shared/transport/retry';
import { leastTimeMs, type Phase, ServerLimits, type Shape } from './rateServer';

interface Timer {
	at: number;
	fn: () => void;
	seq: number;
	off: boolean;
}

/** Simulated time: timers fire in order, and the promises they settle run before the next. */
export class SimClock implements Clock {
	private time = 0;
	private seq = 0;
	private readonly heap: Timer[] = [];

	now(): number {
		return this.time;
	}

	setTimer(fn: () => void, ms: number): () => void {
		const timer = { at: this.time + Math.max(0, ms), fn, seq: this.seq++, off: false };
		this.push(timer);
		return () => {
			timer.off = true;
		};
	}

	sleep(ms: number): Promise<void> {
		return new Promise((resolve) => this.setTimer(resolve, ms));
	}

	/** Runs every timer due up to `until`. */
	async runUntil(until: number): Promise<void> {
		for (;;) {
			await settle();
			while (this.heap.length && this.heap[0].off) this.pop();
			if (!this.heap.length || this.heap[0].at > until) {
				this.time = Math.max(this.time, until);
				return;
			}
			const timer = this.pop();
			this.time = Math.max(this.time, timer.at);
			timer.fn();
		}
	}

	private push(timer: Timer): void {
		const heap = this.heap;
		heap.push(timer);
		for (let i = heap.length - 1; i > 0;) {
			const parent = (i - 1) >> 1;
			if (!before(heap[i], heap[parent])) break;
			[heap[i], heap[parent]] = [heap[parent], heap[i]];
			i = parent;
		}
	}

	private pop(): Timer {
		const heap = this.heap;
		const top = heap[0];
		const last = heap.pop()!;
		if (heap.length) {
			heap[0] = last;
			for (let i = 0; ;) {
				const left = 2 * i + 1;
				const right = left + 1;
				let least = i;
				if (left < heap.length && before(heap[left], heap[least])) least = left;
				if (right < heap.length && before(heap[right], heap[least])) least = right;
				if (least === i) break;
				[heap[i], heap[least]] = [heap[least], heap[i]];
				i = least;
			}
		}
		return top;
	}
}

const before = (a: Timer, b: Timer) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

async function settle(): Promise<void> {
	for (let i = 0; i < 5; i++) await Promise.resolve();
	await new Promise((resolve) => setImmediate(resolve));
}

export interface ModelClient {
	items: number;
	/** When it starts, in ms of simulated time. */
	startMs?: number;
	/** Least ms between two of its requests: a process whose own work paces it (CPU-bound). */
	workMs?: number;
	/**
	 * CPU each request takes once granted, before it leaves, one request at a time per client
	 * (n8n building and sending it: about 2 ms on the bench's machine). Default none.
	 */
	sendCpuMs?: number;
	/** Requests it has in flight at most (a node run's lanes); default the limit's concurrency. */
	lanes?: number;
}

export interface ModelRun {
	/**
	 * The process each client runs in (index into the limiters; default its own): node runs in
	 * one n8n process share its limiter, as two executions on one worker do.
	 */
	processes?: number[];
	/** What every client's limiter is told (the documented limit). */
	limit: RateLimit;
	/**
	 * What the server enforces: a sliding window (`perWindow`, `windowMs`), or `phases` of
	 * shapes (rateServer.ts); and a cap on concurrent requests.
	 */
	server: { perWindow?: number; windowMs?: number; phases?: Phase[]; concurrency?: number };
	clients: ModelClient[];
	/** One-way latency is half of this, plus up to half of `jitterMs`, each way. */
	latencyMs: number;
	jitterMs?: number;
	/** Whether 429s carry Retry-After (the time until the server would accept again). */
	retryAfter?: boolean;
	seed?: number;
	horizonMs?: number;
	/** Limiters to run the clients with (as a process keeps its limiter between runs); default new ones. */
	limiters?: RateLimiter[];
}

export interface ModelResult {
	items: number;
	accepted: number;
	failed: number;
	refused: number;
	/** Requests that reached the server, refused ones included. */
	requests: number;
	/** From the first request the server accepted to the last. */
	ms: number;
	/** The least time the server's limits (and the documented one) allow from that first request. */
	leastMs: number;
	/** Whether every client finished before the horizon. */
	finished: boolean;
	limiters: RateLimiter[];
	/** Arrival time of every accepted request. */
	acceptedAt: number[];
	/** Arrival time of every refused request. */
	refusedAt: number[];
}

/** The phases of a run's server. */
export function phasesOf(server: ModelRun['server']): Phase[] {
	if (server.phases) return server.phases;
	return [
		{
			fromMs: 0,
			shapes: [{ kind: 'sliding', perWindow: server.perWindow!, windowMs: server.windowMs! }],
		},
	];
}

export async function runModel(run: ModelRun): Promise<ModelResult> {
	let state = run.seed ?? 1;
	const random = () => {
		state = (state * 48271) % 2147483647;
		return state / 2147483647;
	};
	const clock = new SimClock();
	const { server } = run;
	const phases = phasesOf(server);
	const limits = new ServerLimits(phases);
	const acceptedAt: number[] = [];
	const refusedAt: number[] = [];
	let serverInFlight = 0;
	let failed = 0;
	const oneWay = () => run.latencyMs / 2 + (random() * (run.jitterMs ?? 0)) / 2;

	const request = () =>
		new Promise<{ status: number; retryAfterMs?: number }>((resolve) => {
			clock.setTimer(() => {
				const at = clock.now();
				const ok =
					(server.concurrency === undefined || serverInFlight < server.concurrency) &&
					limits.admit(at);
				if (ok) {
					acceptedAt.push(at);
					serverInFlight++;
				} else refusedAt.push(at);
				const retryAfterMs =
					!ok && run.retryAfter
						? Math.max(1000, Math.ceil((limits.earliest(at) - at) / 1000) * 1000)
						: undefined;
				clock.setTimer(() => {
					if (ok) serverInFlight--;
					resolve({ status: ok ? 200 : 429, retryAfterMs });
				}, oneWay());
			}, oneWay());
		});

	const processOf = (k: number) => run.processes?.[k] ?? k;
	const limiters =
		run.limiters ??
		Array.from(
			{ length: Math.max(...run.clients.map((_, k) => processOf(k))) + 1 },
			() => new RateLimiter(run.limit, clock),
		);
	const clients = run.clients.map(async (client, k) => {
		const limiter = limiters[processOf(k)];
		await clock.sleep(client.startMs ?? 0);
		let next = 0;
		let busyUntil = 0;
		let cpuUntil = 0;
		const lane = async () => {
			while (next < client.items) {
				next++;
				if (client.workMs) {
					busyUntil = Math.max(clock.now(), busyUntil) + client.workMs;
					await clock.sleep(busyUntil - clock.now());
				}
				let firstRefusedAt: number | undefined;
				let retry = false;
				for (let attempt = 1; ; attempt++) {
					const release = await limiter.acquire(undefined, { retry });
					if (client.sendCpuMs) {
						cpuUntil = Math.max(clock.now(), cpuUntil) + client.sendCpuMs;
						await clock.sleep(cpuUntil - clock.now());
					}
					const answer = await request();
					release(
						answer.status !== 429
							? 'accepted'
							: answer.retryAfterMs === undefined
								? 'rateLimited'
								: 'deferred',
					);
					if (answer.status !== 429) break;
					retry = answer.retryAfterMs === undefined;
					if (retry) firstRefusedAt ??= clock.now();
					const decision = decideRetry(
						{
							kind: 'rateLimited',
							retryAfterMs: answer.retryAfterMs,
							waitedMs: clock.now() - (firstRefusedAt ?? clock.now()),
							keyQuietMs: limiter.msSinceAccepted(),
							windowMs: limiter.longestWindowMs,
						},
						attempt,
						{ idempotent: false, random },
					);
					if (decision.action !== 'retry') {
						failed++;
						break;
					}
					if (decision.holdKeyMs) limiter.pauseFor(decision.holdKeyMs);
					if (decision.delayMs) await clock.sleep(decision.delayMs);
				}
			}
		};
		const lanes = client.lanes ?? run.limit.concurrency;
		await Promise.all(Array.from({ length: lanes }, lane));
	});
	let finished = false;
	void Promise.all(clients).then(() => {
		finished = true;
	});
	const horizon = run.horizonMs ?? 60 * 60_000;
	while (!finished && clock.now() < horizon) await clock.runUntil(clock.now() + 1000);
	const items = run.clients.reduce((sum, client) => sum + client.items, 0);
	const first = acceptedAt.length ? Math.min(...acceptedAt) : 0;
	const doc: Shape = {
		kind: 'sliding',
		perWindow: run.limit.perWindow,
		windowMs: run.limit.windowMs,
	};
	return {
		items,
		accepted: acceptedAt.length,
		failed,
		refused: refusedAt.length,
		requests: acceptedAt.length + refusedAt.length,
		ms: acceptedAt.length ? Math.max(...acceptedAt) - first : 0,
		leastMs: leastTimeMs(phases, items, first, [doc]),
		finished,
		limiters,
		acceptedAt,
		refusedAt,
	};
}

/** The least time `count` requests need under a sliding window of `perWindow`. */
export function leastMs(count: number, perWindow: number, windowMs: number): number {
	return Math.floor((count - 1) / perWindow) * windowMs;
}

/**
 * The seed the pacing properties draw from, so that a run of the suite is the same run everywhere:
 * the pacing's figures are statistical, and a rare case it handles worse (listed in
 * docs/benchmarks.md) must not fail CI by lot. `PACING_SEED=<n>` draws others.
 */
export const PACING_SEED = Number(process.env.PACING_SEED ?? 20261127);
