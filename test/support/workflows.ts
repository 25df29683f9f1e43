import type { INodeParameters } from 'n8n-workflow';

import { CREDENTIAL_REFS, type WorkflowJson } from '../../harness';

export { CREDENTIAL_REFS, START, singleNodeWorkflow } from '../../harness';

/** A workflow of one Comms Account Trigger (node id `trigger`) with these parameters. */
export function accountTriggerWorkflow(parameters: INodeParameters): WorkflowJson {
	return {
		nodes: [
			{
				id: 'trigger',
				name: 'Trigger',
				type: 'n8n-nodes-comms-api.commsAccountTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters,
				credentials: CREDENTIAL_REFS,
			},
		],
		connections: {},
	};
}

/** `n` input items with the given json. */
export function items(n: number, json: (i: number) => Record<string, unknown> = (i) => ({ i })) {
	return Array.from({ length: n }, (_, i) => ({ json: json(i) as never }));
}

/**
 * Comms Account's SMS Send from `phoneDocId`, to `$json.to` with the text `$json.text`, and Skip
 * If Sent Within off (a test of the send itself, not of the history read before it); `over`
 * replaces any of these.
 */
export const smsSendParameters = (phoneDocId: string, over: INodeParameters = {}) => ({
	resource: 'sms',
	operation: 'send',
	phoneDocId: { __rl: true, mode: 'id', value: phoneDocId },
	to: '={{ $json.to }}',
	message: '={{ $json.text }}',
	options: { skipIfSentWithinMinutes: 0 },
	...over,
});
