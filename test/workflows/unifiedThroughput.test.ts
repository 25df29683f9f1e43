/**
 * Bursts through the Comms Unified node against a sandbox with small per-service limits, run
 * by n8n's engine. Each service is paced by its own limit and concurrency cap: no failures, no
 * duplicates in the sandbox's log, output in input order. The sandbox's window is shortened
 * (rateWindowSeconds), and the client's limiter with it where the test says so.
 */
import type { INodeParameters } from 'n8n-workflow';

import { limiterScope, runWorkflow, setSharedLimit } from '../../harness';
import { UNIFIED_LIMITS, type UnifiedService } from '../../nodes/CommsUnified/api/unifiedApi';
import { unifiedCredentials, useSandbox } from '../support/sandbox';
import { items, singleNodeWorkflow } from '../support/workflows';

const UNIFIED = 'n8n-nodes-comms-api.commsUnified';
const sandbox = useSandbox();

function scope(service: UnifiedService): string {
	const { apiKey, endpointUrl } = unifiedCredentials(sandbox()).commsUnifiedApi;
	return limiterScope('unified', apiKey, endpointUrl, service);
}

afterEach(() => {
	// Back to the documented limits for the next test.
	for (const service of Object.keys(UNIFIED_LIMITS) as UnifiedService[])
		setSharedLimit(scope(service), UNIFIED_LIMITS[service]);
});

const recipients = (n: number, prefix = 'Message') =>
	items(n, (i) => ({
		to: `+4477009004${String(i).padStart(2, '0')}`,
		text: `${prefix} ${i + 1} of ${n}`,
	}));

function send(parameters: INodeParameters, input: ReturnType<typeof items>) {
	return runWorkflow(singleNodeWorkflow(UNIFIED, parameters), {
		credentials: unifiedCredentials(sandbox()),
		input,
	});
}

const smsToEach: INodeParameters = {
	resource: 'sms',
	operation: 'send',
	to: '={{ $json.to }}',
	message: '={{ $json.text }}',
};
const callEach: INodeParameters = {
	resource: 'voice',
	operation: 'makeCall',
	to: '={{ $json.to }}',
	message: '={{ $json.text }}',
};

function log(service: string) {
	return sandbox()
		.requests()
		.filter(
			(entry) =>
				entry.api === 'unified' && (entry.body as { service?: string }).service === service,
		);
}

/** Every item carried out exactly once, in the sandbox's log and in the output, in input order. */
async function expectEachOnce(
	service: string,
	output: Awaited<ReturnType<typeof send>>,
	count: number,
	prefix = 'Message',
) {
	expect(output.error).toBeUndefined();
	const items = output.output('Node');
	expect(items).toHaveLength(count);
	const accepted = log(service)
		.filter((entry) => entry.status === 200)
		.map((entry) => (entry.body as { data: { message: string } }).data.message);
	expect(accepted).toHaveLength(count);
	expect(new Set(accepted).size).toBe(count);
	const records = await sandbox().control.unifiedRecords();
	items.forEach((item, i) => {
		expect(item.json.error).toBeUndefined();
		expect(item.pairedItem).toEqual({ item: i });
		const id = (item.json.message_id ?? item.json.call_id) as string;
		// Output item i is what input item i asked for: the sandbox's record of its id has its text.
		const record = records.find((r) => r.id === id);
		expect(record?.record.message).toBe(`${prefix} ${i + 1} of ${count}`);
	});
}

it('a burst paced to a small SMS limit and concurrency cap: no 429, no failure, no duplicate, order kept', async () => {
	const perWindow = 8;
	const windowMs = 2000;
	sandbox().control.updateSettings({
		rateWindowSeconds: windowMs / 1000,
		latencyMs: 100,
		unifiedLimits: { sms: { perMinute: perWindow, concurrent: 3 } },
	});
	setSharedLimit(scope('sms'), { perWindow, windowMs, concurrency: 3 });

	const started = Date.now();
	const result = await send(smsToEach, recipients(20));
	const elapsed = Date.now() - started;

	await expectEachOnce('sms', result, 20);
	expect(log('sms').filter((entry) => entry.status === 429)).toHaveLength(0);
	// Never more than the limit in any window: 20 at 8 per 2 s cannot finish before the third window.
	const times = log('sms').map((entry) => Date.parse(entry.time));
	for (let i = perWindow; i < times.length; i++)
		expect(times[i] - times[i - perWindow]).toBeGreaterThanOrEqual(windowMs);
	expect(elapsed).toBeGreaterThanOrEqual(2 * windowMs);
}, 30_000);

it('a server stricter than the documented limits: its 429s (rate and concurrency) are waited out, with no failure and no duplicate', async () => {
	sandbox().control.updateSettings({
		rateWindowSeconds: 1,
		latencyMs: 50,
		unifiedLimits: { sms: { perMinute: 5, concurrent: 2 } },
	});
	// The client knows the window's length (the API documents it), not this server's stricter counts.
	setSharedLimit(scope('sms'), { ...UNIFIED_LIMITS.sms, windowMs: 1000 });
	const result = await send(smsToEach, recipients(12));
	await expectEachOnce('sms', result, 12);
	expect(log('sms').some((entry) => entry.status === 429)).toBe(true);
}, 60_000);

it('each service has its own pace: a slow voice limit does not hold SMS back', async () => {
	sandbox().control.updateSettings({
		rateWindowSeconds: 2,
		unifiedLimits: { voice: { perMinute: 2, concurrent: 1 } },
	});
	setSharedLimit(scope('voice'), { perWindow: 2, windowMs: 2000, concurrency: 1 });
	const timed = async (run: Promise<Awaited<ReturnType<typeof send>>>) => {
		const started = Date.now();
		const result = await run;
		return { result, ms: Date.now() - started };
	};
	const [calls, texts] = await Promise.all([
		timed(send(callEach, recipients(4, 'Call'))),
		timed(send(smsToEach, recipients(10))),
	]);
	await expectEachOnce('voice', calls.result, 4, 'Call');
	await expectEachOnce('sms', texts.result, 10);
	expect(log('voice').filter((entry) => entry.status === 429)).toHaveLength(0);
	expect(calls.ms).toBeGreaterThanOrEqual(2000);
	// Ordered by the sandbox's arrival times, not by wall-clock budgets (a busy machine slows
	// both): every SMS arrived before the last call, which the voice limit held back a window.
	const arrived = (service: string) => log(service).map((entry) => Date.parse(entry.time));
	expect(Math.max(...arrived('sms'))).toBeLessThan(Math.max(...arrived('voice')));
}, 30_000);

it('the node lets as many requests of a service be in flight as its cap allows (email: 100)', async () => {
	sandbox().control.updateSettings({ latencyMs: 1000 });
	const input = items(40, (i) => ({ to: `person${i}@example.com` }));
	// The most email requests the sandbox held at once, sampled while the node runs.
	let peak = 0;
	const sampler = setInterval(() => {
		const held = Object.values(sandbox().control.inFlight()).reduce((a, b) => a + b, 0);
		peak = Math.max(peak, held);
	}, 10);
	const result = await send(
		{
			resource: 'email',
			operation: 'send',
			to: '={{ $json.to }}',
			subject: 'Hi',
			html: '<p>Hi</p>',
		},
		input,
	);
	clearInterval(sampler);
	expect(result.error).toBeUndefined();
	expect(result.output('Node')).toHaveLength(40);
	// One alone first, then the other 39 together: far more than the 16 a smaller cap would allow.
	expect(peak).toBeGreaterThan(16);
}, 30_000);
