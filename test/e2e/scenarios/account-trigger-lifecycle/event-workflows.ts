// The Comms Account Trigger lifecycle scenario's workflows (index.ts): one per event, each posting
// what its trigger emits to the collector, published into a running n8n over its REST API.

import crypto from 'node:crypto';
import { ACCOUNT_CREDENTIAL_TYPE, SMS_TRIGGER_TYPE, type CommsSandbox } from '../../comms.ts';
import { collectNode } from '../../rig/collector.ts';
import { activateOverRest } from '../../rig/n8n-import.ts';
import type { OwnerSession } from '../../rig/n8n-server.ts';
import type { CredentialRef, Workflow, WorkflowNode } from '../../rig/types.ts';
import type { PathName } from './poll-paths.ts';

export type AccountEvent = 'smsReceived' | 'callEnded' | 'smsDelivered';
export const EVENTS: AccountEvent[] = ['smsReceived', 'callEnded', 'smsDelivered'];

function eventWorkflow(
	pathName: PathName,
	event: AccountEvent,
	credential: CredentialRef,
	collectorUrl: string,
): Workflow {
	const name = `Account Trigger ${event} (${pathName})`;
	const trigger: WorkflowNode = {
		id: crypto.randomUUID(),
		name: 'On event',
		type: SMS_TRIGGER_TYPE,
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
	const collect = {
		...collectNode('Collect', collectorUrl, collectorPath(pathName, event), [260, 0]),
	};
	collect.id = crypto.randomUUID();
	return {
		name,
		nodes: [trigger, collect],
		connections: { 'On event': { main: [[{ node: 'Collect', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

/** The collector path each event's workflow posts to. */
export function collectorPath(pathName: PathName, event: AccountEvent): string {
	return `/lc-${pathName}-${event}`;
}

/** A Comms Account credential and one workflow per event, created and activated over REST. */
export async function publishEventWorkflows(
	session: OwnerSession,
	sandbox: CommsSandbox,
	pathName: PathName,
): Promise<void> {
	const credential = await session.post('/rest/credentials', {
		name: `Comms Account (${pathName})`,
		type: ACCOUNT_CREDENTIAL_TYPE,
		data: { apiKey: sandbox.credentials.account.unrestricted, baseUrl: sandbox.accountBaseUrl },
	});
	for (const event of EVENTS) {
		await activateOverRest(
			session,
			eventWorkflow(
				pathName,
				event,
				{ id: credential.id, name: credential.name },
				sandbox.collector.url,
			),
		);
	}
}
