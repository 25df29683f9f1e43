/**
 * The Comms Unified node, run by n8n's engine against the sandbox over HTTP: every operation,
 * what it sends and what it outputs (billing, live and test), and every input check, which
 * fails the item before any request is made.
 */
import type { INodeParameters } from 'n8n-workflow';

import { CommsUnified } from '../../nodes/CommsUnified/CommsUnified.node';
import { TEST_NUMBERS, UNIFIED_DEFAULT_FROM } from '../../sandbox';
import { type NodeRun, runNode, unifiedRequests, useSandbox } from '../support/sandbox';
import { items } from '../support/workflows';

const UNIFIED = 'n8n-nodes-comms-api.commsUnified';
const sandbox = useSandbox();

const run = (parameters: INodeParameters, options?: NodeRun) =>
	runNode(sandbox(), 'unified', parameters, options);

const posts = () => unifiedRequests(sandbox());
const credits = async () => (await sandbox().control.balances()).unifiedCreditsPence;

const call = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'voice',
	operation: 'makeCall',
	to: TEST_NUMBERS.customer,
	message: "Remind them of tomorrow's 10:00 delivery.",
	...extra,
});
const sms = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'sms',
	operation: 'send',
	to: TEST_NUMBERS.customer,
	message: 'Your order has shipped.',
	...extra,
});
const email = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'email',
	operation: 'send',
	to: 'someone@example.com',
	subject: 'Your order',
	html: '<p>It has shipped.</p>',
	...extra,
});
const chat = (
	values: Array<{ role: string; content: string }>,
	extra: INodeParameters = {},
): INodeParameters => ({ resource: 'ai', operation: 'chat', messages: { values }, ...extra });

describe('voice.makeCall', () => {
	it('places the call with Amy by default and outputs the result, the live billing and the timestamp', async () => {
		const before = await credits();
		const result = await run(call({ webhookUrl: 'https://n8n.example.com/webhook/calls' }));
		expect(result.error).toBeUndefined();
		const [item] = result.output('Node');
		expect(item.json).toMatchObject({
			status: 'initiated',
			to: TEST_NUMBERS.customer,
			from: UNIFIED_DEFAULT_FROM.voice,
			estimated_duration: 60,
		});
		expect(item.json.call_id).toMatch(/^ucall_/);
		expect(item.json.billing).toEqual({
			mode: 'live',
			cost: 7,
			costFormatted: '7p',
			creditsRemaining: 1993,
			creditsRemainingFormatted: '£19.93',
			note: 'Live key: charged 7p; £19.93 of credits left.',
		});
		expect(typeof item.json.timestamp).toBe('string');
		expect(item.json.success).toBeUndefined();
		expect(item.json.nodeVersion).toBeUndefined();
		expect(item.pairedItem).toEqual({ item: 0 });
		expect(before - (await credits())).toBe(7);
		const [request] = posts();
		expect(request.body).toMatchObject({
			service: 'voice',
			action: 'make_call',
			data: {
				to: TEST_NUMBERS.customer,
				message: "Remind them of tomorrow's 10:00 delivery.",
				voice: 'Voice.Amy',
				webhook_url: 'https://n8n.example.com/webhook/calls',
			},
		});
		// The key travelled in the body: the sandbox saw it (and logs it masked).
		expect((request.body as Record<string, unknown>).api_key).toMatch(/^key_live\*+/);
		expect(request.keyMask).toMatch(/^key_live\*+5b2d$/);
	});

	it('takes any of the five voices, a national number with Default Country, and a From number', async () => {
		const result = await run(
			call({
				to: '07700 900123',
				voice: 'Voice.Matthew',
				from: '01632 960555',
				options: { defaultCountry: 'GB' },
			}),
		);
		expect(result.error).toBeUndefined();
		expect(result.output('Node')[0].json).toMatchObject({
			to: '+447700900123',
			from: '+441632960555',
		});
		expect(posts()[0].body).toMatchObject({
			data: { to: '+447700900123', from: '+441632960555', voice: 'Voice.Matthew' },
		});
		expect((posts()[0].body as { data: object }).data).not.toHaveProperty('webhook_url');
	});

	it('reads a voice given by name from an expression, and refuses one that does not exist', async () => {
		const input = items(2, (i) => ({ voice: ['joanna', 'Voice.Bob'][i] }));
		const result = await run(call({ voice: '={{ $json.voice }}' }), {
			input,
			continueOnFail: true,
		});
		const [first, second] = result.output('Node');
		expect(first.json.call_id).toBeDefined();
		expect(second.json.error).toBe(
			'Voice "Voice.Bob" is not one of the five voices: Voice.Amy, Voice.Brian, Voice.Emma, Voice.Joanna, Voice.Matthew',
		);
		expect(posts()).toHaveLength(1);
		expect(posts()[0].body).toMatchObject({ data: { voice: 'Voice.Joanna' } });
	});
});

describe('sms.send', () => {
	it('sends and outputs the result with billing', async () => {
		const result = await run(sms({ message: 'x'.repeat(161) }));
		const [item] = result.output('Node');
		expect(item.json).toMatchObject({
			status: 'sent',
			to: TEST_NUMBERS.customer,
			from: UNIFIED_DEFAULT_FROM.sms,
			billing: { mode: 'live', cost: 6, costFormatted: '6p' },
		});
		expect(item.json.message_id).toMatch(/^usms_/);
		expect(posts()[0].body).toMatchObject({
			service: 'sms',
			action: 'send',
			data: { to: TEST_NUMBERS.customer, message: 'x'.repeat(161) },
		});
	});

	it('a test key says plainly that nothing was charged, and leaves the credits alone', async () => {
		const before = await credits();
		const result = await run(sms(), { key: sandbox().credentials.unified.test });
		const [item] = result.output('Node');
		expect(item.json.billing).toEqual({
			mode: 'test',
			cost: 0,
			costFormatted: '0p',
			creditsRemaining: before,
			creditsRemainingFormatted: '£20.00',
			note: "Test key: nothing was charged. The request ran in the provider's sandbox.",
		});
		expect(await credits()).toBe(before);
	});

	it('Include Billing off leaves the billing block out, and keeps the timestamp', async () => {
		const result = await run(sms({ options: { includeBilling: false } }));
		const [item] = result.output('Node');
		expect(item.json.billing).toBeUndefined();
		expect(item.json.message_id).toBeDefined();
		expect(typeof item.json.timestamp).toBe('string');
	});
});

describe('email.send', () => {
	it('sends with a sender name, charging 0.15p', async () => {
		const result = await run(email({ fromName: 'Acme Support' }));
		const [item] = result.output('Node');
		expect(item.json).toMatchObject({
			status: 'sent',
			to: 'someone@example.com',
			subject: 'Your order',
			billing: { mode: 'live', cost: 0.15, costFormatted: '0.15p' },
		});
		expect(posts()[0].body).toMatchObject({
			service: 'email',
			action: 'send',
			data: {
				to: 'someone@example.com',
				subject: 'Your order',
				html: '<p>It has shipped.</p>',
				from_name: 'Acme Support',
			},
		});
	});
});

describe('ai.chat', () => {
	it("sends the conversation with the server's default model when Model is empty", async () => {
		const result = await run(
			chat([
				{ role: 'system', content: 'Answer in one sentence.' },
				{ role: 'user', content: 'When do you open?' },
			]),
		);
		const [item] = result.output('Node');
		expect(item.json).toMatchObject({ model: 'model-capable', billing: { cost: 15 } });
		expect(item.json.response).toContain('When do you open?');
		expect(typeof item.json.tokens_used).toBe('number');
		const data = (posts()[0].body as { data: Record<string, unknown> }).data;
		expect(data).toEqual({
			messages: [
				{ role: 'system', content: 'Answer in one sentence.' },
				{ role: 'user', content: 'When do you open?' },
			],
		});
	});

	it('uses a model ID the user types', async () => {
		const result = await run(chat([{ role: 'user', content: 'Hi' }], { model: 'model-fast' }));
		expect(result.output('Node')[0].json.model).toBe('model-fast');
	});
});

describe('input checked before any request', () => {
	it.each([
		[
			'an invalid number',
			sms({ to: 'call me' }),
			'To "call me" is not a phone number: use digits, spaces and an optional leading +, with no letters or extensions',
		],
		[
			'a national number without Default Country',
			sms({ to: '07700 900123' }),
			/^To "07700 900123" is not a phone number/,
		],
		['an invalid From', call({ from: '12' }), /^From "12" is not a phone number/],
		['an empty SMS', sms({ message: '   ' }), 'Message is required but was empty'],
		['an empty voice message', call({ message: '={{ "" }}' }), 'Message is required but was empty'],
		['a bad email address', email({ to: 'someone@' }), 'To "someone@" is not an email address'],
		[
			'an address with a name',
			email({ to: 'Jane <jane@example.com>' }),
			'To "Jane <jane@example.com>" is not an email address',
		],
		['an empty subject', email({ subject: ' ' }), 'Subject is required but was empty'],
		['an empty HTML body', email({ html: '={{ "  " }}' }), 'HTML is required but was empty'],
		['an empty chat', chat([]), 'Messages is empty: add at least one message with Role "User"'],
		[
			'a chat with only instructions',
			chat([{ role: 'system', content: 'Be brief.' }]),
			'Messages has no message with Role "User": the chat needs something to answer',
		],
		[
			'an empty chat message',
			chat([
				{ role: 'user', content: 'Hi' },
				{ role: 'user', content: ' ' },
			]),
			'Messages, message 2 (user): Content is required but was empty',
		],
		[
			'a webhook URL that is not http(s)',
			call({ webhookUrl: 'ftp://example.com/hook' }),
			'Webhook URL "ftp://example.com/hook" is not an http(s) URL',
		],
		[
			'a webhook URL that is no URL',
			call({ webhookUrl: 'example.com/hook' }),
			'Webhook URL "example.com/hook" is not an http(s) URL',
		],
		[
			'a negative spending cap',
			sms({ options: { spendingCapPence: -1 } }),
			'Spending Cap (Pence) "-1" must be a number of pence, 0 or more',
		],
	])(
		'%s fails the item, naming parameter and value, and sends nothing',
		async (_what, parameters, message) => {
			const continued = await run(parameters, { continueOnFail: true });
			const [item] = continued.output('Node');
			if (typeof message === 'string') expect(item.json.error).toBe(message);
			else expect(item.json.error).toMatch(message);
			expect(item.pairedItem).toEqual({ item: 0 });
			const failed = await run(parameters);
			if (typeof message === 'string') expect(failed.error?.message).toBe(message);
			else expect(failed.error?.message).toMatch(message);
			expect(posts()).toHaveLength(0);
		},
	);

	it('with Continue On Fail, the bad item becomes an error item and the others are sent', async () => {
		const input = items(3, (i) => ({ to: ['+447700900123', 'nope', '+447700900124'][i] }));
		const result = await run(sms({ to: '={{ $json.to }}' }), { input, continueOnFail: true });
		const output = result.output('Node');
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(output[1].json.error).toMatch(/^To "nope" is not a phone number/);
		expect(output[0].json.to).toBe('+447700900123');
		expect(output[2].json.to).toBe('+447700900124');
		expect(posts()).toHaveLength(2);
	});

	it('without it, one bad item stops the node before anything is sent', async () => {
		const input = items(3, (i) => ({ to: ['+447700900123', '+447700900124', 'nope'][i] }));
		const result = await run(sms({ to: '={{ $json.to }}' }), { input });
		expect(result.error?.message).toMatch(/^To "nope" is not a phone number/);
		expect(posts()).toHaveLength(0);
	});
});

describe('as n8n shows it', () => {
	const description = new CommsUnified().description;
	const property = (name: string, resource: string) =>
		description.properties.find(
			(p) => p.name === name && p.displayOptions?.show?.resource?.includes(resource),
		);

	it('the voice dropdown shows the five voices with language, gender and accent, Amy first and default', () => {
		const voice = property('voice', 'voice')!;
		expect(voice.default).toBe('Voice.Amy');
		expect(voice.options).toEqual([
			{ name: 'Amy (UK English, Female, British Accent)', value: 'Voice.Amy' },
			{ name: 'Brian (UK English, Male, British Accent)', value: 'Voice.Brian' },
			{ name: 'Emma (UK English, Female, British Accent)', value: 'Voice.Emma' },
			{ name: 'Joanna (US English, Female, American Accent)', value: 'Voice.Joanna' },
			{ name: 'Matthew (US English, Male, American Accent)', value: 'Voice.Matthew' },
		]);
	});

	it('is usable as a tool, with a subtitle and an action an agent can read for every operation', () => {
		expect(description.usableAsTool).toBe(true);
		expect(description.subtitle).toContain('$parameter["operation"]');
		const operations = description.properties.filter((p) => p.name === 'operation');
		expect(operations.map((p) => p.displayOptions?.show?.resource?.[0])).toEqual([
			'voice',
			'sms',
			'email',
			'ai',
		]);
		for (const operation of operations) {
			for (const option of operation.options as Array<{ action?: string; description?: string }>) {
				expect(option.action).toBeTruthy();
				expect(option.description).toMatch(/costs/);
			}
		}
	});

	it("the options are the contract's names", () => {
		for (const resource of ['voice', 'sms', 'email', 'ai']) {
			const names = (property('options', resource)!.options as Array<{ name: string }>).map(
				(o) => o.name,
			);
			expect(names).toEqual(expect.arrayContaining(['includeBilling', 'spendingCapPence']));
			expect(names.includes('defaultCountry')).toBe(resource === 'voice' || resource === 'sms');
		}
	});

	it('the codex finds it as text message, phone call, email and chatbot', () => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- a JSON file, read as n8n reads it
		const codex = require('../../nodes/CommsUnified/CommsUnified.node.json') as {
			node: string;
			alias: string[];
		};
		expect(codex.node).toBe(UNIFIED);
		expect(codex.alias).toEqual(
			expect.arrayContaining(['text message', 'phone call', 'email', 'chatbot']),
		);
	});
});
