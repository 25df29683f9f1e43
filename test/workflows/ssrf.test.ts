/**
 * A request n8n itself refuses (here its SSRF protection, switched on, blocking the loopback
 * sandbox) is not a connection failure: the node says what n8n said, at once, without retrying.
 */
import '../support/enableSsrfProtection';

import { runWorkflow } from '../../harness';
import { captureLogs } from '../support/logs';
import { accountCredentials, useSandbox } from '../support/sandbox';
import { singleNodeWorkflow } from '../support/workflows';

const sandbox = useSandbox();

it('reports n8n refusing the address, with no retry and no secret', async () => {
	const logs = captureLogs();
	const result = await runWorkflow(
		singleNodeWorkflow('n8n-nodes-comms-api.commsAccount', {
			resource: 'number',
			operation: 'getAll',
			returnAll: true,
		}),
		{
			credentials: accountCredentials(sandbox()),
		},
	);
	expect(result.error).toBeDefined();
	expect(result.error?.message).toMatch(/blocked/);
	expect(result.error?.message).not.toMatch(/Could not reach|UNKNOWN/);
	expect(result.error?.message).not.toContain(sandbox().credentials.account.unrestricted);
	expect(sandbox().requests()).toHaveLength(0);
	// A connection failure would have been retried, and each retry logged.
	expect(logs.filter((line) => line.includes('retrying'))).toEqual([]);
});
