// The nodes the real-n8n benchmarks run, as workflow JSON: our send nodes, n8n's HTTP Request
// node doing the same send, and the webhook triggers (ours, n8n's Webhook node), each followed
// by a no-op for the webhook timings.

import crypto from 'node:crypto';
import type { Sandbox } from '../../sandbox/index.ts';
import type { CredentialRef, Workflow, WorkflowNode } from '../../test/e2e/rig/types.ts';

export const HTTP_REQUEST_VERSION = 4.2;

const ACCOUNT = 'n8n-nodes-comms-api.commsAccount';
const UNIFIED = 'n8n-nodes-comms-api.commsUnified';

/** The node a burst workflow sends its items through. */
export type SendNode = Pick<WorkflowNode, 'type' | 'typeVersion' | 'parameters' | 'credentials'>;

/** A trigger node, placed by the workflow it starts. */
export type TriggerNode = Pick<
	WorkflowNode,
	'id' | 'name' | 'type' | 'typeVersion' | 'parameters' | 'credentials' | 'webhookId'
>;

export type UnifiedService = 'sms' | 'voice' | 'email' | 'ai';

/** Comms Account, SMS, Send from the sandbox's main number to each item's `to`. */
export function sendAccountNode(
	sandbox: Sandbox,
	credential: CredentialRef,
	options: Record<string, number> = {},
): SendNode {
	return {
		type: ACCOUNT,
		typeVersion: 1,
		parameters: {
			resource: 'sms',
			operation: 'send',
			phoneDocId: { __rl: true, mode: 'id', value: sandbox.numbers.main },
			to: '={{ $json.to }}',
			message: '={{ $json.text }}',
			options,
		},
		credentials: { commsAccountApi: credential },
	};
}

/** n8n's HTTP Request node doing the same send, with a Header Auth credential (X-API-Key). */
export function httpRequestNode(
	sandbox: Sandbox,
	credential: CredentialRef,
	batching?: { batchSize: number; batchInterval: number },
): SendNode {
	return {
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: HTTP_REQUEST_VERSION,
		parameters: {
			method: 'POST',
			url: `${sandbox.accountBaseUrl}/v1/sms`,
			authentication: 'genericCredentialType',
			genericAuthType: 'httpHeaderAuth',
			sendBody: true,
			specifyBody: 'keypair',
			bodyParameters: {
				parameters: [
					{ name: 'phoneDocId', value: sandbox.numbers.main },
					{ name: 'to', value: '={{ $json.to }}' },
					{ name: 'message', value: '={{ $json.text }}' },
				],
			},
			options: batching ? { batching: { batch: batching } } : {},
		},
		credentials: { httpHeaderAuth: credential },
	};
}

/** What Comms Unified does with each item, per service. */
const UNIFIED_PARAMETERS: Record<UnifiedService, WorkflowNode['parameters']> = {
	sms: {
		resource: 'sms',
		operation: 'send',
		to: '={{ $json.to }}',
		message: '={{ $json.text }}',
	},
	voice: {
		resource: 'voice',
		operation: 'makeCall',
		to: '={{ $json.to }}',
		message: '={{ $json.text }}',
	},
	email: {
		resource: 'email',
		operation: 'send',
		to: '={{ "bench" + $itemIndex + "@example.com" }}',
		subject: '={{ $json.text }}',
		html: '<p>Benchmark</p>',
	},
	ai: {
		resource: 'ai',
		operation: 'chat',
		messages: { values: [{ role: 'user', content: '={{ $json.text }}' }] },
	},
};

/** Comms Unified on one service, one request per item. */
export function unifiedNode(service: UnifiedService, credential: CredentialRef): SendNode {
	return {
		type: UNIFIED,
		typeVersion: 1,
		parameters: { ...UNIFIED_PARAMETERS[service], options: {} },
		credentials: { commsUnifiedApi: credential },
	};
}

/** The Comms Unified Trigger on two events, with the Unified credential (its webhook secret). */
export function unifiedTriggerNode(credential: CredentialRef): TriggerNode {
	return {
		id: crypto.randomUUID(),
		name: 'On event',
		type: 'n8n-nodes-comms-api.commsUnifiedTrigger',
		typeVersion: 1,
		webhookId: crypto.randomUUID(),
		parameters: { events: ['call.completed', 'sms.delivered'], options: {} },
		credentials: { commsUnifiedApi: credential },
	};
}

/** n8n's Webhook node on POST /webhook/`path`, answering at once; with Header Auth if given. */
export function webhookNode(path: string, headerAuth?: CredentialRef): TriggerNode {
	return {
		id: crypto.randomUUID(),
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: crypto.randomUUID(),
		parameters: {
			httpMethod: 'POST',
			path,
			...(headerAuth ? { authentication: 'headerAuth' } : {}),
			responseMode: 'onReceived',
			options: {},
		},
		...(headerAuth ? { credentials: { httpHeaderAuth: headerAuth } } : {}),
	};
}

/** `trigger` -> a No Operation node, for the time from a webhook request to the execution's start. */
export function triggerWorkflow(name: string, trigger: TriggerNode): Workflow {
	return {
		name,
		nodes: [
			{ position: [0, 0], ...trigger },
			{
				id: crypto.randomUUID(),
				name: 'Done',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [220, 0],
				parameters: {},
			},
		],
		connections: { [trigger.name]: { main: [[{ node: 'Done', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
		active: false,
	};
}
