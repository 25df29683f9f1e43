// Webhook signature verifications per second, in this process: a real signed event (the
// sandbox's call.completed, as it reached a receiver) through the check the Comms Unified
// Trigger runs (checkSignature), with the right signature and a wrong one.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { signatureModule } from '../build.ts';
import type { SignatureInput } from '../../nodes/CommsUnified/trigger/signature.ts';
import type { Sandbox } from '../../sandbox/index.ts';
import { timed } from './measures.ts';
import { withSandbox } from './sandbox.ts';

interface ReceivedWebhook {
	headers: http.IncomingHttpHeaders;
	rawBody: Buffer;
}

/** A webhook receiver on a free loopback port, keeping each request's raw bytes. */
async function startReceiver() {
	const received: ReceivedWebhook[] = [];
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			received.push({ headers: req.headers, rawBody: Buffer.concat(chunks) });
			res.writeHead(200).end();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
		received,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** A call made through the Unified API, its events sent to a receiver here: its call.completed. */
async function callCompletedEvent(sandbox: Sandbox): Promise<ReceivedWebhook> {
	const receiver = await startReceiver();
	try {
		sandbox.reset();
		const response = await fetch(sandbox.unifiedUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				service: 'voice',
				action: 'make_call',
				api_key: sandbox.credentials.unified.live,
				data: {
					to: '+447700900123',
					message: 'Hello, this is a reminder of your appointment tomorrow at 10:00.',
					webhook_url: receiver.url,
				},
			}),
		});
		await response.text();
		if (!response.ok) throw new Error(`make_call answered ${response.status}`);
		await sandbox.control.advanceClock(600);
		await sandbox.control.flushWebhooks();
		const webhook = receiver.received.find(
			(r) => r.headers['x-webhook-event'] === 'call.completed',
		);
		if (!webhook) throw new Error('The sandbox delivered no call.completed event');
		return webhook;
	} finally {
		await receiver.close();
	}
}

/** Calls of `check` for about `durationMs` (after a 200 ms warm-up), and how many it passed. */
function checksPerSecond(check: () => boolean, durationMs: number, outcome: string) {
	timed(check, 200); // warm-up
	let passed = 0;
	const { count, ms } = timed(() => {
		if (check()) passed++;
	}, durationMs);
	return {
		verifications: count,
		[outcome]: passed,
		ms: Math.round(ms),
		verificationsPerSecond: Math.round((count * 1000) / ms),
		microsecondsPerVerification: +((ms * 1000) / count).toFixed(2),
	};
}

/**
 * Signature checks per second of a real signed event: the sandbox's call.completed, as it
 * reached a receiver (the raw bytes and the x-signature header), through the check the
 * Comms Unified Trigger runs (checkSignature), with the right signature and a wrong one.
 */
export async function verificationBench({ durationMs = 1000 } = {}) {
	const { checkSignature, verifySignature } = signatureModule();
	return withSandbox(async (sandbox) => {
		const webhook = await callCompletedEvent(sandbox);
		const secret = sandbox.credentials.webhookSecret;
		const header = String(webhook.headers['x-signature']);
		const last = header.at(-1) === '0' ? '1' : '0';
		const wrongHeader = header.slice(0, -1) + last;
		const valid: SignatureInput = { rawBody: webhook.rawBody, header, secret };
		const wrong: SignatureInput = { rawBody: webhook.rawBody, header: wrongHeader, secret };

		// What the API defines: 'valid' for the right signature, 'mismatch' for a wrong one.
		if (checkSignature(valid) !== 'valid' || verifySignature(valid) !== true)
			throw new Error('The sandbox event did not verify');
		if (checkSignature(wrong) !== 'mismatch' || verifySignature(wrong) !== false)
			throw new Error('A wrong signature was not rejected');

		const right = checksPerSecond(() => checkSignature(valid) === 'valid', durationMs, 'accepted');
		const bad = checksPerSecond(() => checkSignature(wrong) === 'mismatch', durationMs, 'rejected');
		return {
			scenario: 'Webhook signature check (HMAC-SHA256 of the raw body, constant-time compare)',
			function: 'checkSignature (build/nodes/CommsUnified/trigger/signature.js)',
			event: JSON.parse(webhook.rawBody.toString('utf8')).event as string,
			bodyBytes: webhook.rawBody.length,
			rightSignature: right,
			wrongSignature: bad,
		};
	});
}
