// n8n's Settings → Retry On Fail in the real n8n: the Comms Account node sends two SMS, the
// carrier refuses the first every time, and n8n (with On Error: Continue) runs the node again up
// to Max Tries 3 because its first item is an error. The SMS that went must go once, not once per
// try.

import {
	accountCredential,
	ACCOUNT_NODE_TYPE as ACCOUNT_NODE,
	attachCredentials,
	expect,
	sandboxOf,
} from '../comms.ts';
import { log } from '../rig/proc.ts';
import type { Scenario } from '../rig/execute-scenarios.ts';

const CARRIER_REJECTS = '+447700900502';
const CUSTOMER = '+447700900123';
const TEXT = 'Your parcel arrives today (retry on fail)';

export function retryOnFailScenario(): Scenario {
	return {
		name: 'Retry On Fail (Max Tries 3) on Comms Account SMS Send: the SMS that went is sent once',
		credentials: (server) => [
			accountCredential(sandboxOf(server), 'Comms Account (e2e retry on fail)'),
		],
		workflow: (server, credentialsByType) =>
			attachCredentials(
				{
					name: 'e2e: Retry On Fail does not resend',
					nodes: [
						{
							id: 'e2e-rof-1',
							name: 'Start',
							type: 'n8n-nodes-base.manualTrigger',
							typeVersion: 1,
							position: [0, 0],
							parameters: {},
						},
						{
							id: 'e2e-rof-2',
							name: 'Two numbers',
							type: ACCOUNT_NODE,
							typeVersion: 1,
							position: [220, 0],
							parameters: { resource: 'number', operation: 'getAll', returnAll: false, limit: 2 },
						},
						{
							id: 'e2e-rof-3',
							name: 'Send SMS',
							type: ACCOUNT_NODE,
							typeVersion: 1,
							position: [440, 0],
							parameters: {
								resource: 'sms',
								operation: 'send',
								phoneDocId: { __rl: true, mode: 'id', value: sandboxOf(server).numbers.main },
								to: `={{ $itemIndex === 0 ? '${CARRIER_REJECTS}' : '${CUSTOMER}' }}`,
								message: TEXT,
							},
							retryOnFail: true,
							maxTries: 3,
							waitBetweenTries: 10,
							onError: 'continueRegularOutput',
						},
					],
					connections: {
						Start: { main: [[{ node: 'Two numbers', type: 'main', index: 0 }]] },
						'Two numbers': { main: [[{ node: 'Send SMS', type: 'main', index: 0 }]] },
					},
					settings: { executionOrder: 'v1' },
				},
				credentialsByType,
				{ [ACCOUNT_NODE]: 'commsAccountApi' },
			),
		check(view) {
			const items = view.items('Send SMS');
			expect(items.length === 2, `Send SMS produced ${items.length} items, expected 2`);
			expect(
				/carrier rejected/.test(String(items[0].error)),
				`item 1 is not the carrier's refusal: ${JSON.stringify(items[0]).slice(0, 300)}`,
			);
			expect(items[1].to === CUSTOMER, `item 2 is ${JSON.stringify(items[1]).slice(0, 300)}`);
			const posts = sandboxOf(view.server)
				.requests()
				.filter(
					(r) =>
						r.method === 'POST' &&
						r.path === '/v1/sms' &&
						(r.body as { message?: string } | null)?.message === TEXT,
				);
			const refused = posts.filter((r) => r.status === 502).length;
			const sent = posts.filter(
				(r) => r.status === 201 && (r.body as { to?: string }).to === CUSTOMER,
			);
			expect(refused === 3, `n8n tried the refused SMS ${refused} times, expected 3 (Max Tries)`);
			expect(sent.length === 1, `the customer got ${sent.length} SMS, expected 1`);
			log(`  Retry On Fail: ${refused} refused tries, the customer got ${sent.length} SMS`);
		},
	};
}
