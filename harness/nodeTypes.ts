/**
 * The node types a harness run knows: our package's nodes and credentials, registered under
 * the names n8n gives a community package (`n8n-nodes-comms-api.<name>`), plus stand-ins for
 * the n8n-nodes-base nodes our example workflows use (only their behaviour we rely on).
 */
import type {
	ICredentialType,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { packageCredentials, packageNodes } from './package';

export const PACKAGE_NAME = 'n8n-nodes-comms-api';

/** Stand-in for n8n's Manual Trigger: starts the workflow with the items it is given. */
class ManualTriggerStandIn implements INodeType {
	description: INodeType['description'] = {
		displayName: 'When clicking "Execute workflow"',
		name: 'manualTrigger',
		group: ['trigger', 'input'],
		version: 1,
		description: 'Stand-in for n8n-nodes-base.manualTrigger in engine runs',
		defaults: { name: 'Manual Trigger' },
		inputs: [],
		outputs: ['main'],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData()];
	}
}

export class HarnessNodeTypes implements INodeTypes {
	private readonly types = new Map<string, INodeType | IVersionedNodeType>();

	constructor(extra: Record<string, INodeType> = {}) {
		for (const node of packageNodes())
			this.types.set(`${PACKAGE_NAME}.${node.description.name}`, node);
		this.types.set('n8n-nodes-base.manualTrigger', new ManualTriggerStandIn());
		for (const [name, node] of Object.entries(extra)) this.types.set(name, node);
	}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		const type = this.types.get(nodeType);
		if (!type) throw new Error(`Unknown node type "${nodeType}"`);
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes() {
		return {};
	}
}

export function credentialTypes(): Record<string, ICredentialType> {
	return Object.fromEntries(packageCredentials().map((type) => [type.name, type]));
}
