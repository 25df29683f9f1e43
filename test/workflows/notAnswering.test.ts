/**
 * A server that accepts connections and never answers: after a few timeouts in a row on one
 * key the node stops trying (a circuit breaker per key and process), and the remaining items
 * fail at once with a clear message instead of waiting out the timeout each.
 */
import * as net from 'node:net';

import { runWorkflow } from '../../harness';
import { useRequestTimeout } from '../support/sandbox';
import { items, singleNodeWorkflow, smsSendParameters } from '../support/workflows';

let server: net.Server;
let url: string;
const received: string[] = [];
const sockets = new Set<net.Socket>();
useRequestTimeout(500);
beforeAll(async () => {
	server = net.createServer((socket) => {
		sockets.add(socket);
		socket.on('data', (chunk) => {
			const line = chunk.toString('utf8').split('\r\n')[0];
			if (/^[A-Z]+ /.test(line)) received.push(line);
		});
		socket.on('error', () => undefined);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});
afterAll(async () => {
	for (const socket of sockets) socket.destroy();
	await new Promise<void>((resolve) => server.close(() => resolve()));
});

it('SMS to a server that never answers: three requests in all, then every item fails at once', async () => {
	const result = await runWorkflow(
		singleNodeWorkflow(
			'n8n-nodes-comms-api.commsAccount',
			smsSendParameters('pd_1', { message: 'Hello' }),
			{ continueOnFail: true },
		),
		{
			credentials: {
				commsAccountApi: { apiKey: 'acc_never_answers_0123456789', baseUrl: url },
			},
			input: items(4, (i) => ({ to: `+44770090012${i}` })),
		},
	);
	const output = result.output('Node');
	expect(received).toHaveLength(3);
	expect(received[0]).toMatch(/^POST \/v1\/sms /);
	// The send timed out and its look-ups could not settle it: unknown, not sent again.
	expect(output[0].json.error).toMatch(/unknown whether the SMS was sent/);
	expect(output[0].json.error).toMatch(/did not answer any of them within 0.5 seconds/);
	for (const item of output.slice(1)) {
		// The pause left (5 seconds from the third timeout), as long as it was when the item failed:
		// on a busy machine a second may have gone.
		const said = String(item.json.error).match(
			/^The Comms Account API at http:\/\/127\.0\.0\.1:\d+ accepted the last 3 requests with this key and did not answer any of them within 0.5 seconds, so the node stops sending to it for (\d) seconds?\. This item was not sent\.$/,
		);
		expect(said).not.toBeNull();
		expect(Number(said![1])).toBeGreaterThanOrEqual(1);
		expect(Number(said![1])).toBeLessThanOrEqual(5);
		expect(item.json.apiCode).toBe('NOT_ANSWERING');
	}
}, 60_000);

it('Comms Unified to a server that never answers: the items that timed out count at their price, those failed at once count nothing', async () => {
	received.length = 0;
	const result = await runWorkflow(
		singleNodeWorkflow(
			'n8n-nodes-comms-api.commsUnified',
			{
				resource: 'sms',
				operation: 'send',
				to: '={{ $json.to }}',
				message: 'Hello',
				options: { spendingCapPence: 100 },
			},
			{ continueOnFail: true },
		),
		{
			credentials: {
				commsUnifiedApi: {
					apiKey: 'key_live_never_answers_0123',
					endpointUrl: `${url}/unified`,
				},
			},
			input: items(10, (i) => ({ to: `+44770090013${i}` })),
		},
	);
	const output = result.output('Node');
	// Three sends went out and timed out (their outcome unknown); the breaker then failed the
	// other seven before sending (not sent).
	expect(received).toHaveLength(3);
	const outcomes = output.map((item) => item.json.outcome);
	expect(outcomes.filter((outcome) => outcome === 'unknown')).toHaveLength(3);
	expect(outcomes.filter((outcome) => outcome === 'notSent')).toHaveLength(7);
	// The spend the execution keeps: 3 SMS at 3p, not 10.
	const flow = result.run.data.executionData?.contextData.flow as
		{ commsApi?: { spentUnits?: number } } | undefined;
	expect(flow?.commsApi?.spentUnits).toBe(900);
}, 60_000);
