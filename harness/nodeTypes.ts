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

/**
 * Stand-in for n8n's Wait node, "After Time Interval" (parameters `amount` and `unit`): it parks
 * the execution (`putExecutionToWait`), as n8n's Wait does for 65 seconds or more. A harness run
 * then ends with `waitTill` set, and `resumeWorkflow` carries on from the saved data as n8n does
 * when the time comes; on resume n8n-core passes the waiting node's input through.
 */
class WaitStandIn implements INodeType {
	description: INodeType['description'] = {
		displayName: 'Wait',
		name: 'wait',
		group: ['organization'],
		version: [1, 1.1],
		description: 'Stand-in for n8n-nodes-base.wait in engine runs',
		defaults: { name: 'Wait' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{ displayName: 'Amount', name: 'amount', type: 'number', default: 1 },
			{ displayName: 'Unit', name: 'unit', type: 'string', default: 'hours' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const amount = this.getNodeParameter('amount', 0) as number;
		const unit = this.getNodeParameter('unit', 0) as string;
		const ms = amount * ({ seconds: 1_000, minutes: 60_000, hours: 3_600_000 }[unit] ?? 86_400_000);
		await this.putExecutionToWait(new Date(Date.now() + ms));
		return [this.getInputData()];
	}
}

export class HarnessNodeTypes implements INodeTypes {
	private readonly types = new Map<string, INodeType | IVersionedNodeType>();

	constructor(extra: Record<string, INodeType> = {}) {
		for (const node of packageNodes())
			this.types.set(`${PACKAGE_NAME}.${node.description.name}`, node);
		this.types.set('n8n-nodes-base.manualTrigger', new ManualTriggerStandIn());
		this.types.set('n8n-nodes-base.wait', new WaitStandIn());
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
