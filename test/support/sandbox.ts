/** One sandbox per test file, on a free loopback port, reset before each test. */
import { forgetApiClocks, forgetClaims, setRequestTimeout } from '../../nodes/shared/transport';
import type { INodeParameters } from 'n8n-workflow';

import { runWorkflow } from '../../harness';
import { type Sandbox, startSandbox, TEST_NUMBERS } from '../../sandbox';
import { items, singleNodeWorkflow } from './workflows';

export function useSandbox(options: Parameters<typeof startSandbox>[0] = {}): () => Sandbox {
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, ...options });
	});
	afterAll(async () => {
		await sandbox?.stop();
	});
	beforeEach(() => {
		sandbox?.reset();
		// A reset sandbox numbers its messages and calls from the start again: the claims the
		// node keeps (process-wide) of the old ones would hide the new ones; and its clock is set
		// back, which the records the node made and read there would otherwise still show.
		forgetClaims();
		forgetApiClocks();
	});
	return () => {
		if (!sandbox) throw new Error('The sandbox is not running');
		return sandbox;
	};
}

/**
 * The nodes' request timeout is `ms` for the test file (or describe block) and set back after
 * it: the look-ups of an unknown outcome span the request timeout, a second or two here, not 30.
 */
export function useRequestTimeout(ms: number): void {
	let previous: number | undefined;
	beforeAll(() => {
		previous = setRequestTimeout(ms);
	});
	afterAll(() => {
		if (previous !== undefined) setRequestTimeout(previous);
	});
}

/** The Comms Account credential of one of the sandbox's keys, at its address or another (a proxy's). */
export function accountCredentials(
	sandbox: Sandbox,
	key = sandbox.credentials.account.unrestricted,
	baseUrl = sandbox.accountBaseUrl,
) {
	return { commsAccountApi: { apiKey: key, baseUrl } };
}

/** The Comms Unified credential of one of the sandbox's keys, at its address or another. */
export function unifiedCredentials(
	sandbox: Sandbox,
	key = sandbox.credentials.unified.live,
	endpointUrl = sandbox.unifiedUrl,
) {
	return {
		commsUnifiedApi: {
			apiKey: key,
			endpointUrl,
			webhookSecret: sandbox.credentials.webhookSecret,
		},
	};
}

export interface NodeRun {
	input?: ReturnType<typeof items>;
	continueOnFail?: boolean;
	/** Another of the sandbox's keys (by default the unrestricted Account key, the live Unified key). */
	key?: string;
}

/** Start → one Comms Account or Comms Unified node, run by n8n's engine against the sandbox. */
export function runNode(
	sandbox: Sandbox,
	api: 'account' | 'unified',
	parameters: INodeParameters,
	{ input = items(1), continueOnFail = false, key }: NodeRun = {},
) {
	const type = `n8n-nodes-comms-api.comms${api === 'account' ? 'Account' : 'Unified'}`;
	return runWorkflow(singleNodeWorkflow(type, parameters, { continueOnFail }), {
		credentials:
			api === 'account' ? accountCredentials(sandbox, key) : unifiedCredentials(sandbox, key),
		input,
	});
}

/** The requests the sandbox's Unified API received, in order. */
export const unifiedRequests = (sandbox: Sandbox) =>
	sandbox.requests().filter((entry) => entry.api === 'unified');

/**
 * An SMS sent by someone else (another n8n, a worker, the dashboard): straight to the sandbox's
 * API, so nothing in this process made it or claims it. Its `messageId`.
 */
export async function smsSentElsewhere(
	sandbox: Sandbox,
	message: string,
	to: string = TEST_NUMBERS.customer,
): Promise<string> {
	const answer = await fetch(`${sandbox.accountBaseUrl}/v1/sms`, {
		method: 'POST',
		headers: {
			authorization: `Bearer ${sandbox.credentials.account.unrestricted}`,
			'content-type': 'application/json',
		},
		body: JSON.stringify({ phoneDocId: sandbox.numbers.main, to, message }),
	});
	if (answer.status !== 201) throw new Error(`The sandbox answered ${answer.status} to an SMS`);
	return ((await answer.json()) as { messageId: string }).messageId;
}
