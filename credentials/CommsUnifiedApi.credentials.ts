import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

import { assertUnifiedKey } from '../nodes/CommsUnified/api/unifiedApi';
import {
	assertRequestTarget,
	assertSafeUrl,
	testRules,
} from '../nodes/shared/transport/credentialRules';

const NOT_THE_UNIFIED_API =
	'This address does not answer like the Comms Unified API. Check the Endpoint URL: it is the one address every Unified API request is posted to.';
const INTERNAL =
	'The Comms Unified API had an internal error, so the key could not be checked. Test again later.';
const RATE_LIMITED =
	'The Comms Unified API is rate limiting this key, so it could not be checked. Wait a minute and test again.';
const GATEWAY =
	'A gateway in front of the Endpoint URL answered instead of the Comms Unified API, so the key could not be checked. Test again later.';
/** Statuses whose answer never shows whether the key was accepted: they fail the test by their status. */
const NO_VERDICT_STATUSES = [404, 405, 429, 500, 502, 503, 504];

/**
 * Body key for the Unified single-endpoint API: `authenticate` checks the key's prefix and
 * the endpoint address before n8n sends anything, then sets `api_key` in the JSON envelope.
 *
 * The credential test never spends credits or performs an action (see `test`).
 */
export class CommsUnifiedApi implements ICredentialType {
	name = 'commsUnifiedApi';

	displayName = 'Comms Unified API';

	icon: Icon = { light: 'file:../icons/comms.svg', dark: 'file:../icons/comms.dark.svg' };

	documentationUrl =
		'https://github.com/n8n-nodes-comms-api/n8n-nodes-comms-api/blob/main/README.md#comms-unified-api-credential';

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
			displayName: "Test key: requests run in the provider's sandbox and charge nothing.",
			name: 'testModeNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { apiKey: [{ _cnd: { startsWith: 'key_test_' } }] } },
		},
		{
			displayName: 'Endpoint URL',
			name: 'endpointUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com/unified',
			description:
				"The one address every Unified API request is posted to, as given in your provider's API documentation or dashboard. It must start with https://; plain http:// is accepted only for an address on the n8n machine itself.",
			hint: 'Running the package\'s repository? Its sandbox ("npm run sandbox") answers at http://127.0.0.1:4010/unified on the machine it runs on.',
		},
		{
			displayName: 'Webhook Secret',
			name: 'webhookSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'The shared secret that signs webhook events (used by the Comms Unified Trigger to verify them). Optional for the action node.',
		},
	];

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const { key } = assertUnifiedKey(credentials.apiKey);
		assertSafeUrl(credentials.endpointUrl, 'Endpoint URL');
		assertRequestTarget(requestOptions.url, requestOptions.baseURL, 'Endpoint URL');
		const body =
			requestOptions.body && typeof requestOptions.body === 'object' ? requestOptions.body : {};
		return { ...requestOptions, body: { ...body, api_key: key } };
	}

	/**
	 * Posts an SMS envelope with no recipient and no text, which no server can carry out or
	 * charge for. It passes only on an error envelope of the API (`success: false` with a
	 * `code`) whose code shows the key was accepted (normally a parameter error). n8n's rules
	 * can only fail on a value, so every other answer is named: no `success` or no `code` (an
	 * HTML page, another service's JSON), a success (something was carried out), the key
	 * codes, INTERNAL_ERROR and RATE_LIMITED; and the statuses that say nothing about the key
	 * (404, 405, 429, 5xx) are left to fail by their status. A 429 in the envelope under an
	 * undocumented code would still pass (the spec names no code for it). Redirects are not
	 * followed, so the key cannot be carried to another host.
	 */
	test: ICredentialTestRequest = {
		request: {
			url: '={{$credentials.endpointUrl}}',
			method: 'POST',
			body: { service: 'sms', action: 'send', data: {} },
			disableFollowRedirect: true,
			// The expected answer is a parameter error (often a 4xx): let it reach the body rules
			// below, except for the statuses that never show the key was accepted.
			ignoreHttpStatusErrors: { ignore: true, except: NO_VERDICT_STATUSES },
		},
		rules: testRules(
			{ type: 'responseCode', properties: { value: 404, message: NOT_THE_UNIFIED_API } },
			{ type: 'responseCode', properties: { value: 405, message: NOT_THE_UNIFIED_API } },
			{ type: 'responseCode', properties: { value: 429, message: RATE_LIMITED } },
			{ type: 'responseCode', properties: { value: 500, message: INTERNAL } },
			{ type: 'responseCode', properties: { value: 502, message: GATEWAY } },
			{ type: 'responseCode', properties: { value: 503, message: GATEWAY } },
			{ type: 'responseCode', properties: { value: 504, message: GATEWAY } },
			{
				type: 'responseSuccessBody',
				properties: { key: 'success', value: undefined, message: NOT_THE_UNIFIED_API },
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'success',
					value: true,
					message:
						'This address accepted an SMS with no recipient and no text, which the Comms Unified API never does. Check the Endpoint URL.',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: { key: 'code', value: undefined, message: NOT_THE_UNIFIED_API },
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'code',
					value: 'INVALID_API_KEY',
					message: 'The API key was not accepted: it is invalid or has been revoked.',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: { key: 'code', value: 'MISSING_API_KEY', message: 'No API key was sent.' },
			},
			{
				type: 'responseSuccessBody',
				properties: { key: 'code', value: 'INTERNAL_ERROR', message: INTERNAL },
			},
			{
				type: 'responseSuccessBody',
				properties: { key: 'code', value: 'RATE_LIMITED', message: RATE_LIMITED },
			},
		),
	};
}
