// Credentials and workflows into n8n with its CLI: ids in n8n's shape, one `import:credentials`
// and one `import:workflow` for the whole run (every n8n command boots n8n, several seconds),
// then `publish:workflow` for the ones a running n8n must have active.

import crypto from 'node:crypto';
import path from 'node:path';
import { writeJson } from './files.ts';
import { n8nCli } from './n8n-cli.ts';
import type { N8nInstall } from './n8n-install.ts';
import { log } from './proc.ts';
import type { Credential, Workflow } from './types.ts';

/** A random id in n8n's shape (16 alphanumeric characters). */
export function n8nId(): string {
	const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
	const bytes = crypto.randomBytes(16);
	return Array.from(bytes, (byte) => alphabet[byte % alphabet.length]).join('');
}

/** Writes the credentials and workflows into `dir` as import files and imports both. */
export async function importIntoN8n(
	n8n: N8nInstall,
	env: NodeJS.ProcessEnv,
	dir: string,
	{ credentials, workflows }: { credentials: Credential[]; workflows: Workflow[] },
): Promise<void> {
	const credentialsFile = path.join(dir, 'credentials.json');
	const workflowsFile = path.join(dir, 'workflows.json');
	writeJson(credentialsFile, credentials);
	writeJson(workflowsFile, workflows);
	log('n8n import:credentials, import:workflow');
	await n8nCli(n8n, env, ['import:credentials', `--input=${credentialsFile}`]);
	await n8nCli(n8n, env, ['import:workflow', `--input=${workflowsFile}`]);
}

/** `n8n publish:workflow` for each workflow (imported before), so that `n8n start` activates it. */
export async function publishWorkflows(
	n8n: N8nInstall,
	env: NodeJS.ProcessEnv,
	workflows: Workflow[],
): Promise<void> {
	for (const workflow of workflows) {
		log(`n8n publish:workflow --id=${workflow.id} (${workflow.name})`);
		await n8nCli(n8n, env, ['publish:workflow', `--id=${workflow.id}`]);
	}
}
