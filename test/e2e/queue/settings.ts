// Settings of the queue-mode run (`npm run test:queue`): the processes, burst sizes, the
// sandbox's limits, the spec the bursts are held to, and the environment switches (see
// test/e2e/README.md).

import path from 'node:path';
import { REPO } from '../comms.ts';

export const RESULTS_FILE = path.join(REPO, 'bench', 'results.json');
export const TIMEOUT_MS = Number(process.env.QUEUE_TIMEOUT_MS) || 20 * 60 * 1000;
/** n8n worker processes, and each one's --concurrency. */
export const WORKERS = 4;
export const WORKER_CONCURRENCY = 5;
/** n8n webhook processes (a load balancer would spread the provider's deliveries over them). */
export const WEBHOOK_PROCESSES = 2;
/** Scenario 1: executions of SMS to many recipients (one per worker) and to one recipient, and their sizes. */
export const MANY_EXECUTIONS = WORKERS;
export const MANY_ITEMS = Number(process.env.QUEUE_MANY_ITEMS) || 300;
export const ONE_EXECUTIONS = 2;
export const ONE_ITEMS = Number(process.env.QUEUE_ONE_ITEMS) || 300;
export const UNIFIED_ITEMS = Number(process.env.QUEUE_UNIFIED_ITEMS) || 100;
/** Scenario 5: the execution a worker dies in, and after how many accepted SMS it is killed. */
export const KILL_ITEMS = 300;
export const KILL_AFTER = 80;
export const RUN_SMS = process.env.QUEUE_SMS !== '0';
/**
 * n8n's durable scheduler with durable poll cursors (rig/n8n-environment.ts, DURABLE_POLL_ENV), as
 * n8n recommends for production: the run's poll path unless QUEUE_DURABLE_CURSORS=0 (n8n's
 * default path, which test:e2e and test:versions run in regular mode).
 */
export const DURABLE_CURSORS = process.env.QUEUE_DURABLE_CURSORS !== '0';
export const TEST_NUMBER = '+447700900123';

export const ACCOUNT_LIMIT = 600;
export const UNIFIED_SMS_LIMIT = 100;
export const WINDOW_SECONDS = 60;
export const LATENCY_MS = 20;

export const SPEC = { maxTimeRatio: 1.1, max429Share: 0.05 };

/** Adds `message` to `problems` unless `condition` holds (a queue scenario reports every problem). */
export function expect(problems: string[], condition: unknown, message: string): void {
	if (!condition) problems.push(message);
}

export function round(value: number, digits = 2): number {
	return Number.isFinite(value) ? Number(value.toFixed(digits)) : value;
}
