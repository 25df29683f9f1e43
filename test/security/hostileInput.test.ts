/**
 * Hostile input and careless servers, through n8n's engine: keys that
 * would become a prototype, 100 kB values and addresses, names that only look local, and a query
 * or fragment in a credential's address. Nothing reaches the network that should not, and every
 * message quotes at most a short prefix of what it was given.
 */
import { runCredentialTest, runWorkflow } from '../../harness';
import { forgetCredentials } from '../../nodes/CommsUnified/trigger/credentialCache';
import { recentEvents } from '../../nodes/CommsUnified/trigger/replay';
import {
	assertSafeUrl,
	isLoopbackHost,
	MAX_URL_LENGTH,
	redactSecrets,
	trimTrailingSlashes,
} from '../../nodes/shared/transport/credentialRules';
import { QUOTE_MAX, quotePrefix } from '../../nodes/shared/parameters/expressionValues';
import { CommsAccountApi } from '../../credentials/CommsAccountApi.credentials';
import { TEST_NUMBERS, UNIFIED_KEYS, WEBHOOK_SECRET } from '../../sandbox';
import { PROBE_TYPE, TransportProbe } from '../support/probeNode';
import { accountCredentials, unifiedCredentials, useSandbox } from '../support/sandbox';
import { useStubServer } from '../support/stubServer';
import { hmacHex, lonelyTrigger } from '../support/unifiedTrigger';
import { items, singleNodeWorkflow } from '../support/workflows';

const ACCOUNT = 'n8n-nodes-comms-api.commsAccount';
const UNIFIED = 'n8n-nodes-comms-api.commsUnified';
/** A message quoting a prefix of a value is at most this long (the rest is our own words). */
const SHORT = 400;
const HUGE = 100_000;

const sandbox = useSandbox();
const stub = useStubServer();
beforeEach(() => {
	recentEvents.clear();
	forgetCredentials();
});
// The kept credential's expiry timer must not outlive the file.
afterAll(forgetCredentials);

describe('__proto__, constructor and prototype are kept as plain own data (item 5)', () => {
	const hostile = () =>
		JSON.parse(
			'{"success":true,"__proto__":{"isAdmin":true,"toString":"x"},"constructor":{"name":"evil"},"prototype":{"polluted":1}}',
		) as Record<string, unknown>;

	const expectPlain = (json: Record<string, unknown>) => {
		expect(Object.getPrototypeOf(json)).toBe(Object.prototype);
		expect((json as { isAdmin?: unknown }).isAdmin).toBeUndefined();
		expect(() => String(json)).not.toThrow();
		expect(Object.keys(json)).toEqual(
			expect.arrayContaining(['__proto__', 'constructor', 'prototype']),
		);
		expect(Object.getOwnPropertyDescriptor(json, '__proto__')?.value).toEqual({
			isAdmin: true,
			toString: 'x',
		});
		expect(({} as { polluted?: unknown; isAdmin?: unknown }).isAdmin).toBeUndefined();
	};

	it('redactSecrets copies them as own data', () => {
		expectPlain(redactSecrets(hostile(), []));
	});

	it('in an API answer: the item holds them as data, and String(item) works', async () => {
		stub().reply({ status: 200, body: hostile() });
		const result = await runWorkflow(
			singleNodeWorkflow(PROBE_TYPE, { api: 'account', method: 'GET', path: '/v1/numbers' }),
			{
				credentials: { commsAccountApi: { apiKey: 'acc_test_0123456789', baseUrl: stub().url } },
				nodeTypes: { [PROBE_TYPE]: new TransportProbe() },
			},
		);
		expect(result.error).toBeUndefined();
		const [item] = result.output('Node');
		const body = (item.json.body ?? item.json) as Record<string, unknown>;
		expectPlain(body);
	});

	it('in a signed webhook event: the item does not inherit isAdmin', async () => {
		const h = lonelyTrigger(
			{
				commsUnifiedApi: {
					apiKey: UNIFIED_KEYS.live,
					endpointUrl: 'http://127.0.0.1:4010/unified',
					webhookSecret: WEBHOOK_SECRET,
				},
			},
			'wf-proto',
		);
		const body = `{"event":"sms.delivered","timestamp":"${new Date().toISOString()}","data":{"message_id":"usms_p","__proto__":{"isAdmin":true,"toString":"x"},"constructor":{"name":"evil"},"prototype":{"polluted":1}}}`;
		const call = await h.deliver({
			headers: {
				'content-type': 'application/json',
				'x-signature': hmacHex(body, WEBHOOK_SECRET),
			},
			body,
		});
		const [item] = (await call.execution!).output('Trigger');
		expectPlain(item.json as Record<string, unknown>);
	});
});

describe('long values: no backtracking regex, 2,048 characters at most, short messages (item 6)', () => {
	const slashes = `https://a.com${'/'.repeat(HUGE)}x`;

	it('trims trailing slashes with a loop, and the Account test URL uses no regex', () => {
		expect(trimTrailingSlashes(`https://a.com${'/'.repeat(HUGE)}`)).toBe('https://a.com');
		expect(trimTrailingSlashes(slashes)).toBe(slashes);
		const test = new CommsAccountApi().test;
		expect(JSON.stringify(test.request)).not.toMatch(/replace|\/\+\$/);
	});

	it.each([
		['the credential rules', () => assertSafeUrl(slashes, 'Base URL')],
		[
			'an address of exactly one character too many',
			() => assertSafeUrl(`https://a.com/${'a'.repeat(MAX_URL_LENGTH)}`, 'Base URL'),
		],
	])('refuses a URL over 2,048 characters in %s, quoting a prefix', (_what, check) => {
		expect(check).toThrow(/characters long; at most 2,048 are accepted/);
		try {
			check();
		} catch (error) {
			expect((error as Error).message.length).toBeLessThan(SHORT);
		}
	});

	it('a 100 kB Base URL: the credential test and a node both refuse it at once, sending nothing', async () => {
		const test = await runCredentialTest('commsAccountApi', {
			apiKey: 'acc_test_0123456789',
			baseUrl: `${stub().url}${'/'.repeat(HUGE)}x`,
		});
		expect(test.status).toBe('Error');
		expect(test.message.length).toBeLessThan(SHORT);
		const before = stub().received.length;
		const run = await runWorkflow(
			singleNodeWorkflow(ACCOUNT, { resource: 'number', operation: 'getAll', returnAll: true }),
			{ credentials: { commsAccountApi: { apiKey: 'acc_test_0123456789', baseUrl: slashes } } },
		);
		expect(run.error?.message).toMatch(/at most 2,048/);
		expect(run.error!.message.length).toBeLessThan(SHORT);
		expect(stub().received.length).toBe(before);
	});

	it('quotes at most a short prefix: quotePrefix never splits a character', () => {
		expect(quotePrefix('x'.repeat(QUOTE_MAX))).toBe('x'.repeat(QUOTE_MAX));
		expect(quotePrefix('x'.repeat(HUGE))).toBe(`${'x'.repeat(QUOTE_MAX)}…`);
		const emoji = `${'x'.repeat(QUOTE_MAX - 1)}😀😀`;
		expect(quotePrefix(emoji)).toBe(`${'x'.repeat(QUOTE_MAX - 1)}…`);
	});

	it.each([
		[
			'Account SMS Send, a 100 kB To',
			'account',
			{ resource: 'sms', operation: 'send', to: `+44${'7'.repeat(HUGE)}`, message: 'Hi' },
		],
		[
			'Account SMS Send, 100 kB of letters in To',
			'account',
			{ resource: 'sms', operation: 'send', to: 'a'.repeat(HUGE), message: 'Hi' },
		],
		[
			'Account Call, a 100 kB Mode',
			'account',
			{ resource: 'call', operation: 'create', mode: 'm'.repeat(HUGE), to: TEST_NUMBERS.customer },
		],
		[
			'Account SMS Get, a 100 kB message ID',
			'account',
			{ resource: 'sms', operation: 'get', messageId: 'i'.repeat(HUGE) },
		],
		[
			'Account Call Get, a 100 kB call ID',
			'account',
			{ resource: 'call', operation: 'get', mode: 'manual', callId: 'c'.repeat(HUGE) },
		],
		[
			'Account SMS Send, a 100 kB number ID',
			'account',
			{
				resource: 'sms',
				operation: 'send',
				to: TEST_NUMBERS.customer,
				message: 'Hi',
				phoneDocId: { __rl: true, mode: 'id', value: 'p'.repeat(HUGE) },
			},
		],
		[
			'Unified email, a 100 kB To',
			'unified',
			{
				resource: 'email',
				operation: 'send',
				to: `${'a'.repeat(HUGE)}@`,
				subject: 'S',
				html: '<p>x</p>',
			},
		],
		[
			'Unified call, a 100 kB Webhook URL',
			'unified',
			{
				resource: 'voice',
				operation: 'makeCall',
				to: TEST_NUMBERS.customer,
				message: 'Hi',
				webhookUrl: `ftp://${'a'.repeat(HUGE)}`,
			},
		],
		[
			'Unified SMS, a 100 kB To',
			'unified',
			{ resource: 'sms', operation: 'send', to: `+44${'1'.repeat(HUGE)}`, message: 'Hi' },
		],
	])(
		'%s: the item error quotes a short prefix, and nothing is sent',
		async (_what, api, parameters) => {
			const workflow = singleNodeWorkflow(
				api === 'account' ? ACCOUNT : UNIFIED,
				{
					// Account sends and calls act from a number; a row may give its own.
					...(api === 'account'
						? { phoneDocId: { __rl: true, mode: 'id', value: sandbox().numbers.main } }
						: {}),
					...parameters,
				},
				{ continueOnFail: true },
			);
			const result = await runWorkflow(workflow, {
				credentials:
					api === 'account' ? accountCredentials(sandbox()) : unifiedCredentials(sandbox()),
				input: items(1),
			});
			const [item] = result.output('Node');
			const message = String(item.json.error ?? '');
			expect(message).not.toBe('');
			expect(message.length).toBeLessThan(SHORT);
			expect(JSON.stringify(item.json).length).toBeLessThan(4 * SHORT);
			expect(sandbox().requests()).toEqual([]);
		},
	);
});

describe('only this machine counts as this machine (item 7)', () => {
	it.each([
		'localhost',
		'127.0.0.1',
		'127.255.0.9',
		'[::1]',
		'[::ffff:7f00:1]',
		'[::ffff:7fff:ffff]',
	])('%s is loopback', (host) => expect(isLoopbackHost(host)).toBe(true));
	it.each([
		'evil.localhost',
		'localhost.',
		'a.b.localhost',
		'[::ffff:a00:1]',
		'[::ffff:8000:1]',
		'0.0.0.0',
		'[::]',
	])('%s is not', (host) => expect(isLoopbackHost(host)).toBe(false));

	it('http://[::ffff:127.0.0.1] is accepted, as the URL parser gives it', () => {
		expect(new URL('http://[::ffff:127.0.0.1]:4010').hostname).toBe('[::ffff:7f00:1]');
		expect(assertSafeUrl('http://[::ffff:127.0.0.1]:4010/', 'Base URL')).toBe(
			'http://[::ffff:127.0.0.1]:4010',
		);
	});

	it('http://evil.localhost is refused by the credential test and by a node, before any look-up', async () => {
		const test = await runCredentialTest('commsAccountApi', {
			apiKey: 'acc_test_0123456789',
			baseUrl: 'http://evil.localhost:4010',
		});
		expect(test).toMatchObject({ status: 'Error' });
		expect(test.message).toMatch(/uses plain http:\/\//);
		const run = await runWorkflow(
			singleNodeWorkflow(UNIFIED, {
				resource: 'sms',
				operation: 'send',
				to: TEST_NUMBERS.customer,
				message: 'Hi',
			}),
			{
				credentials: {
					commsUnifiedApi: {
						apiKey: UNIFIED_KEYS.live,
						endpointUrl: 'http://evil.localhost:4010/unified',
					},
				},
			},
		);
		expect(run.error?.message).toMatch(/uses plain http:\/\//);
	});
});

describe('a query or fragment in a credential address is refused (item 8)', () => {
	it.each(['?x=1', '#frag', '?'])('%s: clear message, nothing sent', async (suffix) => {
		const before = stub().received.length;
		const account = await runCredentialTest('commsAccountApi', {
			apiKey: 'acc_test_0123456789',
			baseUrl: `${stub().url}/base${suffix}`,
		});
		expect(account.status).toBe('Error');
		expect(account.message).toMatch(/has a query \(\?…\) or a fragment \(#…\)/);
		const unified = await runCredentialTest('commsUnifiedApi', {
			apiKey: UNIFIED_KEYS.live,
			endpointUrl: `${stub().url}/unified${suffix}`,
		});
		expect(unified.status).toBe('Error');
		expect(unified.message).toMatch(/has a query/);
		const run = await runWorkflow(
			singleNodeWorkflow(ACCOUNT, { resource: 'number', operation: 'getAll', returnAll: true }),
			{
				credentials: {
					commsAccountApi: {
						apiKey: 'acc_test_0123456789',
						baseUrl: `${stub().url}/base${suffix}`,
					},
				},
			},
		);
		expect(run.error?.message).toMatch(/Base URL ".*" has a query/);
		expect(stub().received.length).toBe(before);
	});
});
