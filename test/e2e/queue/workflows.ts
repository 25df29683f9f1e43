// The queue run's credentials and workflows: the bursts (Webhook -> Code -> send node), the
// execution a worker dies in, the Comms Unified Trigger (once alone, once with n8n's own nodes
// dropping a copy by its eventId: dedupe-recipe.ts), the Comms Account Trigger, each trigger ending
// in a POST to the collector, and the Spending Cap across a Wait (../cap-across-wait.ts).

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
import type { Redis } from '../rig/queue-processes.ts';
import type { Credential, CredentialRef, Workflow } from '../rig/types.ts';
import { dedupeRecipeWorkflow } from './dedupe-recipe.ts';

/** Webhook paths and collector paths. */
export const HOOKS = {
	many: 'queue-many',
	one: 'queue-one',
	unified: 'queue-unified',
	killed: 'queue-killed',
	capWait: 'queue-cap-wait',
};
export const CAP_WAIT_COLLECT = '/queue-cap-wait';

export type QueueCredentials = Record<
	'account' | 'trigger' | 'unified' | 'unifiedLive' | 'redis',
	Credential
>;

export function credentialsFor(sandbox: CommsSandbox, redis: Redis): QueueCredentials {
	return {
		account: { id: n8nId(), ...accountCredential(sandbox, 'Comms Account (queue)') },
		// The SMS trigger polls, and the execution whose worker is killed sends, with another key
		// (the sandbox's restricted key, which may use the main number): the Account limit is per
		// key, and requests on the bursts' key would take part of its 600 a minute and move the
		// least time the run measures against.
		trigger: {
			id: n8nId(),
			...accountCredential(sandbox, 'Comms Account (queue, trigger)', 'restricted'),
		},
		unified: { id: n8nId(), ...unifiedCredential(sandbox, 'Comms Unified (queue)') },
		// Scenario 6's Spending Cap counts only what costs: the live key.
		unifiedLive: { id: n8nId(), ...liveUnifiedCredential(sandbox, 'Comms Unified (queue, live)') },
		// n8n's own Redis node, for the recipe that drops a copy of an event (the queue's Redis).
		redis: {
			id: n8nId(),
			name: 'Redis (queue)',
			type: 'redis',
			data: { host: redis.host, port: redis.port, database: 0, password: '' },
		},
	};
}

/** The live suite's trigger workflow, imported here unpublished (the run publishes it itself). */
function triggerWorkflow(...args: Parameters<typeof liveTriggerWorkflow>): Workflow {
	const { publish: _publish, ...workflow } = liveTriggerWorkflow(...args);
	return { ...workflow, active: false };
}

function accountSend(
	account: CredentialRef,
	sandbox: CommsSandbox,
	to: string,
	options: Record<string, number>,
) {
	return {
		type: 'n8n-nodes-comms-api.commsAccount',
		typeVersion: 1,
		parameters: {
			resource: 'sms',
			operation: 'send',
			phoneDocId: { __rl: true, mode: 'id', value: sandbox.numbers.main },
			to,
			message: '={{ $json.text }}',
			options,
		},
		credentials: { commsAccountApi: account },
	};
}

function unifiedTrigger(unified: CredentialRef, webhookId: string) {
	return {
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
	};
}

export type QueueWorkflows = Record<
	| 'many'
	| 'one'
	| 'unified'
	| 'killed'
	| 'webhookTrigger'
	| 'twoWebhookProcesses'
	| 'smsTrigger'
	| 'capAcrossWait',
	Workflow
>;

export function workflowsFor(sandbox: CommsSandbox, creds: QueueCredentials): QueueWorkflows {
	const ref = (credential: Credential): CredentialRef => ({
		id: credential.id,
		name: credential.name,
	});
	const account = ref(creds.account);
	const unified = ref(creds.unified);
	const webhookId = crypto.randomUUID();
	const multiWebhookId = crypto.randomUUID();
	// Scenario 1 measures pacing across workers: its texts are all different, so Skip If Sent
	// Within could skip nothing, and it is turned off there so that its history reads (one per
	// execution, or one per recipient when other executions of the same number have already sent
	// more than a page) do not share the key's limit with the sends it measures. Scenario 5 runs
	// with the defaults and counts what they cost.
	const off = { skipIfSentWithinMinutes: 0 };
	return {
		many: burstWorkflow(
			'Queue: Account SMS to many recipients',
			HOOKS.many,
			accountSend(account, sandbox, '={{ $json.to }}', off),
		),
		one: burstWorkflow(
			'Queue: Account SMS to one recipient',
			HOOKS.one,
			accountSend(account, sandbox, TEST_NUMBER, off),
		),
		unified: burstWorkflow('Queue: Unified SMS burst', HOOKS.unified, {
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
		// Scenario 5: every setting at its default, as a user leaves it. On the second key: it runs
		// beside the bursts, whose key's limit it must not share.
		killed: burstWorkflow(
			'Queue: 300 SMS, the worker killed',
			HOOKS.killed,
			accountSend(ref(creds.trigger), sandbox, '={{ $json.to }}', {}),
		),
		webhookTrigger: Object.assign(
			triggerWorkflow(
				'Queue: Unified webhook trigger',
				unifiedTrigger(unified, webhookId),
				sandbox.collector.url,
				'/events',
			),
			{ webhookId },
		),
		twoWebhookProcesses: Object.assign(
			dedupeRecipeWorkflow(
				'Queue: Unified trigger on two webhook processes',
				unifiedTrigger(unified, multiWebhookId),
				ref(creds.redis),
				sandbox.collector.url,
			),
			{ webhookId: multiWebhookId },
		),
		capAcrossWait: capAcrossWaitWorkflow(
			'Queue: Spending Cap across a Wait',
			HOOKS.capWait,
			ref(creds.unifiedLive),
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
				credentials: { commsAccountApi: ref(creds.trigger) },
			},
			sandbox.collector.url,
			'/sms',
		),
	};
}
