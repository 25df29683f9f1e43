/**
 * The Account API's credential: its n8n type name and its key's rule (the prefix), checked by the
 * credential class before n8n sends anything and by the transport (through the profile). Pure.
 */
import { CredentialRuleError } from '../../shared/transport/credentialRules';

export const ACCOUNT_CREDENTIAL = 'commsAccountApi';

export const ACCOUNT_KEY_PREFIX = 'acc_';

export function assertAccountKey(apiKey: unknown): string {
	const key = typeof apiKey === 'string' ? apiKey.trim() : '';
	if (!key)
		throw new CredentialRuleError(
			'The Comms Account API credential has no API key. Paste the key from the dashboard\'s Account API page; it starts with "acc_".',
		);
	if (!key.startsWith(ACCOUNT_KEY_PREFIX)) {
		throw new CredentialRuleError(
			'This is not an Account API key: Account API keys start with "acc_". (Keys starting with "key_live_" or "key_test_" belong to the Comms Unified API credential.)',
		);
	}
	return key;
}
