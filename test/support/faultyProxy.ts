/**
 * A proxy in front of a real server (the sandbox) that fails chosen requests, either before
 * they reach the server (nothing is done) or after the server has carried them out (the
 * answer is lost on the way back): the two cases a client cannot tell apart.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault =
	/** Forward untouched (to fault a later request, not this one). */
	| 'pass'
	/** Answer 500 in the API's error shape without forwarding: nothing was done. */
	| 'failBefore'
	/** Answer an HTML 502 from "the proxy" without forwarding: nothing was done. */
	| 'gatewayBefore'
	/** Forward, then answer 500 in the API's error shape instead of the server's answer. */
	| 'failAfter'
	/** Forward, then answer an HTML 504 from "the proxy" instead of the server's answer. */
	| 'gatewayAfter'
	/** Forward, then destroy the connection without answering. */
	| 'dropAfter';

export interface ProxiedRequest {
	method: string;
	path: string;
	query: string;
	body: string;
	/** The fault applied, if any. */
	fault?: Fault;
	/** The status the client received (undefined when the connection was dropped). */
	status?: number;
	/** The status the server answered, when the request reached it. */
	serverStatus?: number;
}

export interface FaultyProxy {
	url: string;
	log: ProxiedRequest[];
	/** The next requests matching `method` and `path` get these faults, one each, in order. */
	inject(method: string, path: string, ...faults: Fault[]): void;
	/** Drops every pending fault and empties the log. */
	reset(): void;
	close(): Promise<void>;
}

const HTML_PAGE = (status: number) =>
	`<html><head><title>${status}</title></head><body><h1>${status} Gateway</h1><hr>proxy</body></html>`;

export async function startFaultyProxy(target: string): Promise<FaultyProxy> {
	const log: ProxiedRequest[] = [];
	let pending: Array<{ method: string; path: string; fault: Fault }> = [];
	const upstream = new URL(target);

	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const body = Buffer.concat(chunks);
			const [path, query = ''] = (req.url ?? '/').split('?');
			const entry: ProxiedRequest = {
				method: req.method ?? '',
				path,
				query,
				body: body.toString('utf8'),
			};
			log.push(entry);
			const at = pending.findIndex((p) => p.method === entry.method && p.path === path);
			const fault = at >= 0 ? pending.splice(at, 1)[0].fault : undefined;
			entry.fault = fault === 'pass' ? undefined : fault;

			const answer = (status: number, text: string, contentType: string) => {
				entry.status = status;
				res.writeHead(status, { 'content-type': contentType });
				res.end(text);
			};
			if (fault === 'failBefore')
				return answer(
					500,
					JSON.stringify({
						success: false,
						error: 'internal_error',
						message: 'Unexpected failure',
					}),
					'application/json',
				);
			if (fault === 'gatewayBefore') return answer(502, HTML_PAGE(502), 'text/html');

			const headers = { ...req.headers, host: upstream.host };
			const forward = http.request(
				{
					hostname: upstream.hostname,
					port: upstream.port,
					method: req.method,
					path: req.url,
					headers,
				},
				(upstreamRes) => {
					const parts: Buffer[] = [];
					upstreamRes.on('data', (chunk: Buffer) => parts.push(chunk));
					upstreamRes.on('end', () => {
						entry.serverStatus = upstreamRes.statusCode;
						if (fault === 'failAfter')
							return answer(
								500,
								JSON.stringify({
									success: false,
									error: 'internal_error',
									message: 'Unexpected failure',
								}),
								'application/json',
							);
						if (fault === 'gatewayAfter') return answer(504, HTML_PAGE(504), 'text/html');
						if (fault === 'dropAfter') {
							req.socket.destroy();
							return;
						}
						entry.status = upstreamRes.statusCode;
						const relayed: Record<string, string | string[]> = {};
						for (const name of ['content-type', 'retry-after', 'date', 'allow']) {
							const value = upstreamRes.headers[name];
							if (value !== undefined) relayed[name] = value;
						}
						res.writeHead(upstreamRes.statusCode ?? 502, relayed);
						res.end(Buffer.concat(parts));
					});
				},
			);
			forward.on('error', () => answer(502, HTML_PAGE(502), 'text/html'));
			forward.end(body);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		log,
		inject: (method, path, ...faults) => {
			pending.push(...faults.map((fault) => ({ method, path, fault })));
		},
		reset: () => {
			pending = [];
			log.length = 0;
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
