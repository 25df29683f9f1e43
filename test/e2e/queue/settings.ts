// Settings of the queue-mode run (`npm run test:queue`): burst sizes, the sandbox's limits, the
// spec the bursts are held to, and the environment switches (see test/e2e/README.md).

import path from 'node:path';
import { REPO } from '../comms.ts';

export const RESULTS_FILE = path.join(REPO, 'bench', 'results.json');
export const TIMEOUT_MS = Number(process.env.QUEUE_TIMEOUT_MS) || 15 * 60 * 1000;
export const ACCOUNT_ITEMS = Number(process.env.QUEUE_ACCOUNT_ITEMS) || 600;
export const UNIFIED_ITEMS = Number(process.env.QUEUE_UNIFIED_ITEMS) || 100;
export const RUN_SMS = process.env.QUEUE_SMS !== '0';
/** n8n's durable poll cursors (rig/n8n-environment.ts, DURABLE_POLL_ENV). */
export const DURABLE_CURSORS = process.env.QUEUE_DURABLE_CURSORS === '1';
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
