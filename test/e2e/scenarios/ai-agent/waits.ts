// The Send and Wait for Response chains of the AI scenario's workflow: Webhook -> the node's
// SMS Send and Wait -> HTTP Request to the collector, for Comms Account (Approval), Comms
// Unified (Free Text) and one nobody answers (Limit Wait Time, resumed by n8n's wait tracker).

import type { CommsSandbox } from '../../comms.ts';
import { collectNode } from '../../rig/collector.ts';
import type { CredentialRef, Workflow, WorkflowNode } from '../../rig/types.ts';
import { addChain, CUSTOMER, webhookNode, type ChainPaths } from './workflow.ts';

export function waitChains(
	workflow: Workflow,
	sandbox: CommsSandbox,
	creds: Record<string, CredentialRef>,
	paths: ChainPaths,
): void {
	// Comms Account's SMS Send and Wait for an approval, resumed by n8n after `resumeMinutes`.
	const accountApproval = (
		resumeMinutes: number,
		extra: Record<string, unknown> = {},
	): Pick<WorkflowNode, 'type' | 'parameters' | 'credentials'> => ({
		type: 'n8n-nodes-comms-api.commsAccount',
		parameters: {
			resource: 'sms',
			operation: 'sendAndWait',
			phoneDocId: { __rl: true, mode: 'id', value: sandbox.numbers.main },
			to: CUSTOMER,
			message: '={{ $json.body.question }}',
			responseType: 'approval',
			...extra,
			options: {
				limitWaitTime: {
					values: {
						limitType: 'afterTimeInterval',
						resumeAmount: resumeMinutes,
						resumeUnit: 'minutes',
					},
				},
			},
		},
		credentials: { commsAccountApi: creds.commsAccountApi },
	});
	// 5-6. Send and Wait for Response, resumed by a person on the linked page.
	const waits: [string, string, Pick<WorkflowNode, 'type' | 'parameters' | 'credentials'>][] = [
		[
			'Approval (Account)',
			'wait-approval',
			accountApproval(30, {
				approvalOptions: {
					values: { approveLabel: 'Yes, book it', disapproveLabel: 'No thanks' },
				},
			}),
		],
		[
			'Free Text (Unified)',
			'wait-text',
			{
				type: 'n8n-nodes-comms-api.commsUnified',
				parameters: {
					resource: 'sms',
					operation: 'sendAndWait',
					to: CUSTOMER,
					message: '={{ $json.body.question }}',
					responseType: 'freeText',
					options: { spendingCapPence: 100 },
				},
				credentials: { commsUnifiedApi: creds.commsUnifiedApi },
			},
		],
		// Nobody answers: n8n's wait tracker resumes it (it looks every minute).
		['Timeout (Account)', 'wait-timeout', accountApproval(0.05)],
	];
	waits.forEach(([label, pathName, node], index) => {
		paths[label] = pathName;
		addChain(
			workflow,
			[
				webhookNode('Start', pathName, 'onReceived'),
				{ name: 'Ask by SMS', typeVersion: 1, position: [240, 0], ...node } as WorkflowNode,
				collectNode('Collect', sandbox.collector.url, `/${pathName}`, [480, 0]),
			],
			{
				Start: { main: [[{ node: 'Ask by SMS', type: 'main', index: 0 }]] },
				'Ask by SMS': { main: [[{ node: 'Collect', type: 'main', index: 0 }]] },
			},
			`${label} `,
			4 + index,
		);
	});
}
