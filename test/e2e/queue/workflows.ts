// The queue run's credentials and workflows: the two bursts (Webhook -> Code -> send node), the
// Comms Unified Trigger and the Comms Account Trigger, each trigger ending in a POST to the
// collector, and the Spending Cap across a Wait (../cap-across-wait.ts).

import crypto from 'node:crypto';
import {
	accountCredential,
	TEST_NUMBER,
	triggerWorkflow as liveTriggerWorkflow,
	unifiedCredential,
	type CommsSandbox,
} from '../comms.ts';
import { capAcrossWaitWorkflow, liveUnifiedCredential } from '../cap-across-wait.ts';
import { burstWorkflow } from '../rig/executions.ts';
import { n8nId } from '../rig/n8n-import.ts';
import type { Credential, CredentialRef, Workflow } from '../rig/types.ts';

/** Scenario 5's webhook path and collector path. */
export const CAP_WAIT_HOOK = 'queue-cap-wait';
export const CAP_WAIT_COLLECT = '/queue-cap-wait';

export type QueueCredentials = Record<
	'account' | 'trigger' | 'unified' | 'unifiedLive',
	Credential
>;

export function credentialsFor(sandbox: CommsSandbox): QueueCredentials {
	return {
		account: { id: n8nId(), ...accountCredential(sandbox, 'Comms Account (queue)') },
		// The SMS trigger polls with another key (the sandbox's restricted key, which may read
		// the main number): the Account limit is per key, and polls on the burst's key would
		// take part of its 600 a minute and move the least time the run measures against.
		trigger: {
			id: n8nId(),
			...accountCredential(sandbox, 'Comms Account (queue, trigger)', 'restricted'),
		},
		unified: { id: n8nId(), ...unifiedCredential(sandbox, 'Comms Unified (queue)') },
		// Scenario 5's Spending Cap counts only what costs: the live key.
		unifiedLive: { id: n8nId(), ...liveUnifiedCredential(sandbox, 'Comms Unified (queue, live)') },
	};
}

/** The live suite's trigger workflow, imported here unpublished (the run publishes it itself). */
function triggerWorkflow(...args: Parameters<typeof liveTriggerWorkflow>): Workflow {
	const { publish: _publish, ...workflow } = liveTriggerWorkflow(...args);
	return { ...workflow, active: false };
}

export type QueueWorkflows = Record<
	'account' | 'unified' | 'webhookTrigger' | 'smsTrigger' | 'capAcrossWait',
	Workflow
>;

export function workflowsFor(
	sandbox: CommsSandbox,
	creds: Record<'account' | 'unified' | 'trigger' | 'unifiedLive', CredentialRef>,
): QueueWorkflows {
	const account = { id: creds.account.id, name: creds.account.name };
	const unified = { id: creds.unified.id, name: creds.unified.name };
	const webhookId = crypto.randomUUID();
	return {
		account: burstWorkflow('Queue: Account SMS burst', 'queue-account', {
			type: 'n8n-nodes-comms-api.commsAccount',
			typeVersion: 1,
			parameters: {
				resource: 'sms',
				operation: 'send',
				phoneDocId: { __rl: true, mode: 'id', value: sandbox.numbers.main },
				to: TEST_NUMBER,
				message: '={{ $json.text }}',
				options: {},
			},
			credentials: { commsAccountApi: account },
		}),
		unified: burstWorkflow('Queue: Unified SMS burst', 'queue-unified', {
			type: 'n8n-nodes-comms-api.commsUnified',
			typeVersion: 1,
			parameters: {
				resource: 'sms',
				operation: 'send',
				to: TEST_NUMBER,
				message: '={{ $json.text }}',
				options: {},
			},
			credentials: { commsUnifiedApi: unified },
		}),
		webhookTrigger: Object.assign(
			triggerWorkflow(
				'Queue: Unified webhook trigger',
				{
					id: crypto.randomUUID(),
					name: 'On event',
					type: 'n8n-nodes-comms-api.commsUnifiedTrigger',
					typeVersion: 1,
					webhookId,
					parameters: {
						events: ['call.completed', 'sms.delivered'],
						options: { replayWindowSeconds: 3600 },
					},
					credentials: { commsUnifiedApi: unified },
				},
				sandbox.collector.url,
				'/events',
			),
			{ webhookId },
		),
		capAcrossWait: capAcrossWaitWorkflow(
			'Queue: Spending Cap across a Wait',
			CAP_WAIT_HOOK,
			{ id: creds.unifiedLive.id, name: creds.unifiedLive.name },
			sandbox.collector.url,
			CAP_WAIT_COLLECT,
		),
		smsTrigger: triggerWorkflow(
			'Queue: Account SMS trigger',
			{
				id: crypto.randomUUID(),
				name: 'On SMS',
				type: 'n8n-nodes-comms-api.commsAccountTrigger',
				typeVersion: 1,
				parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, options: {} },
				credentials: { commsAccountApi: { id: creds.trigger.id, name: creds.trigger.name } },
			},
			sandbox.collector.url,
			'/sms',
		),
	};
}
