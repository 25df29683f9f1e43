// Shapes the rig and the scenarios share. n8n's own documents (workflows, run data,
// execution records) are JSON whose full types live in n8n's source; only the parts
// the checks read are spelled out here.

/** JSON as n8n prints or answers it: read by the checks, shape asserted there. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the one deliberate `any`: n8n's documents, typed in n8n's source
export type Json = any;

export interface CredentialRef {
	id: string;
	name: string;
}

export interface WorkflowNode {
	id?: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, Json>;
	credentials?: Record<string, CredentialRef>;
	webhookId?: string;
	[key: string]: Json;
}

export interface Workflow {
	id?: string;
	name: string;
	nodes: WorkflowNode[];
	connections: Record<string, Json>;
	active?: boolean;
	settings?: Record<string, Json>;
	pinData?: Json;
	/** Live scenarios only: publish (activate) this workflow before `n8n start`. */
	publish?: boolean;
	[key: string]: Json;
}

/** A credential as `n8n import:credentials` takes it (the id is given by the rig). */
export interface CredentialInput {
	name: string;
	type: string;
	data: Record<string, Json>;
}

export interface Credential extends CredentialInput {
	id: string;
}

/** The API server a suite runs against (the sandbox, in this process). */
export interface ApiServer {
	url: string;
	stop(): Promise<void> | void;
	[key: string]: Json;
}

/** A packed package: its tarball and name. */
export interface Packed {
	tarball: string;
	name: string;
	version: string;
}
