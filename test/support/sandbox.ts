/** One sandbox per test file, on a free loopback port, reset before each test. */
import { type Sandbox, startSandbox } from '../../sandbox';

export function useSandbox(options: Parameters<typeof startSandbox>[0] = {}): () => Sandbox {
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, ...options });
	});
	afterAll(async () => {
		await sandbox?.stop();
	});
	beforeEach(() => sandbox?.reset());
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
