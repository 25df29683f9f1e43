/**
 * A test-only node that sends one request per item through the shared transport, so the
 * transport, the credentials and the error mapping can be exercised by n8n's engine before
 * (and apart from) the real nodes.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { accountApiRequest } from '../../nodes/CommsAccount/api/accountApi';
import { unifiedApiRequest } from '../../nodes/CommsUnified/api/unifiedApi';
import type { UnifiedService } from '../../nodes/CommsUnified/api/unifiedApi';

export const PROBE_TYPE = 'test.transportProbe';

export class TransportProbe implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Transport Probe',
		name: 'transportProbe',
		group: ['transform'],
		version: 1,
		description: 'Test fixture',
		defaults: { name: 'Probe' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [
			{ name: 'commsAccountApi', required: false },
			{ name: 'commsUnifiedApi', required: false },
		],
		properties: [
			{ displayName: 'API', name: 'api', type: 'string', default: 'account' },
			{ displayName: 'Method', name: 'method', type: 'string', default: 'GET' },
			{ displayName: 'Path', name: 'path', type: 'string', default: '/v1/numbers' },
			{ displayName: 'Body', name: 'body', type: 'json', default: '{}' },
			{ displayName: 'Service', name: 'service', type: 'string', default: 'sms' },
			{ displayName: 'Action', name: 'action', type: 'string', default: 'send' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			try {
				const body = JSON.parse(this.getNodeParameter('body', i) as string) as IDataObject;
				const response =
					this.getNodeParameter('api', i) === 'unified'
						? await unifiedApiRequest(
								this,
								this.getNodeParameter('service', i) as UnifiedService,
								this.getNodeParameter('action', i) as string,
								body,
								i,
							)
						: await accountApiRequest(this, {
								method: this.getNodeParameter('method', i) as 'GET' | 'POST',
								path: this.getNodeParameter('path', i) as string,
								body: this.getNodeParameter('method', i) === 'POST' ? body : undefined,
								itemIndex: i,
							});
				out.push({ json: response, pairedItem: { item: i } });
			} catch (error) {
				if (!this.continueOnFail()) throw error;
				out.push({
					json: {
						error: error.message,
						description: error.description,
						httpCode: error.httpCode,
						context: error.context,
					},
					pairedItem: { item: i },
				});
			}
		}
		return [out];
	}
}
