// What a check of one `n8n execute` run receives: the run document, its run data per node, and
// the items a node put out (or a clear error when that node did not run or failed).

import { E2eError } from './proc.ts';
import type { ApiServer, Json, Workflow } from './types.ts';

/**
 * What a check callback receives about one execution:
 *   run            the parsed `--rawOutput` document
 *   runData        run.data.resultData.runData (per node name, per run)
 *   items(name)    the json of every item on the first output of node `name`
 *   workflow       the workflow as imported
 *   server         the value startServer() resolved to
 */
export interface ExecutionView {
	run: Json;
	runData: Record<string, Json[]>;
	workflow: Workflow;
	server: ApiServer;
	items(nodeName: string): Json[];
}

export function executionView(runDoc: Json, workflow: Workflow, server: ApiServer): ExecutionView {
	const runData = runDoc?.data?.resultData?.runData || {};
	return {
		run: runDoc,
		runData,
		workflow,
		server,
		items(nodeName: string) {
			const runs = runData[nodeName];
			if (!runs || runs.length === 0) {
				throw new E2eError(
					`node "${nodeName}" did not run (nodes that ran: ${Object.keys(runData).join(', ') || 'none'})`,
				);
			}
			const last = runs[runs.length - 1];
			if (last.error)
				throw new E2eError(
					`node "${nodeName}" failed: ${last.error.message || JSON.stringify(last.error)}`,
				);
			return (last.data?.main?.[0] || []).map((item: Json) => item.json);
		},
	};
}
