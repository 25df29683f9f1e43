/**
 * The Unified API's credential: its n8n type name and its key's rule (the prefix, which also says
 * live or test), checked by the credential class before n8n sends anything and by the transport
 * (through the profile). Pure.
 */
import { CredentialRuleError } from '../../shared/transport/credentialRules';

export const UNIFIED_CREDENTIAL = 'commsUnifiedApi';

export type UnifiedKeyMode = 'live' | 'test';

export function assertUnifiedKey(apiKey: unknown): { key: string; mode: UnifiedKeyMode } {
	const key = typeof apiKey === 'string' ? apiKey.trim() : '';
	if (!key)
		throw new CredentialRuleError(
			'The Comms Unified API credential has no API key. Paste a key starting with "key_live_" or "key_test_".',
		);
	if (key.startsWith('key_live_')) return { key, mode: 'live' };
	if (key.startsWith('key_test_')) return { key, mode: 'test' };
	throw new CredentialRuleError(
		'This is not a Unified API key: Unified API keys start with "key_live_" (live: real actions, credits charged) or "key_test_" (test: no charges). (Keys starting with "acc_" belong to the Comms Account API credential.)',
	);
}
