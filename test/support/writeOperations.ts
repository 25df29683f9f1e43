/**
 * Every operation of both action nodes that sends, calls or spends, as a workflow a user would
 * save, with what is needed to judge a run: which requests belong to which item (a key unique to
 * the item, found in the request's body), whether the server acted on one, and what an item costs
 * under the Spending Cap. For the fault-point matrix and the fault-schedule property test.
 */
import type { ICredentialDataDecryptedObject, IDataObject, INodeParameters } from 'n8n-workflow';

import { CREDENTIAL_REFS, START, type WorkflowJson } from '../../harness';
import type { Sandbox } from '../../sandbox';

export interface WriteOperation {
	name: string;
	api: 'account' | 'unified';
	/** Send and Wait takes one item; the others are run with several. */
	oneItem?: boolean;
	/** A call: never placed twice. */
	call?: boolean;
	/** What one item costs against the Spending Cap, in pence (Unified). */
	pence?: number;
	parameters(sandbox: Sandbox): INodeParameters;
	/** The input item that carries `key`, a string unique to the item that its request's body holds. */
	input(key: string): IDataObject;
	/** A key from a serial number: text, or a phone number for the operations whose body has no text. */
	key(serial: number): string;
	path(sandbox: Sandbox): string;
	/** The status of the server's success. */
	successStatus: number;
}

const textKey = (serial: number) => `fm-${String(serial).padStart(6, '0')}-`;
/** Numbers nothing else in these runs uses, so a call's `to` names its item. */
const numberKey = (serial: number) => `+4479111${String(serial % 100_000).padStart(5, '0')}`;
const CUSTOMER = '+447700900123';

const accountSms = (operation: 'send' | 'sendAndWait'): WriteOperation => ({
	name: `Comms Account SMS ${operation === 'send' ? 'Send' : 'Send and Wait'}`,
	api: 'account',
	oneItem: operation === 'sendAndWait',
	parameters: (sandbox) => ({
		resource: 'sms',
		operation,
		phoneDocId: { __rl: true, mode: 'id', value: sandbox.numbers.main },
		to: CUSTOMER,
		message: '={{ $json.text }}',
		...(operation === 'sendAndWait' ? { responseType: 'freeText' } : {}),
	}),
	input: (key) => ({ text: `Your order ${key} is ready` }),
	key: textKey,
	path: () => '/v1/sms',
	successStatus: 201,
});

const accountCall = (mode: 'manual' | 'ai'): WriteOperation => ({
	name: `Comms Account Call Create (${mode})`,
	api: 'account',
	call: true,
	parameters: (sandbox) => ({
		resource: 'call',
		operation: 'create',
		phoneDocId: { __rl: true, mode: 'id', value: sandbox.numbers.main },
		to: '={{ $json.to }}',
		mode,
		...(mode === 'manual' ? { agentPhone: '+447700900301' } : { customerName: 'Sam' }),
	}),
	input: (key) => ({ to: key }),
	key: numberKey,
	path: () => '/v1/calls',
	successStatus: 201,
});

const unifiedPath = (sandbox: Sandbox) => new URL(sandbox.unifiedUrl).pathname;

const unified = (
	name: string,
	pence: number,
	parameters: INodeParameters,
	input: (key: string) => IDataObject,
	extra: Partial<WriteOperation> = {},
): WriteOperation => ({
	name: `Comms Unified ${name}`,
	api: 'unified',
	pence,
	parameters: () => ({ ...parameters, options: { spendingCapPence: '={{ $json.cap }}' } }),
	input,
	key: textKey,
	path: unifiedPath,
	successStatus: 200,
	...extra,
});

export const WRITE_OPERATIONS: WriteOperation[] = [
	accountSms('send'),
	accountSms('sendAndWait'),
	accountCall('manual'),
	accountCall('ai'),
	unified(
		'Voice Make a Call',
		70,
		{ resource: 'voice', operation: 'makeCall', to: CUSTOMER, message: '={{ $json.text }}' },
		(key) => ({ text: `Remind them of ${key}` }),
		{ call: true },
	),
	unified(
		'SMS Send',
		3,
		{ resource: 'sms', operation: 'send', to: CUSTOMER, message: '={{ $json.text }}' },
		(key) => ({ text: `Your order ${key} is ready` }),
	),
	unified(
		'SMS Send and Wait',
		3,
		{
			resource: 'sms',
			operation: 'sendAndWait',
			to: CUSTOMER,
			message: '={{ $json.text }}',
			responseType: 'freeText',
		},
		(key) => ({ text: `When suits ${key}` }),
		{ oneItem: true },
	),
	unified(
		'Email Send',
		0.15,
		{
			resource: 'email',
			operation: 'send',
			to: 'customer@example.com',
			subject: '={{ $json.text }}',
			html: '<p>Hello</p>',
		},
		(key) => ({ text: `Order ${key}` }),
	),
	unified(
		'AI Chat',
		15,
		{
			resource: 'ai',
			operation: 'chat',
			messages: { values: [{ role: 'user', content: '={{ $json.text }}' }] },
		},
		(key) => ({ text: `Summarise ${key}` }),
	),
];

/** Start → the operation's node, with On Error and Retry On Fail as given. */
export function writeWorkflow(
	operation: WriteOperation,
	sandbox: Sandbox,
	{ continueOnFail, retryOnFail }: { continueOnFail: boolean; retryOnFail: boolean },
): WorkflowJson {
	const type = `n8n-nodes-comms-api.${operation.api === 'account' ? 'commsAccount' : 'commsUnified'}`;
	return {
		nodes: [
			START,
			{
				id: 'node',
				name: 'Node',
				type,
				typeVersion: 1,
				position: [220, 0],
				parameters: operation.parameters(sandbox),
				credentials: CREDENTIAL_REFS,
				...(continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
				...(retryOnFail ? { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 } : {}),
			},
		],
		connections: { Start: { main: [[{ node: 'Node', type: 'main', index: 0 }]] } },
	};
}

/** Credentials for an operation's API at `url` (a proxy in front of the sandbox). */
export function credentialsAt(
	operation: WriteOperation,
	sandbox: Sandbox,
	url: string,
): Record<string, ICredentialDataDecryptedObject> {
	return operation.api === 'account'
		? { commsAccountApi: { apiKey: sandbox.credentials.account.unrestricted, baseUrl: url } }
		: {
				commsUnifiedApi: {
					apiKey: sandbox.credentials.unified.live,
					endpointUrl: `${url}${unifiedPath(sandbox)}`,
				},
			};
}

/** The sandbox with room for every run: no rate limit in the way, balances that never run out. */
export function roomForEveryRun(sandbox: Sandbox): void {
	const plenty = { perMinute: 1_000_000, concurrent: 10_000 };
	sandbox.control.updateSettings({
		accountRequestsPerMinute: 1_000_000,
		unifiedLimits: { voice: plenty, sms: plenty, email: plenty, ai: plenty },
	});
	const bucket = { subscription: 1_000_000, topUp: 0 };
	sandbox.control.setBalances({
		minutes: bucket,
		aiMinutes: bucket,
		smsCredits: bucket,
		unifiedCreditsPence: 10_000_000,
	});
}
