/**
 * What the credential forms show, evaluated with n8n-workflow's displayParameter (what the
 * editor uses for credential fields, with no node): the Unified form says which mode a key is,
 * and neither form offers an address of its own: the user must give the API's.
 */
import { NodeHelpers, type ICredentialType } from 'n8n-workflow';

import { CommsAccountApi } from '../../credentials/CommsAccountApi.credentials';
import { CommsUnifiedApi } from '../../credentials/CommsUnifiedApi.credentials';

const form = new CommsUnifiedApi();
const notice = (name: string) => form.properties.find((property) => property.name === name)!;
const shown = (apiKey: string) =>
	['liveModeNotice', 'testModeNotice'].filter((name) =>
		NodeHelpers.displayParameter({ apiKey }, notice(name), null, null),
	);

describe('Comms Unified API credential form', () => {
	it('says a live key performs real actions and charges credits', () => {
		expect(shown('key_live_abc123')).toEqual(['liveModeNotice']);
		expect(notice('liveModeNotice').displayName).toMatch(/real .* charge credits/);
	});

	it('says a test key charges nothing', () => {
		expect(shown('key_test_abc123')).toEqual(['testModeNotice']);
		expect(notice('testModeNotice').displayName).toMatch(/charge nothing/);
	});

	it('says nothing while the key is empty or of another kind', () => {
		expect(shown('')).toEqual([]);
		expect(shown('acc_abc123')).toEqual([]);
	});

	it('keeps both secrets in password fields', () => {
		for (const name of ['apiKey', 'webhookSecret'])
			expect(notice(name).typeOptions?.password).toBe(true);
	});
});

describe.each<[string, ICredentialType, string, string]>([
	['Comms Account API', new CommsAccountApi(), 'baseUrl', 'http://127.0.0.1:4010'],
	['Comms Unified API', new CommsUnifiedApi(), 'endpointUrl', 'http://127.0.0.1:4010/unified'],
])('%s credential: the API address', (_, credential, name, sandboxAddress) => {
	const field = () => credential.properties.find((property) => property.name === name)!;

	// An installed package has no sandbox beside it: a default address would talk to nothing.
	it('is required and has no default', () => {
		expect(field().required).toBe(true);
		expect(field().default).toBe('');
	});

	it('shows the form of a real address as its placeholder', () => {
		expect(new URL(field().placeholder!).protocol).toBe('https:');
	});

	it("names the repository's sandbox address in its hint, and claims no sandbox ships", () => {
		expect(field().hint).toContain(sandboxAddress);
		expect(`${field().description} ${field().hint}`).not.toMatch(/comes with|default/i);
	});
});
