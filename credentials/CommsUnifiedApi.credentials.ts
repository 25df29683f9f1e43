import type { ICredentialDataDecryptedObject, ICredentialTestRequest, ICredentialType, IHttpRequestOptions, Icon, INodeProperties } from 'n8n-workflow';

import { assertRequestTarget, assertUnifiedKey } from '../nodes/shared/credentialRules';

/**
 * Body key for the Unified single-endpoint API: `authenticate` checks the key's prefix and
 * the endpoint address before n8n sends anything, then sets `api_key` in the JSON envelope.
 *
 * The credential test never spends credits or performs an action: it posts an SMS envelope
 * with no recipient and no text, which no server can carry out or charge for. An
 * INVALID_API_KEY or MISSING_API_KEY answer fails the test; any other answer (normally a
 * parameter error) means the key was accepted.
 */
export class CommsUnifiedApi implements ICredentialType {
	name = 'commsUnifiedApi';

	displayName = 'Comms Unified API';

	icon: Icon = { light: 'file:../icons/comms.svg', dark: 'file:../icons/comms.dark.svg' };

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-comms-api#comms-unified-api-credential';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'key_live_... or key_test_...',
			description:
				'Keys starting with "key_live_" perform real calls, SMS and emails and charge credits; keys starting with "key_test_" run in the provider\'s sandbox and charge nothing.',
		},
		// The two notices tell the user, while typing the key, which mode it is.
		{
			displayName: 'Live key: requests perform real calls, SMS and emails and charge credits.',
			name: 'liveModeNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { apiKey: [{ _cnd: { startsWith: 'key_live_' } }] } },
		},
		{
			displayName: 'Test key: requests run in the provider\'s sandbox and charge nothing.',
			name: 'testModeNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { apiKey: [{ _cnd: { startsWith: 'key_test_' } }] } },
		},
		{
			displayName: 'Endpoint URL',
			name: 'endpointUrl',
			type: 'string',
			default: 'http://127.0.0.1:4010/unified',
			required: true,
			placeholder: 'https://api.example.com/unified',
			description:
				'The one address every Unified API request is posted to, as given in your provider\'s API documentation or dashboard (for example https://api.example.com/unified). It must start with https://. The default is the practice sandbox that comes with this package, running on the n8n machine itself; plain http:// is accepted only for such a local address.',
		},
		{
			displayName: 'Webhook Secret',
			name: 'webhookSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description: 'The shared secret that signs webhook events (used by the Comms Unified Trigger to verify them). Optional for the action node.',
		},
	];

	async authenticate(credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> {
		const { key } = assertUnifiedKey(credentials.apiKey);
		assertRequestTarget(requestOptions.url, requestOptions.baseURL, 'Endpoint URL');
		const body = requestOptions.body && typeof requestOptions.body === 'object' ? requestOptions.body : {};
		return { ...requestOptions, body: { ...body, api_key: key } };
	}

	test: ICredentialTestRequest = {
		request: {
			url: '={{$credentials.endpointUrl}}',
			method: 'POST',
			body: { service: 'sms', action: 'send', data: {} },
			// The expected answer is a parameter error (often a 4xx): let it reach the rules below
			// instead of n8n treating every non-2xx as a failed test.
			ignoreHttpStatusErrors: true,
		},
		rules: [
			{ type: 'responseSuccessBody', properties: { key: 'code', value: 'INVALID_API_KEY', message: 'The API key was not accepted: it is invalid or has been revoked.' } },
			{ type: 'responseSuccessBody', properties: { key: 'code', value: 'MISSING_API_KEY', message: 'No API key was sent.' } },
		],
	};
}
