// examples/account-send-sms.json in the real n8n (`n8n execute`): every Comms Account node runs
// and produces items, the sandbox's main number comes through, the API key appears nowhere in
// the run, and the sandbox saw GET /v1/numbers and POST /v1/sms, each with the key.

import fs from 'node:fs';
import path from 'node:path';
import {
	accountCredential,
	ACCOUNT_CREDENTIAL_TYPE,
	ACCOUNT_NODE_TYPE,
	attachCredentials,
	expect,
	normaliseRequest,
	sandboxOf,
} from '../comms.ts';
import { log } from '../rig/proc.ts';
import type { ExecutionView } from '../rig/execution-view.ts';
import type { Scenario } from '../rig/execute-scenarios.ts';
import type { Json } from '../rig/types.ts';

/** Checks the run of examples/account-send-sms.json against the sandbox. */
async function checkAccountSendSms(view: ExecutionView): Promise<void> {
	const sandbox = sandboxOf(view.server);
	const apiKey = sandbox.credentials.account.unrestricted;
	const accountNodes = view.workflow.nodes.filter((node) => node.type === ACCOUNT_NODE_TYPE);
	expect(accountNodes.length > 0, `the example workflow has no ${ACCOUNT_NODE_TYPE} node`);

	// Every Comms Account node ran, without error, and produced items.
	const outputs: Record<string, Json[]> = {};
	for (const node of accountNodes) {
		const items = view.items(node.name);
		expect(items.length > 0, `node "${node.name}" produced no items`);
		const failed = items.find((item) => item && item.error !== undefined);
		expect(!failed, `node "${node.name}" returned an error item: ${JSON.stringify(failed)}`);
		outputs[node.name] = items;
		log(
			`  ${node.name}: ${items.length} item(s), first: ${JSON.stringify(items[0]).slice(0, 200)}`,
		);
	}
	// The numbers list went through n8n: the sandbox's main number is in some output.
	const allOutput = JSON.stringify(outputs);
	expect(
		allOutput.includes(sandbox.numbers.main),
		`no node output mentions the sandbox's main number ${sandbox.numbers.main}`,
	);
	// The key never leaks into anything n8n stores or shows.
	expect(!JSON.stringify(view.run).includes(apiKey), 'the API key appears in the execution output');

	// The sandbox saw the requests, with the key n8n decrypted from the credential.
	const logEntries: Json[] = await sandbox.requests();
	expect(
		Array.isArray(logEntries),
		`sandbox.requests() returned ${typeof logEntries}, expected an array`,
	);
	const requests = logEntries.map(normaliseRequest);
	const shape = `first log entry: ${JSON.stringify(logEntries[0])}`.slice(0, 600);
	const find = (method: string, pattern: RegExp) =>
		requests.filter((r) => r.method === method && pattern.test(r.path));
	const numbersCalls = find('GET', /\/v1\/numbers$/);
	const smsCalls = find('POST', /\/v1\/sms$/);
	expect(
		numbersCalls.length > 0,
		`the sandbox logged no GET /v1/numbers (${requests.length} requests logged)`,
		shape,
	);
	expect(
		smsCalls.length > 0,
		`the sandbox logged no POST /v1/sms (${requests.length} requests logged)`,
		shape,
	);
	for (const request of [...numbersCalls, ...smsCalls]) {
		const where = `${request.method} ${request.path}`;
		if (Object.keys(request.headers).length > 0) {
			// A log with headers: the Account key travels in exactly one of Authorization: Bearer and X-API-Key.
			const viaBearer = request.headers.authorization === `Bearer ${apiKey}`;
			const viaHeader = request.headers['x-api-key'] === apiKey;
			expect(
				viaBearer !== viaHeader,
				`${where} did not carry the credential's key in exactly one header (headers: ${Object.keys(request.headers).join(', ')})`,
			);
		} else {
			// The sandbox's log: the key it read from the Authorization (or X-API-Key) header, masked.
			const mask = request.keyMask;
			expect(
				mask !== null && mask.startsWith(apiKey.slice(0, 8)) && mask.endsWith(apiKey.slice(-4)),
				`${where} did not arrive with the credential's key (the sandbox saw ${mask === null ? 'no key' : mask})`,
				shape,
			);
		}
		expect(request.error === null, `${where} failed at the sandbox with ${request.error}`);
		if (request.status !== undefined) {
			expect(
				request.status >= 200 && request.status < 300,
				`${where} got HTTP ${request.status} from the sandbox`,
			);
		}
	}
	log(
		`  sandbox saw ${numbersCalls.length} GET /v1/numbers and ${smsCalls.length} POST /v1/sms, each with the key`,
	);
}

export function accountSendSmsScenario(repo: string): Scenario {
	const file = path.join(repo, 'examples', 'account-send-sms.json');
	return {
		name: 'examples/account-send-sms.json (Comms Account: numbers getAll, sms send, against the sandbox)',
		credentials: (server) => [accountCredential(sandboxOf(server), 'Comms Account (e2e sandbox)')],
		workflow: (_server, credentialsByType) =>
			attachCredentials(JSON.parse(fs.readFileSync(file, 'utf8')), credentialsByType, {
				[ACCOUNT_NODE_TYPE]: ACCOUNT_CREDENTIAL_TYPE,
			}),
		check: checkAccountSendSms,
	};
}
