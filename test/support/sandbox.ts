/** One sandbox per test file, on a free loopback port, reset before each test. */
import { forgetApiClocks, forgetClaims } from '../../nodes/shared/transport';
import { type Sandbox, startSandbox, TEST_NUMBERS } from '../../sandbox';

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

export function accountCredentials(
	sandbox: Sandbox,
	key = sandbox.credentials.account.unrestricted,
) {
	return { commsAccountApi: { apiKey: key, baseUrl: sandbox.accountBaseUrl } };
}

export function unifiedCredentials(sandbox: Sandbox, key = sandbox.credentials.unified.live) {
	return {
		commsUnifiedApi: {
			apiKey: key,
			endpointUrl: sandbox.unifiedUrl,
			webhookSecret: sandbox.credentials.webhookSecret,
		},
	};
}

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
