/**
 * A proxy in front of a real server (the sandbox) that fails chosen requests, either before
 * they reach the server (nothing is done) or after the server has carried them out (the
 * answer is lost on the way back): the two cases a client cannot tell apart.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import { useRequestTimeout } from './sandbox';

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
	/** Forward, then answer an HTML 502 from "the proxy" instead of the server's answer (nginx's bad gateway). */
	| 'gateway502After'
	/** Forward, then destroy the connection without answering. */
	| 'dropAfter'
	/** Answer this without forwarding: the API's own refusal, say. Nothing was done. */
	| { answer: number; body: unknown }
	/**
	 * A gateway that gives up while the server is still working: answer an HTML 502 at once,
	 * and forward the request `afterMs` later (the server then carries it out).
	 */
	| { gatewayThenForward: number }
	/** Forward, and pass the server's answer on only `afterMs` later (after the client's timeout). */
	| { answerLate: number }
	/** A slow server: forward only `afterMs` later (after the client's timeout), then relay its answer. */
	| { forwardAfter: number };

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
	/** The same, for requests whose body or query contains `text` only. */
	injectWhen(method: string, path: string, text: string, ...faults: Fault[]): void;
	/**
	 * A history that shows new records late: records the proxy saw created (by a POST it
	 * forwarded) are left out of GET answers for `ms` after their creation. 0: off.
	 */
	historyLag(ms: number): void;
	/**
	 * A gateway that writes its own `Date` header on every answer, relayed or its own (nginx
	 * replaces the server's), from a clock `ms` ahead of this host's (negative: behind).
	 * undefined: the server's Date is relayed, and the proxy's own answers carry this host's.
	 */
	gatewayDate(ms: number | undefined): void;
	/** Drops every pending fault and empties the log. */
	reset(): void;
	close(): Promise<void>;
}

/** A 500 in the Account API's own error shape. */
const API_500 = JSON.stringify({
	success: false,
	error: 'internal_error',
	message: 'Unexpected failure',
});

const HTML_PAGE = (status: number) =>
	`<html><head><title>${status}</title></head><body><h1>${status} Gateway</h1><hr>proxy</body></html>`;

export async function startFaultyProxy(target: string): Promise<FaultyProxy> {
	const log: ProxiedRequest[] = [];
	let pending: Array<{ method: string; path: string; fault: Fault; text?: string }> = [];
	const upstream = new URL(target);
	let lagMs = 0;
	let dateSkewMs: number | undefined;
	const dated = (headers: Record<string, string | string[]>) =>
		dateSkewMs === undefined
			? headers
			: { ...headers, date: new Date(Date.now() + dateSkewMs).toUTCString() };
	/** Identifiers of records created through the proxy, and when. */
	const created = new Map<string, number>();
	const idsOf = (record: Record<string, unknown>) =>
		['messageId', 'id', 'callId', 'callSid']
			.map((key) => record[key])
			.filter((id): id is string => typeof id === 'string');
	const noteCreated = (text: string) => {
		try {
			const body = JSON.parse(text) as Record<string, unknown>;
			for (const id of idsOf(body)) created.set(id, Date.now());
		} catch {
			// not JSON: nothing created
		}
	};
	const lagged = (text: string): string => {
		if (!lagMs) return text;
		try {
			const body = JSON.parse(text) as Record<string, unknown>;
			for (const list of ['messages', 'calls']) {
				if (!Array.isArray(body[list])) continue;
				body[list] = (body[list] as Array<Record<string, unknown>>).filter((record) =>
					idsOf(record).every((id) => Date.now() - (created.get(id) ?? 0) >= lagMs),
				);
			}
			return JSON.stringify(body);
		} catch {
			return text;
		}
	};

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
			const at = pending.findIndex(
				(p) =>
					p.method === entry.method &&
					p.path === path &&
					(p.text === undefined ||
						entry.body.includes(p.text) ||
						decodeURIComponent(query).includes(p.text)),
			);
			const fault = at >= 0 ? pending.splice(at, 1)[0].fault : undefined;
			entry.fault = fault === 'pass' ? undefined : fault;
			const delayed = (ms: number, then: () => void) => setTimeout(then, ms).unref();

			const answer = (status: number, text: string, contentType: string) => {
				entry.status = status;
				res.writeHead(status, dated({ 'content-type': contentType }));
				res.end(text);
			};
			if (fault === 'failBefore') return answer(500, API_500, 'application/json');
			if (fault === 'gatewayBefore') return answer(502, HTML_PAGE(502), 'text/html');
			if (typeof fault === 'object' && 'answer' in fault)
				return answer(fault.answer, JSON.stringify(fault.body), 'application/json');
			const gatewayFirst = typeof fault === 'object' && 'gatewayThenForward' in fault;
			if (gatewayFirst) answer(502, HTML_PAGE(502), 'text/html');

			const headers = { ...req.headers, host: upstream.host };
			const forward = () => {
				const request = http.request(
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
							if (req.method === 'POST') noteCreated(Buffer.concat(parts).toString('utf8'));
							if (gatewayFirst) return;
							if (fault === 'failAfter') return answer(500, API_500, 'application/json');
							if (fault === 'gatewayAfter') return answer(504, HTML_PAGE(504), 'text/html');
							if (fault === 'gateway502After') return answer(502, HTML_PAGE(502), 'text/html');
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
							const text = Buffer.concat(parts).toString('utf8');
							const relay = () => {
								res.writeHead(upstreamRes.statusCode ?? 502, dated(relayed));
								res.end(req.method === 'GET' ? lagged(text) : text);
							};
							if (typeof fault === 'object' && 'answerLate' in fault)
								delayed(fault.answerLate, relay);
							else relay();
						});
					},
				);
				request.on('error', () => {
					if (!gatewayFirst) answer(502, HTML_PAGE(502), 'text/html');
				});
				request.end(body);
			};
			if (typeof fault === 'object' && 'gatewayThenForward' in fault)
				delayed(fault.gatewayThenForward, forward);
			else if (typeof fault === 'object' && 'forwardAfter' in fault)
				delayed(fault.forwardAfter, forward);
			else forward();
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
		injectWhen: (method, path, text, ...faults) => {
			pending.push(...faults.map((fault) => ({ method, path, fault, text })));
		},
		historyLag: (ms) => {
			lagMs = ms;
		},
		gatewayDate: (ms) => {
			dateSkewMs = ms;
		},
		reset: () => {
			pending = [];
			lagMs = 0;
			dateSkewMs = undefined;
			created.clear();
			log.length = 0;
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/**
 * One proxy per test file (or describe block) in front of `target()` (read once the sandbox is
 * up), emptied before each test; with `requestTimeoutMs`, `useRequestTimeout` for the file.
 */
export function useFaultyProxy(
	target: () => string,
	{ requestTimeoutMs }: { requestTimeoutMs?: number } = {},
): () => FaultyProxy {
	let proxy: FaultyProxy | undefined;
	if (requestTimeoutMs !== undefined) useRequestTimeout(requestTimeoutMs);
	beforeAll(async () => {
		proxy = await startFaultyProxy(target());
	});
	afterAll(() => proxy?.close());
	beforeEach(() => proxy?.reset());
	return () => {
		if (!proxy) throw new Error('The faulty proxy is not running');
		return proxy;
	};
}
