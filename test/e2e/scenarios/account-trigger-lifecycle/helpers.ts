// The pieces of the Comms Account Trigger lifecycle scenario (index.ts): the two poll paths'
// settings, one workflow per event, an n8n of its own, and the sandbox's view of the polls.

import crypto from 'node:crypto';
import { expect, type CommsSandbox } from '../../comms.ts';
import { collectNode } from '../../rig/collector.ts';
import type { N8nInstall } from '../../rig/n8n-install.ts';
import { log } from '../../rig/proc.ts';
import { startLogged, waitReady } from '../../rig/logged-process.ts';
import type { CredentialRef, Json, Workflow, WorkflowNode } from '../../rig/types.ts';

const TRIGGER_TYPE = 'n8n-nodes-comms-api.commsAccountTrigger';
const START_TIMEOUT_MS = Number(process.env.E2E_N8N_START_TIMEOUT_MS) || 3 * 60 * 1000;
export const CUSTOMER = '+447700900123';
export const BUSY = '+447700900201';

export type PathName = 'default' | 'durable';
export type AccountEvent = 'smsReceived' | 'callEnded' | 'smsDelivered';

export const PATHS: Record<PathName, NodeJS.ProcessEnv> = {
	default: {},
	durable: {
		N8N_SCHEDULER_ENABLED: 'true',
		N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
		N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
		N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
	},
};

export function eventWorkflow(
	pathName: PathName,
	event: AccountEvent,
	credential: CredentialRef,
	collectorUrl: string,
): Workflow {
	const name = `Account Trigger ${event} (${pathName})`;
	const trigger: WorkflowNode = {
		id: crypto.randomUUID(),
		name: 'On event',
		type: TRIGGER_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {
			pollTimes: { item: [{ mode: 'everyMinute' }] },
			event,
			...(event === 'callEnded' ? { callMode: 'manual' } : {}),
			// By ID, left empty: every number (the mode whose empty value once failed every run).
			phoneDocId: { __rl: true, mode: 'id', value: '' },
			options: {},
		},
		credentials: { commsAccountApi: credential },
	};
	const collect = { ...collectNode('Collect', collectorUrl, `/lc-${pathName}-${event}`, [260, 0]) };
	collect.id = crypto.randomUUID();
	return {
		name,
		nodes: [trigger, collect],
		connections: { 'On event': { main: [[{ node: 'Collect', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

export async function startOwnN8n(n8n: N8nInstall, env: NodeJS.ProcessEnv, label: string) {
	const proc = startLogged(label, n8n.node, [n8n.n8nBin, 'start'], {
		env,
		cwd: env.N8N_USER_FOLDER,
		echo: process.env.E2E_VERBOSE === '1',
	});
	const url = `http://127.0.0.1:${env.N8N_PORT}`;
	const seconds = await waitReady(proc, `${url}/healthz/readiness`, START_TIMEOUT_MS);
	log(`  ${label}: serving after ${seconds.toFixed(1)}s`);
	return { proc, url };
}

export async function accountPost(
	sandbox: CommsSandbox,
	apiPath: string,
	body: unknown,
): Promise<Json> {
	const response = await fetch(`${sandbox.accountBaseUrl}${apiPath}`, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			authorization: `Bearer ${sandbox.credentials.account.unrestricted}`,
		},
		body: JSON.stringify(body),
	});
	const json: Json = await response.json();
	expect(
		response.status === 201,
		`${apiPath} answered ${response.status}: ${JSON.stringify(json)}`,
	);
	return json;
}

/** Polls of one event's endpoint the sandbox has answered so far. */
export function polls(sandbox: CommsSandbox, event: AccountEvent): number {
	return sandbox.requests().filter((r) => {
		if (r.method !== 'GET') return false;
		if (event === 'callEnded') return r.path === '/v1/calls';
		return (
			r.path === '/v1/sms' && r.query?.direction === (event === 'smsReceived' ? 'received' : 'sent')
		);
	}).length;
}
