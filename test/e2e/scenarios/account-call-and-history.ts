// The Comms Account node's other everyday operations in the real n8n (`n8n execute`): an SMS
// sent and then found in the SMS history (Get Many, sent to that customer), a manual call placed
// and read back (Call Get). Each request reaches the sandbox once, and the key nowhere in the run.

import {
	accountCredential,
	ACCOUNT_NODE_TYPE as ACCOUNT_NODE,
	attachCredentials,
	expect,
	sandboxOf,
} from '../comms.ts';
import { log } from '../rig/proc.ts';
import type { Scenario } from '../rig/execute-scenarios.ts';
import type { WorkflowNode } from '../rig/types.ts';

const CUSTOMER = '+447700900123';

/** A Comms Account node of the chain, `at` steps from the start. */
function account(name: string, at: number, parameters: WorkflowNode['parameters']): WorkflowNode {
	return {
		id: `e2e-ach-${at}`,
		name,
		type: ACCOUNT_NODE,
		typeVersion: 1,
		position: [220 * at, 0],
		parameters,
	};
}

export function accountCallAndHistoryScenario(): Scenario {
	const text = `Your table is booked (${Date.now()})`;
	const chain = ['Send SMS', 'SMS history', 'Place call', 'Read call'];
	return {
		name: 'Comms Account: an SMS sent then found in the history, a manual call placed and read back',
		credentials: (server) => [
			accountCredential(sandboxOf(server), 'Comms Account (e2e call and history)'),
		],
		workflow: (server, credentialsByType) => {
			const number = { __rl: true, mode: 'id', value: sandboxOf(server).numbers.main };
			return attachCredentials(
				{
					name: 'e2e: Comms Account send, history, call',
					nodes: [
						{
							id: 'e2e-ach-0',
							name: 'Start',
							type: 'n8n-nodes-base.manualTrigger',
							typeVersion: 1,
							position: [0, 0],
							parameters: {},
						},
						account('Send SMS', 1, {
							resource: 'sms',
							operation: 'send',
							phoneDocId: number,
							to: CUSTOMER,
							message: text,
						}),
						account('SMS history', 2, {
							resource: 'sms',
							operation: 'getAll',
							phoneDocId: number,
							returnAll: false,
							limit: 50,
							filters: { direction: 'sent', peer: CUSTOMER },
						}),
						{
							...account('Place call', 3, {
								resource: 'call',
								operation: 'create',
								phoneDocId: number,
								to: CUSTOMER,
								mode: 'manual',
							}),
							// One call whatever the history returned.
							executeOnce: true,
						},
						account('Read call', 4, {
							resource: 'call',
							operation: 'get',
							phoneDocId: number,
							callId: '={{ $json.callId }}',
						}),
					],
					connections: Object.fromEntries(
						['Start', ...chain.slice(0, -1)].map((from, at) => [
							from,
							{ main: [[{ node: chain[at], type: 'main', index: 0 }]] },
						]),
					),
					settings: { executionOrder: 'v1' },
				},
				credentialsByType,
				{ [ACCOUNT_NODE]: 'commsAccountApi' },
			);
		},
		check(view) {
			const sandbox = sandboxOf(view.server);
			for (const name of chain) {
				const failed = view.items(name).find((item) => item?.error !== undefined);
				expect(!failed, `${name} returned an error item: ${JSON.stringify(failed)}`);
			}
			const [sent] = view.items('Send SMS');
			expect(sent?.messageId, `Send SMS gave ${JSON.stringify(sent)}`);
			const history = view.items('SMS history');
			expect(
				history.some((sms) => sms.messageId === sent.messageId && sms.body === text),
				`the SMS history (${history.length} items) does not hold the SMS just sent (${sent.messageId})`,
			);
			const [placed] = view.items('Place call');
			const [read] = view.items('Read call');
			expect(
				placed?.callId && read?.callId === placed.callId && read.to === CUSTOMER,
				`the call read back is ${JSON.stringify(read)}, placed ${JSON.stringify(placed)}`,
			);
			const calls = sandbox.requests().filter((r) => r.method === 'POST' && r.path === '/v1/calls');
			expect(calls.length === 1, `the sandbox got ${calls.length} calls, expected 1`);
			const apiKey = sandbox.credentials.account.unrestricted;
			expect(!JSON.stringify(view.run).includes(apiKey), 'the API key appears in the execution');
			log(
				`  SMS ${sent.messageId} sent and found among ${history.length} in the history; call ${placed.callId} placed and read back (${read.status})`,
			);
		},
	};
}
