/**
 * The trigger's credential, kept for a minute in this process once it has verified a delivery.
 *
 * Why: in n8n 2.41 a live webhook of any node but n8n's own Webhook node takes the one pooled
 * expression isolate before the node runs, and `getCredentials()` in a webhook resolves the
 * credential in a workflow of its own, which takes another isolate: with the pool empty, n8n
 * builds one and waits for it (about 30 to 100 ms, most of a delivery's time before its
 * execution starts). n8n's Webhook node skips the first isolate, so its credential finds the
 * pooled one. Reading the credential once a minute instead of once a delivery removes that wait.
 *
 * What it costs: after the Webhook Secret is changed, a delivery signed with the old one is
 * still accepted by this process for at most `CREDENTIAL_TTL_MS`. A delivery whose signature
 * does not verify with the kept secret always reads the credential again (a new secret takes
 * effect at once), and only a secret that verified a delivery is kept.
 */
import type { ICredentialDataDecryptedObject, IWebhookFunctions } from 'n8n-workflow';

import type { SignatureVerdict } from './signature';

/** How long a credential that verified a delivery is used without reading it again. */
const CREDENTIAL_TTL_MS = 60_000;

/** At most this many triggers' credentials are kept; the oldest go first. */
const MAX_ENTRIES = 1000;

interface Kept {
	credentials: ICredentialDataDecryptedObject;
	readAtMs: number;
}

const kept = new Map<string, Kept>();

/**
 * The trigger's credential and the verdict of `verify` on it: from the copy kept in this process
 * when it is fresh and verifies the delivery, else read from n8n (and kept when it verifies).
 */
export async function webhookCredentials(
	ctx: IWebhookFunctions,
	workflowId: string | undefined,
	nowMs: number,
	verify: (credentials: ICredentialDataDecryptedObject) => SignatureVerdict,
): Promise<{ credentials: ICredentialDataDecryptedObject; verdict: SignatureVerdict }> {
	const node = ctx.getNode();
	const reference = node.credentials?.commsUnifiedApi;
	const key = [workflowId ?? '', node.id ?? node.name, reference?.id ?? reference?.name ?? ''].join(
		'\u0000',
	);
	const copy = kept.get(key);
	if (copy && nowMs >= copy.readAtMs && nowMs - copy.readAtMs < CREDENTIAL_TTL_MS) {
		const verdict = verify(copy.credentials);
		if (verdict === 'valid') return { credentials: copy.credentials, verdict };
	}
	const credentials = await ctx.getCredentials<ICredentialDataDecryptedObject>('commsUnifiedApi');
	const verdict = verify(credentials);
	kept.delete(key);
	if (verdict === 'valid') {
		kept.set(key, {
			credentials: { webhookSecret: credentials.webhookSecret, apiKey: credentials.apiKey },
			readAtMs: nowMs,
		});
		while (kept.size > MAX_ENTRIES) kept.delete(kept.keys().next().value as string);
	}
	return { credentials, verdict };
}

/** Forgets every kept credential (for tests). */
export function forgetCredentials(): void {
	kept.clear();
}
