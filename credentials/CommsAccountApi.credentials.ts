import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

import { assertAccountKey } from '../nodes/CommsAccount/api/accountApi';
import {
	assertRequestTarget,
	assertSafeUrl,
	testRules,
} from '../nodes/shared/transport/credentialRules';

const NOT_THE_ACCOUNT_API =
	"This address does not answer like the Comms Account API. Check the Base URL: it is the API host from your provider's documentation, without /v1.";

/**
 * Header key for the Account API v1. `authenticate` checks the key's prefix and the target
 * address before n8n sends anything (credential test included), then puts the key in exactly
 * one header: `Authorization: Bearer`.
 */
export class CommsAccountApi implements ICredentialType {
	name = 'commsAccountApi';

	displayName = 'Comms Account API';

	icon: Icon = { light: 'file:../icons/comms.svg', dark: 'file:../icons/comms.dark.svg' };

	documentationUrl =
		'https://github.com/n8n-nodes-comms-api/n8n-nodes-comms-api/blob/main/README.md#comms-account-api-credential';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'acc_...',
			description:
				'The key from the dashboard\'s Account API page. It starts with "acc_" and is shown only once when generated.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description:
				"Where the Comms Account API is: the address in your provider's API documentation or on the dashboard's Account API page, without /v1. It must start with https://; plain http:// is accepted only for an address on the n8n machine itself.",
			hint: 'Running the package\'s repository? Its sandbox ("npm run sandbox") answers at http://127.0.0.1:4010 on the machine it runs on.',
		},
	];

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const key = assertAccountKey(credentials.apiKey);
		assertSafeUrl(credentials.baseUrl, 'Base URL');
		const baseURL = assertRequestTarget(requestOptions.url, requestOptions.baseURL, 'Base URL');
		const headers = { ...(requestOptions.headers ?? {}) };
		for (const name of Object.keys(headers)) {
			if (['authorization', 'x-api-key'].includes(name.toLowerCase())) delete headers[name];
		}
		headers.Authorization = `Bearer ${key}`;
		return { ...requestOptions, ...(baseURL === undefined ? {} : { baseURL }), headers };
	}

	/**
	 * GET /v1/numbers (free). Besides the key's own verdicts (401, 402), the answer must be the
	 * API's: n8n's rules can only fail on a value, so a body without `success` or without
	 * `numbers` (an HTML page, another service's JSON) fails the test, as does a 404.
	 * Redirects are not followed, so the key cannot be carried to another host.
	 */
	test: ICredentialTestRequest = {
		request: {
			// Trailing slashes are trimmed by `authenticate` (a regex here can take seconds on a
			// hostile value, before anything checks its length).
			baseURL: '={{$credentials.baseUrl}}',
			url: '/v1/numbers',
			method: 'GET',
			disableFollowRedirect: true,
		},
		rules: testRules(
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: 'The API key was not accepted: it is unknown, revoked, rotated or disabled.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 402,
					message: 'The key is valid but the account is suspended: top up minutes or credits.',
				},
			},
			{ type: 'responseCode', properties: { value: 404, message: NOT_THE_ACCOUNT_API } },
			{ type: 'responseCode', properties: { value: 405, message: NOT_THE_ACCOUNT_API } },
			{
				type: 'responseSuccessBody',
				properties: { key: 'success', value: undefined, message: NOT_THE_ACCOUNT_API },
			},
			{
				type: 'responseSuccessBody',
				properties: { key: 'numbers', value: undefined, message: NOT_THE_ACCOUNT_API },
			},
		),
	};
}
