// Credentials and workflows into n8n: ids in n8n's shape, one `import:credentials` and one
// `import:workflow` for the whole run (every n8n command boots n8n, several seconds), then each
// workflow a running n8n must have active made so the way the n8n version's profile says
// (n8n-versions.ts): its CLI before `n8n start`, or its REST API once it runs.

import crypto from 'node:crypto';
import path from 'node:path';
import { writeJson } from './files.ts';
import { n8nCli } from './n8n-cli.ts';
import type { N8nInstall } from './n8n-install.ts';
import type { OwnerSession } from './n8n-server.ts';
import { log } from './proc.ts';
import type { Credential, Workflow } from './types.ts';

/** A random id in n8n's shape (16 alphanumeric characters). */
export function n8nId(): string {
	const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
	const bytes = crypto.randomBytes(16);
	return Array.from(bytes, (byte) => alphabet[byte % alphabet.length]).join('');
}

/**
 * Writes the credentials and workflows into `dir` as import files and imports both. Each
 * workflow carries a `versionId`, as one exported from n8n does (n8n 2.0 refuses one without).
 */
export async function importIntoN8n(
	n8n: N8nInstall,
	env: NodeJS.ProcessEnv,
	dir: string,
	{ credentials, workflows }: { credentials: Credential[]; workflows: Workflow[] },
): Promise<void> {
	const credentialsFile = path.join(dir, 'credentials.json');
	const workflowsFile = path.join(dir, 'workflows.json');
	writeJson(credentialsFile, credentials);
	writeJson(
		workflowsFile,
		workflows.map((workflow) => ({ versionId: crypto.randomUUID(), ...workflow })),
	);
	log('n8n import:credentials, import:workflow');
	await n8nCli(n8n, env, ['import:credentials', `--input=${credentialsFile}`]);
	await n8nCli(n8n, env, ['import:workflow', `--input=${workflowsFile}`]);
}

/**
 * With the CLI, before `n8n start`: each workflow (imported before) marked active, so that
 * `n8n start` activates it. Nothing for a version that activates over REST (activateOverRest).
 */
export async function publishWorkflows(
	n8n: N8nInstall,
	env: NodeJS.ProcessEnv,
	workflows: Workflow[],
): Promise<void> {
	const { activation } = n8n.profile;
	if (activation === 'rest') return;
	for (const workflow of workflows) {
		const args =
			activation === 'publish'
				? ['publish:workflow', `--id=${workflow.id}`]
				: ['update:workflow', `--id=${workflow.id}`, '--active=true'];
		log(`n8n ${args.join(' ')} (${workflow.name})`);
		await n8nCli(n8n, env, args);
	}
}

/**
 * Over a running n8n's REST API, as the editor's Save and Publish buttons do: creates the
 * workflow (n8n keeps its first version) and activates that version. Resolves to the id n8n
 * gave it.
 */
export async function activateOverRest(session: OwnerSession, workflow: Workflow): Promise<string> {
	const { id: _id, publish: _publish, ...body } = workflow;
	// Created inactive (n8n 2.0 refuses a workflow without `active`), then activated.
	const created = await session.post('/rest/workflows', { ...body, active: false });
	await session.post(`/rest/workflows/${created.id}/activate`, { versionId: created.versionId });
	return created.id;
}
