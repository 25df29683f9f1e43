// A loopback HTTP server that keeps every JSON body POSTed to it. Live workflows end in an
// HTTP Request node that posts each item here, so a check can count exactly which items each
// execution produced without reading n8n's database.

import http from 'node:http';
import type net from 'node:net';
import type { Json, WorkflowNode } from './types.ts';

export interface Collected {
	path: string | undefined;
	body: Json;
	at: number;
}

export interface Collector {
	url: string;
	bodies(path: string): Json[];
	stop(): Promise<void>;
}

export async function startCollector(): Promise<Collector> {
	const received: Collected[] = [];
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			let body: Json = text;
			try {
				body = JSON.parse(text);
			} catch {
				// Keep the text.
			}
			received.push({ path: req.url, body, at: Date.now() });
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end('{"ok":true}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
	return {
		url,
		/** Bodies POSTed to `path`, in arrival order. */
		bodies: (path: string) => received.filter((r) => r.path === path).map((r) => r.body),
		stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/** An n8n HTTP Request node that POSTs each item's json to the collector at `path`. */
export function collectNode(
	name: string,
	collectorUrlExpression: string,
	path: string,
	position: [number, number],
): WorkflowNode {
	return {
		id: `collect-${path.replace(/\W/g, '')}`,
		name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position,
		parameters: {
			method: 'POST',
			url: `${collectorUrlExpression}${path}`,
			sendBody: true,
			specifyBody: 'json',
			jsonBody: '={{ JSON.stringify($json) }}',
			options: {},
		},
	};
}
