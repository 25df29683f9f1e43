/** A Comms Unified Trigger alone in a workflow, run through n8n-core's WebhookContext. */
import { createHmac } from 'node:crypto';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { CREDENTIAL_REFS, WebhookHarness } from '../../harness';

export const UNIFIED_TRIGGER_TYPE = 'n8n-nodes-comms-api.commsUnifiedTrigger';

/** A harness for one trigger named "Trigger", with its own workflow id. */
export function lonelyTrigger(
	credentials: Record<string, ICredentialDataDecryptedObject>,
	workflowId: string,
): WebhookHarness {
	return new WebhookHarness(
		{
			name: workflowId,
			nodes: [
				{
					id: 't',
					name: 'Trigger',
					type: UNIFIED_TRIGGER_TYPE,
					typeVersion: 1,
					position: [0, 0],
					webhookId: `${workflowId}-hook`,
					parameters: {},
					credentials: { commsUnifiedApi: CREDENTIAL_REFS.commsUnifiedApi },
				},
			],
			connections: {},
		},
		{ credentials, workflowId },
	);
}

/** Hex HMAC-SHA256 of `body` with `secret`, as the sender signs. */
export const hmacHex = (body: string, secret: string) =>
	createHmac('sha256', secret).update(body).digest('hex');
