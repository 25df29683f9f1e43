/**
 * Reading a node's credential: the key's prefix and the HTTPS rule (HTTPS, or plain HTTP to a
 * loopback address only) are checked once per node run, and the key's pacing scope is derived.
 */
import { createHash } from 'node:crypto';
import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	assertAccountKey,
	assertSafeUrl,
	assertUnifiedKey,
	canonicalAddress,
} from './credentialRules';
import { withOutcome } from './outcome';

export type CommsContext =
	IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions | IHookFunctions;

export const ACCOUNT_CREDENTIAL = 'commsAccountApi';
export const UNIFIED_CREDENTIAL = 'commsUnifiedApi';

export interface Connection {
	credentialType: string;
	url: string;
	secrets: string[];
	scope: string;
}

/** Credentials are read and checked once per node run, not once per item. */
const connections = new WeakMap<object, Map<string, Promise<Connection>>>();

function fingerprint(...parts: string[]): string {
	return createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 16);
}

/**
 * The pacing scope of a key at an address: the API's limits are per key. The address is
 * canonical first, so `https://API.example.com` and `https://api.example.com:443/` share one.
 */
export function limiterScope(
	api: 'account' | 'unified',
	key: string,
	url: string,
	lane?: string,
): string {
	return laneScope(`${api}:${fingerprint(key, canonicalAddress(url))}`, lane);
}

/** The pacing scope of one lane (a Unified service) within a key's scope; the key's own without one. */
export function laneScope(scope: string, lane?: string): string {
	return lane ? `${scope}:${lane}` : scope;
}

function parseConnection(
	credentialType: string,
	credentials: ICredentialDataDecryptedObject,
): Connection {
	if (credentialType === ACCOUNT_CREDENTIAL) {
		const key = assertAccountKey(credentials.apiKey);
		const url = canonicalAddress(assertSafeUrl(credentials.baseUrl, 'Base URL'));
		return { credentialType, url, secrets: [key], scope: limiterScope('account', key, url) };
	}
	const { key } = assertUnifiedKey(credentials.apiKey);
	const url = canonicalAddress(assertSafeUrl(credentials.endpointUrl, 'Endpoint URL'));
	const secret = typeof credentials.webhookSecret === 'string' ? credentials.webhookSecret : '';
	return {
		credentialType,
		url,
		secrets: [key, secret].filter(Boolean),
		scope: limiterScope('unified', key, url),
	};
}

async function readConnection(ctx: CommsContext, credentialType: string): Promise<Connection> {
	// Nothing is sent before the credential is read and checked.
	const credentials = await ctx
		.getCredentials(credentialType)
		.catch((error: unknown) => Promise.reject(withOutcome(error, 'notSent')));
	try {
		return parseConnection(credentialType, credentials);
	} catch (error) {
		// Only credential rules throw here; their messages never contain the key.
		throw withOutcome(
			new NodeOperationError(ctx.getNode(), (error as Error).message, {
				description: 'Fix the credential. This node sent no request.',
			}),
			'notSent',
		);
	}
}

export function getConnection(ctx: CommsContext, credentialType: string): Promise<Connection> {
	let perContext = connections.get(ctx);
	if (!perContext) {
		perContext = new Map();
		connections.set(ctx, perContext);
	}
	let connection = perContext.get(credentialType);
	if (!connection) {
		connection = readConnection(ctx, credentialType);
		perContext.set(credentialType, connection);
	}
	return connection;
}

/**
 * Forgets the credential read for `ctx`. n8n keeps one poll context for every poll of an
 * active workflow on its default poll path; a trigger calls this after each poll, so the key
 * is read afresh next time and not held in memory between polls.
 */
export function forgetConnection(ctx: CommsContext): void {
	connections.delete(ctx);
}
