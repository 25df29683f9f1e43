/**
 * The environment n8n's engine needs in a process of ours (tests, demo, benchmarks). Call it
 * before anything of n8n runs: n8n-core writes a config file into the user folder on the
 * first node run, and its logger reads its level when first used. Imports nothing of n8n.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export function prepareN8nEnvironment(purpose: string): void {
	const env = process.env;
	env.N8N_USER_FOLDER ||= fs.mkdtempSync(path.join(os.tmpdir(), `comms-${purpose}-`));
	env.N8N_ENCRYPTION_KEY ||= `comms-api-${purpose}-encryption-key`;
	env.N8N_DIAGNOSTICS_ENABLED = 'false';
	// n8n's logger writes node errors straight to stdout; our callers report them instead.
	env.N8N_LOG_LEVEL ||= 'silent';
}
