// The scenarios of the real-n8n benchmarks: a sandbox for each (its own port, so its own rate
// window and its own limiter scope in n8n), the credentials pointing at them, and the workflows
// n8n imports: the burst workflows (Webhook -> Code -> send node) and the webhook triggers.

import { sandboxModule } from '../build.ts';
import type { Sandbox, SettingsPatch } from '../../sandbox/index.ts';
import { burstWorkflow } from '../../test/e2e/rig/executions.ts';
import { n8nId } from '../../test/e2e/rig/n8n-import.ts';
import type { Credential, CredentialRef, Workflow } from '../../test/e2e/rig/types.ts';
import {
	httpRequestNode,
	sendAccountNode,
	triggerWorkflow,
	unifiedNode,
	unifiedTriggerNode,
	webhookNode,
	type SendNode,
	type TriggerNode,
	type UnifiedService,
} from './nodes.ts';

export const LATENCY_MS = 20;
/** The header value n8n's Webhook node checks in the Header Auth comparison. */
export const WEBHOOK_HEADER_VALUE = 'bench-header-value';
const UNIFIED_SERVICES: UnifiedService[] = ['sms', 'voice', 'email', 'ai'];

const DOCUMENTED: SettingsPatch = { latencyMs: LATENCY_MS, retryAfter: false };
const INSTANT: SettingsPatch = { latencyMs: 0, accountRequestsPerMinute: 1_000_000 };

/** The documented 600 a minute enforced as 10 a second (a sliding window of 1 s). */
const PER_SECOND: SettingsPatch = {
	...DOCUMENTED,
	accountRequestsPerMinute: 10,
	rateWindowSeconds: 1,
};
/** Stricter than documented: 40 per 10 s (240 a minute), a sliding window of 10 s. */
const TEN_SECONDS: SettingsPatch = {
	...DOCUMENTED,
	accountRequestsPerMinute: 40,
	rateWindowSeconds: 10,
};

/**
 * Stricter than documented, a token bucket whose burst is most of a run: 500, refilled at 5 a
 * second (300 a minute).
 */
const BIG_BURST: SettingsPatch = {
	...DOCUMENTED,
	rateAlgorithm: 'tokenBucket',
	accountRequestsPerMinute: 300,
	rateBurst: 500,
};

/**
 * Each scenario's sandbox settings: the documented limits, a stricter, a token-bucket (at the
 * documented rate, and a stricter one with a large burst), a per-second and a 10-second server
 * (each beside the HTTP Request node tuned to it), instant ones.
 */
const SANDBOX_SETTINGS = {
	ours: DOCUMENTED,
	oursNoSkip: DOCUMENTED,
	httpDefault: DOCUMENTED,
	httpTuned: DOCUMENTED,
	strict: { ...DOCUMENTED, accountRequestsPerMinute: 300 },
	bucket: { ...DOCUMENTED, rateAlgorithm: 'tokenBucket' },
	bigBurst: BIG_BURST,
	perSecond: PER_SECOND,
	httpPerSecond: PER_SECOND,
	tenSeconds: TEN_SECONDS,
	httpTenSeconds: TEN_SECONDS,
	unified: DOCUMENTED,
	instantOurs: INSTANT,
	instantOursWarm: INSTANT,
	instantHttp: INSTANT,
} satisfies Record<string, SettingsPatch>;

export type Sandboxes = Record<keyof typeof SANDBOX_SETTINGS, Sandbox>;

/** A workflow as imported, with its id, and for a webhook trigger the path it listens on. */
export type BenchWorkflow = Workflow & { id: string; webhookPath?: string };

/** The sandboxes of every scenario, each with its own port (so its own limiter scope in n8n). */
export async function startSandboxes(): Promise<Sandboxes> {
	const { startSandbox } = sandboxModule();
	const sandboxes: Partial<Sandboxes> = {};
	for (const [name, settings] of Object.entries(SANDBOX_SETTINGS)) {
		const sandbox = await startSandbox({ port: 0 });
		sandbox.control.updateSettings(settings);
		sandbox.control.setBalances({ smsCredits: { subscription: 1_000_000, topUp: 0 } });
		sandboxes[name as keyof Sandboxes] = sandbox;
	}
	return sandboxes as Sandboxes;
}

/** Credentials (one per sandbox) and workflows, keyed by scenario. */
export function prepare(sandboxes: Sandboxes) {
	const credentials: Credential[] = [];
	const credential = (type: string, name: string, data: Credential['data']): CredentialRef => {
		const entry = { id: n8nId(), name, type, data };
		credentials.push(entry);
		return { id: entry.id, name };
	};
	const accountCredential = (name: keyof Sandboxes) =>
		credential('commsAccountApi', `Bench ${name}`, {
			apiKey: sandboxes[name].credentials.account.unrestricted,
			baseUrl: sandboxes[name].accountBaseUrl,
		});
	const headerCredential = (name: keyof Sandboxes) =>
		credential('httpHeaderAuth', `Bench ${name}`, {
			name: 'X-API-Key',
			value: sandboxes[name].credentials.account.unrestricted,
		});
	const unifiedCredential = credential('commsUnifiedApi', 'Bench unified', {
		apiKey: sandboxes.unified.credentials.unified.test,
		endpointUrl: sandboxes.unified.unifiedUrl,
		webhookSecret: sandboxes.unified.credentials.webhookSecret,
	});
	const workflows: Record<string, BenchWorkflow> = {};
	const burst = (key: string, node: SendNode) => {
		workflows[key] = { ...burstWorkflow(`Bench: ${key}`, `bench-${key}`, node), id: n8nId() };
	};
	const ours = [
		'ours',
		'strict',
		'bucket',
		'bigBurst',
		'perSecond',
		'tenSeconds',
		'instantOurs',
		'instantOursWarm',
	] as const;
	for (const name of ours) burst(name, sendAccountNode(sandboxes[name], accountCredential(name)));
	burst(
		'oursNoSkip',
		sendAccountNode(sandboxes.oursNoSkip, accountCredential('oursNoSkip'), {
			skipIfSentWithinMinutes: 0,
		}),
	);
	burst('httpDefault', httpRequestNode(sandboxes.httpDefault, headerCredential('httpDefault')));
	// The HTTP Request node tuned by hand to each server: a batch of its limit, then its window.
	const tuned = [
		['httpTuned', 10, 1000],
		['httpPerSecond', 10, 1000],
		['httpTenSeconds', 40, 10_000],
	] as const;
	for (const [name, batchSize, batchInterval] of tuned)
		burst(
			name,
			httpRequestNode(sandboxes[name], headerCredential(name), { batchSize, batchInterval }),
		);
	burst('instantHttp', httpRequestNode(sandboxes.instantHttp, headerCredential('instantHttp')));
	for (const service of UNIFIED_SERVICES)
		burst(`unified-${service}`, unifiedNode(service, unifiedCredential));
	const trigger = (key: string, name: string, node: TriggerNode, webhookPath: string) => {
		workflows[key] = { ...triggerWorkflow(name, node), id: n8nId(), webhookPath };
	};
	const verified = unifiedTriggerNode(unifiedCredential);
	trigger(
		'verified',
		'Bench: webhook trigger (verified)',
		verified,
		`${verified.webhookId}/webhook`,
	);
	trigger(
		'plain',
		"Bench: n8n's Webhook node (no verification)",
		webhookNode('bench-plain'),
		'bench-plain',
	);
	const headerAuth = credential('httpHeaderAuth', 'Bench webhook header', {
		name: 'x-signature',
		value: WEBHOOK_HEADER_VALUE,
	});
	trigger(
		'headerAuth',
		"Bench: n8n's Webhook node with Header Auth",
		webhookNode('bench-header-auth', headerAuth),
		'bench-header-auth',
	);
	return { credentials, workflows };
}
