/**
 * Runs a credential's "Test" the way n8n's credentials tester does for request-based tests:
 * the test request becomes the routing of a temporary node, which n8n-core's RoutingNode
 * executes (credential applied through the credential's own `authenticate`). The verdict
 * follows the tester's rules: on an HTTP error, `responseCode` rules, then any non-2xx fails;
 * on a response, `responseSuccessBody` rules. (n8n's tester itself is not published.)
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	IDataObject,
	INode,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeType,
	INodeTypes,
} from 'n8n-workflow';
import { createEmptyRunExecutionData, NodeHelpers, Workflow } from 'n8n-workflow';
import { ExecuteContext, RoutingNode } from 'n8n-core';

import { credentialTypes } from './nodeTypes';
import { buildAdditionalData, initExpressionEngine } from './runWorkflow';

function get(data: IDataObject, path: string): unknown {
	return path
		.split('.')
		.reduce<unknown>(
			(value, key) =>
				value && typeof value === 'object' ? (value as IDataObject)[key] : undefined,
			data,
		);
}

export async function runCredentialTest(
	credentialType: string,
	data: ICredentialDataDecryptedObject,
): Promise<INodeCredentialTestResult> {
	await initExpressionEngine();
	const type = credentialTypes()[credentialType];
	const test = type?.test as ICredentialTestRequest | undefined;
	if (!test?.request) throw new Error(`${credentialType} has no request test`);

	const nodeType: INodeType = {
		description: {
			displayName: 'Temp',
			name: 'temp',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: {},
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: credentialType, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: test.request },
					default: '',
				},
			],
		},
	};
	const nodeTypes: INodeTypes = {
		getByName: () => nodeType,
		getByNameAndVersion: (name, version) => NodeHelpers.getVersionedNodeType(nodeType, version),
		getKnownTypes: () => ({}),
	};
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'temp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [credentialType]: { id: 'test', name: 'test' } },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const additionalData = buildAdditionalData({ [credentialType]: data });
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		createEmptyRunExecutionData(),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	const routing = new RoutingNode(context, nodeType, {
		id: 'test',
		name: 'test',
		type: credentialType,
		data,
	});

	let response: INodeExecutionData[][] | null | undefined;
	try {
		response = await workflow.expression.withIsolate(async () => await routing.runNode());
	} catch (error) {
		const cause = (
			error as { cause?: { response?: { status: number; statusText?: string }; code?: string } }
		).cause;
		if (cause?.response) {
			const { status, statusText } = cause.response;
			for (const rule of test.rules ?? []) {
				if (rule.type === 'responseCode' && rule.properties.value === status)
					return { status: 'Error', message: rule.properties.message };
			}
			if (status < 199 || status > 299)
				return { status: 'Error', message: statusText || `Received HTTP status code: ${status}` };
		} else if (cause?.code) {
			return { status: 'Error', message: cause.code };
		}
		return { status: 'Error', message: String((error as Error).message) };
	}
	for (const rule of test.rules ?? []) {
		if (
			rule.type === 'responseSuccessBody' &&
			get(response?.[0]?.[0]?.json ?? {}, rule.properties.key) === rule.properties.value
		) {
			return { status: 'Error', message: rule.properties.message };
		}
	}
	return { status: 'OK', message: 'Connection successful!' };
}
