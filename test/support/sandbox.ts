/** One sandbox per test file, on a free loopback port, reset before each test. */
import { forgetApiClocks, forgetClaims } from '../../nodes/shared/transport';
import { type Sandbox, startSandbox } from '../../sandbox';

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
