import type { INode, INodeParameters } from 'n8n-workflow';

import type { WorkflowJson } from './runWorkflow';

export const START: INode = {
	id: 'start',
	name: 'Start',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

export const CREDENTIAL_REFS = {
	commsAccountApi: { id: 'cred-account', name: 'Comms Account' },
	commsUnifiedApi: { id: 'cred-unified', name: 'Comms Unified' },
};

/** Start → one node of `type`, as a user would save it. */
export function singleNodeWorkflow(
	type: string,
	parameters: INodeParameters,
	{ continueOnFail = false, name = 'Node' } = {},
): WorkflowJson {
	return {
		nodes: [
			START,
			{
				id: 'node',
				name,
				type,
				typeVersion: 1,
				position: [220, 0],
				parameters,
				credentials: CREDENTIAL_REFS,
				...(continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
			},
		],
		connections: { Start: { main: [[{ node: name, type: 'main', index: 0 }]] } },
	};
}
