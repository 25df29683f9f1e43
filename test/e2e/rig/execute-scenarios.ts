// Scenarios that are one `n8n execute` run each: a workflow imported with its credentials, run
// once from the CLI, and its run document handed to the scenario's check.

import { executionView, type ExecutionView } from './execution-view.ts';
import { executeWorkflow } from './n8n-cli.ts';
import { n8nId } from './n8n-import.ts';
import type { N8nInstall } from './n8n-install.ts';
import { log } from './proc.ts';
import type { ApiServer, Credential, CredentialInput, CredentialRef, Workflow } from './types.ts';

/** One `n8n execute` run of an imported workflow. */
export interface Scenario {
	name: string;
	/** Its credentials (ids are assigned by the rig). */
	credentials(server: ApiServer): CredentialInput[];
	/** Its workflow; credentialsByType[type] = { id, name }. */
	workflow(server: ApiServer, credentialsByType: Record<string, CredentialRef>): Workflow;
	/** Throws on failure (see ExecutionView). */
	check(view: ExecutionView): void | Promise<void>;
}

/** A scenario with the credentials and the workflow it imports, ids assigned. */
export interface PreparedScenario {
	scenario: Scenario;
	credentials: Credential[];
	workflow: Workflow & { id: string };
}

export function prepareScenarios(scenarios: Scenario[], server: ApiServer): PreparedScenario[] {
	return scenarios.map((scenario) => {
		const credentials = scenario
			.credentials(server)
			.map((credential): Credential => ({ id: n8nId(), ...credential }));
		const byType = Object.fromEntries(credentials.map((c) => [c.type, { id: c.id, name: c.name }]));
		const workflow = { ...scenario.workflow(server, byType), id: n8nId() };
		workflow.name = workflow.name || scenario.name;
		return { scenario, credentials, workflow };
	});
}

/** Runs one imported workflow once with `n8n execute` and checks its run; throws on failure. */
export async function runExecuteScenario(
	{ scenario, workflow }: PreparedScenario,
	n8n: N8nInstall,
	env: NodeJS.ProcessEnv,
	server: ApiServer,
): Promise<void> {
	log(`scenario "${scenario.name}": n8n execute --id ${workflow.id} --rawOutput`);
	const runDoc = await executeWorkflow(n8n, env, workflow.id);
	await scenario.check(executionView(runDoc, workflow, server));
}
