// examples/unified-send-sms.json in the real n8n: the Comms Unified node sends one SMS through
// the sandbox's single endpoint with the test key, and the output says nothing was charged.

import fs from 'node:fs';
import path from 'node:path';
import {
	attachCredentials,
	expect,
	sandboxOf,
	UNIFIED_NODE as UNIFIED_NODE_TYPE,
} from '../comms.ts';
import { log } from '../rig/proc.ts';
import type { Scenario } from '../rig/execute-scenarios.ts';

export function unifiedSendSmsScenario(repo: string): Scenario {
	const file = path.join(repo, 'examples', 'unified-send-sms.json');
	return {
		name: 'examples/unified-send-sms.json (Comms Unified: SMS with the test key, billing shown, against the sandbox)',
		credentials: (server) => [
			{
				name: 'Comms Unified (e2e sandbox)',
				type: 'commsUnifiedApi',
				data: {
					apiKey: sandboxOf(server).credentials.unified.test,
					endpointUrl: sandboxOf(server).unifiedUrl,
				},
			},
		],
		workflow: (_server, credentialsByType) =>
			attachCredentials(JSON.parse(fs.readFileSync(file, 'utf8')), credentialsByType, {
				[UNIFIED_NODE_TYPE]: 'commsUnifiedApi',
			}),
		async check(view) {
			const sandbox = sandboxOf(view.server);
			const key = sandbox.credentials.unified.test;
			const node = view.workflow.nodes.find((n) => n.type === UNIFIED_NODE_TYPE);
			expect(node, `the example has no ${UNIFIED_NODE_TYPE} node`);
			const items = view.items(node.name);
			expect(
				items.length === 1,
				`the Comms Unified node produced ${items.length} items, expected 1`,
			);
			const [item] = items;
			expect(
				/^usms_/.test(String(item.message_id)) && item.status === 'sent',
				`unexpected result: ${JSON.stringify(item).slice(0, 300)}`,
			);
			expect(
				item.to === '+447700900123',
				`"07700 900123" with Default Country GB went out as ${item.to}`,
			);
			expect(
				item.billing && item.billing.mode === 'test' && item.billing.cost === 0,
				`billing is ${JSON.stringify(item.billing)}`,
			);
			expect(
				/nothing was charged/i.test(String(item.billing.note)),
				`the billing note does not say nothing was charged: ${item.billing.note}`,
			);
			expect(
				!JSON.stringify(view.run).includes(key),
				'the Unified key appears in the execution output',
			);
			const posts = sandbox.requests().filter((r) => r.method === 'POST' && r.api === 'unified');
			expect(
				posts.length === 1 && posts[0].status === 200,
				`the sandbox logged ${posts.length} Unified requests (${posts.map((p) => p.status).join(', ')}), expected one answered 200`,
			);
			log(`  Send SMS: ${item.message_id} to ${item.to}; billing: ${item.billing.note}`);
		},
	};
}
