// Scenarios against a running n8n (`n8n start`): their workflows are imported with the rest and
// published (activated) before the server starts; one server serves them all, started when the
// first of them runs.

import { n8nId, publishWorkflows } from './n8n-import.ts';
import type { N8nInstall } from './n8n-install.ts';
import { startN8n, type RunningN8n } from './n8n-server.ts';
import { checkScenario, type Tally } from './outcomes.ts';
import { log } from './proc.ts';
import type { ApiServer, Credential, CredentialInput, CredentialRef, Workflow } from './types.ts';

type ImportedWorkflow = Workflow & { id: string };

/** What a live scenario's run() gets: the running n8n and its workflows. */
export interface LiveContext {
	url: string;
	env: NodeJS.ProcessEnv;
	server: ApiServer;
	/** This scenario's workflows, by name (with the ids n8n knows them by). */
	workflows: Record<string, ImportedWorkflow>;
	allWorkflows: Record<string, ImportedWorkflow>;
	tempRoot: string;
	packageName: string;
}

/** A check against `n8n start`, with workflows imported (and published) before it starts. */
export interface LiveScenario {
	name: string;
	credentials?(server: ApiServer): CredentialInput[];
	workflows?(
		server: ApiServer,
		credentialsByName: Record<string, CredentialRef & { type: string }>,
	): Workflow[];
	run(context: LiveContext): Promise<void>;
}

/** A live scenario with the credentials and workflows it imports, ids assigned. */
export interface PreparedLiveScenario {
	scenario: LiveScenario;
	credentials: Credential[];
	workflows: ImportedWorkflow[];
}

export function prepareLiveScenarios(
	scenarios: LiveScenario[],
	server: ApiServer,
): PreparedLiveScenario[] {
	return scenarios.map((scenario) => {
		const credentials = (scenario.credentials ? scenario.credentials(server) : []).map(
			(credential): Credential => ({ id: n8nId(), ...credential }),
		);
		const byName = Object.fromEntries(
			credentials.map((c) => [c.name, { id: c.id, name: c.name, type: c.type }]),
		);
		const workflows = (scenario.workflows ? scenario.workflows(server, byName) : []).map(
			(workflow) => ({ ...workflow, id: n8nId() }),
		);
		return { scenario, credentials, workflows };
	});
}

/** The live scenarios' workflows as `n8n import:workflow` takes them (without `publish`). */
export function importableWorkflows(live: PreparedLiveScenario[]): Workflow[] {
	return live.flatMap((l) => l.workflows.map(({ publish: _publish, ...workflow }) => workflow));
}

/** Publishes the workflows that ask for it, starts `n8n start` and runs each live scenario. */
export async function runLiveScenarios(
	live: PreparedLiveScenario[],
	n8n: N8nInstall,
	env: NodeJS.ProcessEnv,
	shared: Pick<LiveContext, 'server' | 'tempRoot' | 'packageName'>,
	tally: Tally,
): Promise<void> {
	if (live.length === 0) return;
	const all = live.flatMap((l) => l.workflows);
	await publishWorkflows(
		n8n,
		env,
		all.filter((w) => w.publish),
	);
	const allWorkflows = Object.fromEntries(all.map((w) => [w.name, w]));
	let n8nServer = null as RunningN8n | null;
	for (const { scenario, workflows } of live) {
		log(`live scenario "${scenario.name}"`);
		await checkScenario(tally, scenario.name, async () => {
			n8nServer ??= await startN8n(n8n, env);
			await scenario.run({
				...shared,
				url: n8nServer.url,
				env,
				workflows: Object.fromEntries(workflows.map((w) => [w.name, w])),
				allWorkflows,
			});
		});
	}
}
