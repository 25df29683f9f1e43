// The editor in headless Chromium, as a new user meets it (the checks: checks.ts and the steps it calls):
// nodes panel and icons, credential form, From list, Execute step, canvas, triggers. Its canvas
// workflow holds every node of the package, configured with credentials, each trigger wired to its
// service's node, and the browser saves it as the README's picture
// (docs/images/editor-workflow.png), and the node editor after Execute step as its second
// (docs/images/sms-send-output.png).

import crypto from 'node:crypto';
import {
	accountCredential,
	sandboxOf,
	SMS_TRIGGER_TYPE,
	UNIFIED_NODE,
	UNIFIED_TRIGGER_TYPE,
	unifiedCredential,
} from '../../comms.ts';
import type { LiveScenario } from '../../rig/live-scenarios.ts';
import type { Json, WorkflowNode } from '../../rig/types.ts';
import { runEditorChecks, type EditorTrigger } from './checks.ts';
import {
	packageNodes,
	sendSmsTexts,
	triggerShows,
	voiceCheck,
	type PackageNode,
} from '../package-nodes.ts';

/** Each trigger at the left of its row, wired to the node of the same service. */
function canvasLayout(nodes: PackageNode[]) {
	const services = nodes.filter((node) => !node.displayName.endsWith(' Trigger'));
	const rowOf = (node: PackageNode) =>
		services.findIndex((s) => s.displayName === node.displayName.replace(/ Trigger$/, ''));
	const connections: Record<string, Json> = {};
	for (const node of nodes) {
		const service = node.displayName.replace(/ Trigger$/, '');
		if (service !== node.displayName && services.some((s) => s.displayName === service))
			connections[node.displayName] = { main: [[{ node: service, type: 'main', index: 0 }]] };
	}
	const position = (node: PackageNode): [number, number] => [
		node.displayName.endsWith(' Trigger') ? 0 : 300,
		Math.max(0, rowOf(node)) * 220,
	];
	return { connections, position };
}

/** The canvas workflow's credentials, by name. */
const ACCOUNT = 'Comms Account (editor)';
const UNIFIED = 'Comms Unified (editor)';

/**
 * Each node configured as a user would leave it, so the canvas shows no warning: an auto-reply to
 * every inbound SMS, and a voice call for every Unified event. The Unified node is on Voice, Make a
 * Call: the browser reads its Voice list.
 */
function configured(node: PackageNode, mainNumber: string): Record<string, Json> {
	switch (node.type) {
		case SMS_TRIGGER_TYPE:
			return { pollTimes: { item: [{ mode: 'everyMinute' }] }, event: 'smsReceived', options: {} };
		case UNIFIED_TRIGGER_TYPE:
			return { options: {} };
		case UNIFIED_NODE:
			return {
				resource: 'voice',
				operation: 'makeCall',
				to: '+447700900123',
				message: 'Thank you for your order. It leaves our shop today.',
				options: {},
			};
		default:
			return {
				resource: 'sms',
				operation: 'send',
				phoneDocId: { __rl: true, mode: 'id', value: mainNumber },
				to: '={{ $json.fromNumber }}',
				message: 'Thanks, we got your message and will reply within the hour.',
				options: {},
			};
	}
}

export function editorScenario(repo: string): LiveScenario {
	const CANVAS = 'SMS auto-reply, and a call for every event';
	return {
		name: 'The editor in a real browser: nodes panel and icons, credential form, From list, Execute step, canvas, triggers',
		credentials: (server) => [
			accountCredential(sandboxOf(server), ACCOUNT),
			unifiedCredential(sandboxOf(server), UNIFIED),
		],
		// One of every node on a canvas, configured, to see each icon there (not published).
		workflows: (server, credentials) => {
			const nodes = packageNodes(repo);
			const layout = canvasLayout(nodes);
			const ref = (name: string) => ({ id: credentials[name].id, name });
			return [
				{
					name: CANVAS,
					nodes: nodes.map((node): WorkflowNode => ({
						id: crypto.randomUUID(),
						name: node.displayName,
						type: node.type,
						typeVersion: node.version,
						position: layout.position(node),
						parameters: configured(node, sandboxOf(server).numbers.main),
						credentials: node.type.includes('Unified')
							? { commsUnifiedApi: ref(UNIFIED) }
							: { commsAccountApi: ref(ACCOUNT) },
						...(node.description.webhooks ? { webhookId: crypto.randomUUID() } : {}),
					})),
					connections: layout.connections,
					settings: { executionOrder: 'v1' },
				},
			];
		},
		async run({ url, server, workflows, allWorkflows, packageName }) {
			const nodes = packageNodes(repo);
			const triggers: EditorTrigger[] = [];
			const published: [string, (typeof allWorkflows)[string] | undefined][] = [
				[SMS_TRIGGER_TYPE, allWorkflows['SMS trigger (live)']],
				[UNIFIED_TRIGGER_TYPE, allWorkflows['Webhook trigger (live)']],
			];
			for (const [type, workflow] of published) {
				const node = nodes.find((n) => n.type === type);
				if (!node || !workflow) continue;
				// A webhook trigger's node editor shows its production URL (the one to give the API);
				// the host part is n8n's own idea of its address (WEBHOOK_URL, else localhost), so
				// only the path is checked.
				const webhookId = workflow.nodes.find((n) => n.type === type)?.webhookId;
				const webhookUrl = node.description.webhooks
					? `/webhook/${webhookId}/${node.description.webhooks[0].path}`
					: undefined;
				triggers.push({
					name: node.displayName,
					type,
					workflowId: workflow.id,
					shows: triggerShows(node),
					webhookUrl,
				});
			}
			await runEditorChecks({
				url,
				packageName,
				nodes,
				sendSms: sendSmsTexts(nodes),
				sandbox: sandboxOf(server),
				canvas: { workflowId: workflows[CANVAS].id },
				voices: voiceCheck(nodes),
				triggers,
			});
		},
	};
}
