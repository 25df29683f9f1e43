/**
 * What the credential forms show, evaluated with n8n-workflow's displayParameter (what the
 * editor uses for credential fields, with no node): the Unified form says which mode a key is.
 */
import { NodeHelpers } from 'n8n-workflow';

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
