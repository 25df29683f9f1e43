// The environment every n8n process and command of a run gets: the install's Node.js first on
// PATH, a private user folder, a fixed encryption key, everything that would call n8n's servers
// switched off, free ports, what the n8n version's profile asks for (n8n-versions.ts), and nothing
// inherited from the caller's own n8n configuration.

import crypto from 'node:crypto';
import path from 'node:path';
import type { N8nInstall } from './n8n-install.ts';
import { freePort } from './proc.ts';

/** The caller's settings that would steer n8n: none of them reaches it. */
const INHERITED_N8N_SETTINGS =
	/^(N8N_|DB_|EXECUTIONS_|QUEUE_|GENERIC_TIMEZONE$|NODE_OPTIONS$|NODE_PATH$|npm_)/;

export async function n8nEnvironment(
	n8n: N8nInstall,
	userFolder: string,
): Promise<NodeJS.ProcessEnv> {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (INHERITED_N8N_SETTINGS.test(key)) continue;
		env[key] = value;
	}
	const loopback = '127.0.0.1,localhost,::1';
	Object.assign(env, {
		PATH: `${n8n.nodeBinDir}${path.delimiter}${process.env.PATH}`,
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: crypto.randomBytes(24).toString('hex'),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_PORT: String(await freePort()),
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		// `n8n execute` prints its result through the logger at level info: at warn
		// or below, --rawOutput prints nothing at all.
		N8N_LOG_LEVEL: process.env.E2E_N8N_LOG_LEVEL || 'info',
		N8N_LOG_OUTPUT: 'console',
		N8N_BLOCK_ENV_ACCESS_IN_NODE: 'false',
		DB_TYPE: 'sqlite',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		NO_PROXY: [process.env.NO_PROXY, loopback].filter(Boolean).join(','),
		no_proxy: [process.env.no_proxy, loopback].filter(Boolean).join(','),
		...n8n.profile.env,
	});
	return env;
}

/**
 * n8n 2.41's other poll path: the durable scheduler with durable poll cursors (they need the
 * scheduler and the workflow publication service too).
 */
export const DURABLE_POLL_ENV: NodeJS.ProcessEnv = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
};
