// Scenarios against a running n8n (`n8n start`): their workflows are imported with the rest and
// published (activated) before the server starts, or, on an n8n whose CLI cannot activate an
// imported workflow, created and activated over its REST API once it runs; one server serves
// them all, started when the first of them runs.

import { activateOverRest, n8nId, publishWorkflows } from './n8n-import.ts';
import type { N8nInstall } from './n8n-install.ts';
import type { N8nProfile } from './n8n-versions.ts';
import { ownerSession, startN8n, type RunningN8n } from './n8n-server.ts';
import { log } from './proc.ts';
import type { ApiServer, Credential, CredentialInput, CredentialRef, Workflow } from './types.ts';

type ImportedWorkflow = Workflow & { id: string };

/** What a live scenario's run() gets: the running n8n and its workflows. */
export interface LiveContext {
	/** The n8n install the run uses (its profile says which version). */
	n8n: N8nInstall;
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

/**
 * The live scenarios' workflows as `n8n import:workflow` takes them (without `publish`); those to
 * publish left out when the profile activates over REST, which creates them.
 */
export function importableWorkflows(live: PreparedLiveScenario[], profile: N8nProfile): Workflow[] {
	return live
		.flatMap((l) => l.workflows)
		.filter((workflow) => !(workflow.publish && profile.activation === 'rest'))
		.map(({ publish: _publish, ...workflow }) => workflow);
}

/** `n8n start`, and the workflows to publish created and activated over REST if it must be so. */
async function startWithPublished(
	n8n: N8nInstall,
	env: NodeJS.ProcessEnv,
	published: ImportedWorkflow[],
): Promise<RunningN8n> {
	const running = await startN8n(n8n, env);
	if (n8n.profile.activation === 'rest' && published.length > 0) {
		const session = await ownerSession(running.url);
		for (const workflow of published) {
			workflow.id = await activateOverRest(session, workflow);
			log(`created and activated "${workflow.name}" over REST (id ${workflow.id})`);
		}
	}
	return running;
}

/**
 * The live scenarios of a run: the workflows that ask for it published before n8n starts, and one
 * `n8n start` for them all, started when the first live scenario runs.
 */
export interface LiveRun {
	run(prepared: PreparedLiveScenario): Promise<void>;
}

export async function startLiveScenarios(
	live: PreparedLiveScenario[],
	n8n: N8nInstall,
	env: NodeJS.ProcessEnv,
	shared: Pick<LiveContext, 'server' | 'tempRoot' | 'packageName'>,
): Promise<LiveRun> {
	const all = live.flatMap((l) => l.workflows);
	const published = all.filter((w) => w.publish);
	if (live.length > 0) await publishWorkflows(n8n, env, published);
	const allWorkflows = Object.fromEntries(all.map((w) => [w.name, w]));
	let n8nServer = null as RunningN8n | null;
	return {
		async run({ scenario, workflows }) {
			log(`live scenario "${scenario.name}"`);
			n8nServer ??= await startWithPublished(n8n, env, published);
			await scenario.run({
				...shared,
				n8n,
				url: n8nServer.url,
				env,
				workflows: Object.fromEntries(workflows.map((w) => [w.name, w])),
				allWorkflows,
			});
		},
	};
}
