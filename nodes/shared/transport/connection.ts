/**
 * Reading a node's credential: the key's prefix and the HTTPS rule (HTTPS, or plain HTTP to a
 * loopback address only) are checked once per node run, and the key's pacing scope is derived
 * (the scope the API's clock is known by, too).
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

import { assertSafeUrl, canonicalAddress } from './credentialRules';
import { withOutcome } from './nodeErrors';
import { type ApiClock, apiClockOf } from './serverClock';

export type CommsContext =
	IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions | IHookFunctions;

/** What reading an API's credential needs to know: part of the API's profile (attempt.ts). */
export interface CredentialProfile {
	/** The n8n credential type its requests are sent with. */
	credential: string;
	/** The first part of the pacing scope of its keys (limiterScope). */
	scopeName: string;
	/** Checks the credential's API key (its prefix) and returns it trimmed; throws CredentialRuleError. */
	keyOf(apiKey: unknown): string;
	/** The credential property holding the address, and its display name for messages. */
	addressKey: string;
	addressField: string;
	/** Further credential properties holding secrets, redacted from everything that leaves. */
	secretKeys?: string[];
}

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
export function limiterScope(scopeName: string, key: string, url: string, lane?: string): string {
	return laneScope(`${scopeName}:${fingerprint(key, canonicalAddress(url))}`, lane);
}

/** The pacing scope of one lane (a service of the API, say) within a key's scope; the key's own without one. */
export function laneScope(scope: string, lane?: string): string {
	return lane ? `${scope}:${lane}` : scope;
}

function parseConnection(
	profile: CredentialProfile,
	credentials: ICredentialDataDecryptedObject,
): Connection {
	const key = profile.keyOf(credentials.apiKey);
	const url = canonicalAddress(
		assertSafeUrl(credentials[profile.addressKey], profile.addressField),
	);
	const others = (profile.secretKeys ?? [])
		.map((name) => credentials[name])
		.filter((secret): secret is string => typeof secret === 'string' && secret !== '');
	return {
		credentialType: profile.credential,
		url,
		secrets: [key, ...others],
		scope: limiterScope(profile.scopeName, key, url),
	};
}

async function readConnection(ctx: CommsContext, profile: CredentialProfile): Promise<Connection> {
	// Nothing is sent before the credential is read and checked.
	const credentials = await ctx
		.getCredentials(profile.credential)
		.catch((error: unknown) => Promise.reject(withOutcome(error, 'notSent')));
	try {
		return parseConnection(profile, credentials);
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

export function getConnection(ctx: CommsContext, profile: CredentialProfile): Promise<Connection> {
	let perContext = connections.get(ctx);
	if (!perContext) {
		perContext = new Map();
		connections.set(ctx, perContext);
	}
	let connection = perContext.get(profile.credential);
	if (!connection) {
		connection = readConnection(ctx, profile);
		perContext.set(profile.credential, connection);
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

/**
 * An API's clock for this node's credential of it, as every answer in this n8n process has
 * shown it: for any `since` sent to it, and any window on its records' times.
 */
export async function apiClock(ctx: CommsContext, profile: CredentialProfile): Promise<ApiClock> {
	const connection = await getConnection(ctx, profile);
	return apiClockOf(connection.scope);
}
