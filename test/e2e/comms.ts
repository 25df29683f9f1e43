// What the Comms scenarios share: the package's node and credential types, the sandbox as the
// suite starts it (with a collector and a scripted chat model beside it), its credentials, and
// small helpers for workflows, request logs and POSTs.

import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import type { Sandbox } from '../../sandbox/index.ts';
import type { Collector } from './rig/collector.ts';
import { collectNode } from './rig/collector.ts';
import { E2eError } from './rig/proc.ts';
import type { ScriptedModel } from './rig/scripted-model.ts';
import type { CredentialInput, CredentialRef, Json, Workflow, WorkflowNode } from './rig/types.ts';

const require = createRequire(import.meta.url);

export const REPO = path.resolve(import.meta.dirname, '..', '..');
export const ACCOUNT_NODE_TYPE = 'n8n-nodes-comms-api.commsAccount';
export const ACCOUNT_CREDENTIAL_TYPE = 'commsAccountApi';
export const UNIFIED_NODE = 'n8n-nodes-comms-api.commsUnified';
/** An ordinary customer in the sandbox (TEST_NUMBERS.customer). */
export const TEST_NUMBER = '+447700900123';
export const SMS_TRIGGER_TYPE = 'n8n-nodes-comms-api.commsAccountTrigger';
export const UNIFIED_TRIGGER_TYPE = 'n8n-nodes-comms-api.commsUnifiedTrigger';
export const UNIFIED_EVENTS = [
	'call.completed',
	'call.failed',
	'sms.delivered',
	'sms.failed',
	'email.delivered',
	'email.bounced',
];

/** The sandbox with what the suite adds: the collector, the scripted model, the live hook id. */
export type CommsSandbox = Sandbox & {
	collector: Collector;
	model: ScriptedModel;
	liveWebhookId?: string;
};

/** The compiled sandbox (`npm run build`), typed by its source. */
export function loadSandbox(): typeof import('../../sandbox/index.ts') {
	const file = path.join(REPO, 'build', 'sandbox', 'index.js');
	if (!fs.existsSync(file) || !fs.existsSync(path.join(REPO, 'dist')))
		throw new E2eError('build/ and dist/ are missing: run `npm run build` first');
	return require(file);
}

/** A Comms Account credential on the sandbox (its unrestricted key unless `key` says). */
export function accountCredential(
	sandbox: Sandbox,
	name: string,
	key: 'unrestricted' | 'restricted' = 'unrestricted',
): CredentialInput {
	return {
		name,
		type: ACCOUNT_CREDENTIAL_TYPE,
		data: { apiKey: sandbox.credentials.account[key], baseUrl: sandbox.accountBaseUrl },
	};
}

/** A Comms Unified credential on the sandbox: its test key and its webhook secret. */
export function unifiedCredential(sandbox: Sandbox, name: string): CredentialInput {
	return {
		name,
		type: 'commsUnifiedApi',
		data: {
			apiKey: sandbox.credentials.unified.test,
			endpointUrl: sandbox.unifiedUrl,
			webhookSecret: sandbox.credentials.webhookSecret,
		},
	};
}

/** The server a scenario gets, as the Comms sandbox the suite started. */
export function sandboxOf(server: unknown): CommsSandbox {
	return server as CommsSandbox;
}

/**
 * Points every node's credential of a known type at the imported credential.
 * Nodes of `nodeTypes` that name no credential get one (an example exported
 * from a fresh n8n may carry none). Pinned data is dropped: a pinned node would
 * not call the API, and the point is that it does.
 */
export function attachCredentials(
	workflow: Workflow,
	credentialsByType: Record<string, CredentialRef>,
	nodeTypes: Record<string, string> = {},
): Workflow {
	const copy: Workflow = JSON.parse(JSON.stringify(workflow));
	delete copy.pinData;
	delete copy.id;
	copy.active = false;
	for (const node of copy.nodes || []) {
		const wanted = nodeTypes[node.type];
		if (wanted && !(node.credentials && node.credentials[wanted])) {
			node.credentials = { ...(node.credentials || {}), [wanted]: {} as CredentialRef };
		}
		for (const type of Object.keys(node.credentials || {})) {
			const credential = credentialsByType[type];
			if (!credential) {
				throw new E2eError(
					`node "${node.name}" uses a ${type} credential, which this e2e run does not import`,
				);
			}
			node.credentials![type] = { id: credential.id, name: credential.name };
		}
	}
	return copy;
}

/**
 * One entry of a request log, in a common shape: { method, path, status, error,
 * headers, keyMask }. Accepts the usual spellings (path/pathname/url,
 * status/statusCode) so the check does not depend on the log's exact field names.
 * The project's sandbox logs no headers, only the key it saw, masked
 * (`keyMask`: first 8 and last 4 characters).
 */
export function normaliseRequest(entry: Json) {
	const raw = entry.path ?? entry.pathname ?? entry.url ?? '';
	const pathOnly = String(raw)
		.replace(/^[a-z]+:\/\/[^/]+/i, '')
		.split('?')[0];
	const headers: Record<string, string> = {};
	for (const [key, value] of Object.entries(entry.headers || entry.request?.headers || {})) {
		headers[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
	}
	const status =
		entry.status ?? entry.statusCode ?? entry.response?.status ?? entry.response?.statusCode;
	return {
		method: String(entry.method || '').toUpperCase(),
		path: pathOnly,
		status,
		error: entry.error ?? null,
		headers,
		keyMask: typeof entry.keyMask === 'string' ? entry.keyMask : null,
	};
}

/** Throws with `message` unless `condition` holds. */
export function expect(condition: unknown, message: string, details?: string): asserts condition {
	if (!condition) throw new E2eError(message, details);
}

/** Trigger -> HTTP Request node that posts every item to the collector under `path`. */
export function triggerWorkflow(
	name: string,
	trigger: Omit<WorkflowNode, 'position'>,
	collectorUrl: string,
	path: string,
): Workflow {
	return {
		name,
		nodes: [
			{ position: [0, 0], ...trigger } as WorkflowNode,
			collectNode('Collect', collectorUrl, path, [260, 0]),
		],
		connections: { [trigger.name]: { main: [[{ node: 'Collect', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
		publish: true,
	};
}

/** A JSON POST whose failure to connect is an answer (status 0), not an exception. */
export async function post(
	url: string,
	body: string,
	headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
	try {
		const response = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json', ...headers },
			body,
		});
		return { status: response.status, text: await response.text() };
	} catch (error) {
		return { status: 0, text: error.message };
	}
}

/** An answer's status for a failure message, with the reason when nothing answered. */
export function answered(answer: { status: number; text: string }): string {
	return answer.status === 0 ? `nothing (${answer.text})` : String(answer.status);
}
