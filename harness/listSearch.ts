/**
 * Calls a node's list-search method (a "From list" dropdown) the way the editor does: through
 * n8n-core's LoadOptionsContext, with credentials applied by the same helper as executions.
 */
import type {
	ICredentialDataDecryptedObject,
	INodeListSearchResult,
	INodeType,
} from 'n8n-workflow';
import { LoadOptionsContext } from 'n8n-core';

import { HarnessNodeTypes } from './nodeTypes';
import {
	buildAdditionalData,
	buildWorkflow,
	initExpressionEngine,
	type WorkflowJson,
} from './runWorkflow';

export async function runListSearch(
	json: WorkflowJson,
	nodeName: string,
	method: string,
	{
		credentials = {},
		filter,
		parameterPath = 'parameters.phoneDocId',
	}: {
		credentials?: Record<string, ICredentialDataDecryptedObject>;
		filter?: string;
		parameterPath?: string;
	},
): Promise<INodeListSearchResult> {
	await initExpressionEngine();
	const nodeTypes = new HarnessNodeTypes();
	const workflow = buildWorkflow(json, nodeTypes);
	const node = workflow.getNode(nodeName);
	if (!node) throw new Error(`No node named "${nodeName}"`);
	const nodeType = nodeTypes.getByNameAndVersion(node.type, node.typeVersion) as INodeType;
	const search = nodeType.methods?.listSearch?.[method];
	if (!search) throw new Error(`${node.type} has no list search "${method}"`);
	const context = new LoadOptionsContext(
		workflow,
		node,
		buildAdditionalData(credentials),
		parameterPath,
	);
	return await workflow.expression.withIsolate(async () => await search.call(context, filter));
}
