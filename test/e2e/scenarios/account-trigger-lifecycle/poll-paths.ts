// The lifecycle scenario's two poll paths (index.ts), each run in an n8n of its own (the rig's
// own-n8n.ts): a fresh user folder and database with the community package copied from the
// shared run's install, stopped and started again by the scenario.

import type { LiveContext } from '../../rig/live-scenarios.ts';
import { DURABLE_POLL_ENV } from '../../rig/n8n-environment.ts';
import type { N8nInstall } from '../../rig/n8n-install.ts';
import { ownN8nEnvironment } from '../../rig/own-n8n.ts';

/** n8n 2.41's two poll paths: the default one, and the durable scheduler with durable cursors. */
export type PathName = 'default' | 'durable';
const PATHS: Record<PathName, NodeJS.ProcessEnv> = { default: {}, durable: DURABLE_POLL_ENV };

/** The environment of this path's own n8n, its user folder holding the package as installed. */
export async function ownEnvironment(
	n8n: N8nInstall,
	pathName: PathName,
	context: LiveContext,
): Promise<NodeJS.ProcessEnv> {
	return await ownN8nEnvironment(n8n, `lifecycle-${pathName}`, context, PATHS[pathName]);
}
