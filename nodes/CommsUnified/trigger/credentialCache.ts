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
 *
 * How long a copy lives: it is dropped when it expires (one timer, through n8n-workflow's
 * `sleep`, armed while any copy is kept, drops every expired copy), when the workflow is
 * unpublished (`forgetTrigger`, from the trigger's webhook `delete`), and when a delivery finds
 * it no longer verifies. So a deleted or changed credential's key and secret stay in this
 * process's memory for at most `CREDENTIAL_TTL_MS`.
 */
import type { ICredentialDataDecryptedObject, INode, IWebhookFunctions } from 'n8n-workflow';

import { systemClock } from '../../shared/transport';
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

/** Cancels the pending sweep, when one is armed. */
let cancelSweep: (() => void) | undefined;

/** Drops every copy read `CREDENTIAL_TTL_MS` or more ago (or dated ahead of a clock that stepped back). */
function dropExpired(nowMs: number): void {
	for (const [key, copy] of kept)
		if (nowMs - copy.readAtMs >= CREDENTIAL_TTL_MS || nowMs < copy.readAtMs) kept.delete(key);
}

/** Keeps one timer armed while copies are kept: it fires at the earliest expiry, then again. */
function armSweep(): void {
	if (cancelSweep || kept.size === 0) return;
	let earliest = Infinity;
	for (const copy of kept.values()) earliest = Math.min(earliest, copy.readAtMs);
	cancelSweep = systemClock.setTimer(
		() => {
			cancelSweep = undefined;
			dropExpired(Date.now());
			armSweep();
		},
		Math.max(0, earliest + CREDENTIAL_TTL_MS - Date.now()),
	);
}

function keyOf(workflowId: string | undefined, node: INode, credential = ''): string {
	return [workflowId ?? '', node.id ?? node.name, credential].join('\u0000');
}

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
	const key = keyOf(workflowId, node, reference?.id ?? reference?.name ?? '');
	dropExpired(nowMs);
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
		armSweep();
	}
	return { credentials, verdict };
}

/** Forgets the copies kept for one trigger node of a workflow (it is being unpublished). */
export function forgetTrigger(workflowId: string | undefined, node: INode): void {
	const prefix = keyOf(workflowId, node);
	for (const key of kept.keys()) if (key.startsWith(prefix)) kept.delete(key);
}

/** How many copies are kept (for tests). */
export function keptCredentials(): number {
	return kept.size;
}

/** Forgets every kept credential and disarms the sweep (for tests). */
export function forgetCredentials(): void {
	kept.clear();
	cancelSweep?.();
	cancelSweep = undefined;
}
