/**
 * A programmable HTTP server on a loopback port, for transport behaviour the sandbox cannot
 * show: a server that echoes the key back, drops the connection, or answers oddly.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
	method: string;
	url: string;
	headers: http.IncomingHttpHeaders;
	body: string;
	/** The body's bytes as received. */
	rawBody: Buffer;
	/** When the request had arrived in full (Date.now()). */
	at: number;
}

export type Reply =
	| {
			status: number;
			body?: unknown;
			headers?: Record<string, string>;
			/** Leave out the Date header (as some gateways do). */
			noDate?: boolean;
	  }
	/** Read the request, then destroy the socket without answering. */
	| { drop: true };

export interface StubServer {
	url: string;
	received: Received[];
	/** Replies used in order; the last one repeats. */
	reply(...replies: Reply[]): void;
	close(): Promise<void>;
}

export async function startStubServer(): Promise<StubServer> {
	const received: Received[] = [];
	let replies: Reply[] = [{ status: 200, body: { success: true } }];
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const rawBody = Buffer.concat(chunks);
			received.push({
				method: req.method ?? '',
				url: req.url ?? '',
				headers: req.headers,
				body: rawBody.toString('utf8'),
				rawBody,
				at: Date.now(),
			});
			const reply = replies.length > 1 ? replies.shift()! : replies[0];
			if ('drop' in reply) {
				req.socket.destroy();
				return;
			}
			if (reply.noDate) res.sendDate = false;
			const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
			res.writeHead(reply.status, {
				'content-type': typeof reply.body === 'string' ? 'text/plain' : 'application/json',
				...reply.headers,
			});
			res.end(text);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		received,
		reply: (...next) => {
			replies = next;
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/**
 * One stub server per test file (or describe block), its `received` emptied before each test,
 * and its replies set to `reply` then when given (otherwise they carry over between tests).
 */
export function useStubServer({ reply }: { reply?: Reply } = {}): () => StubServer {
	let stub: StubServer | undefined;
	beforeAll(async () => {
		stub = await startStubServer();
	});
	afterAll(() => stub?.close());
	beforeEach(() => {
		if (!stub) return;
		stub.received.length = 0;
		if (reply) stub.reply(reply);
	});
	return () => {
		if (!stub) throw new Error('The stub server is not running');
		return stub;
	};
}
