/**
 * A proxy in front of a real server (the sandbox) that breaks an HTTP exchange at a chosen point,
 * byte by byte on the client's side: before the server acts, after it acted, or while its answer
 * is on the way back. It speaks raw HTTP/1.1 on the socket, so it can send what no well-behaved
 * server would (a wrong Content-Length, a corrupt gzip body, a body slower than any timeout).
 *
 * `schedule` decides the fault of each request from its method, path and body (reads usually
 * pass). The proxy's log says what reached it and whether the server was asked; the server's own
 * log (the sandbox's) says what was done.
 */
import * as http from 'node:http';
import * as net from 'node:net';
import { gzipSync } from 'node:zlib';

export const FAULT_POINTS = [
	/** Connection refused: nothing listens (see `refusingUrl`). Proven not sent. */
	'refuse',
	/** The request arrives; the connection is reset before the server is asked. */
	'resetAfterRequestHeaders',
	/** The server acts; the connection is reset before any answer. */
	'resetAfterRequestBody',
	/** The server acts; the answer's status line and headers arrive, then a reset. */
	'resetAfterResponseHeaders',
	/** The server acts; half the answer's body arrives, then a reset. */
	'resetMidBody',
	/** The server acts; the answer declares more bytes than it sends, then the connection closes. */
	'contentLengthTooLong',
	/** The server acts; the answer declares fewer bytes than its body (the JSON is cut short). */
	'contentLengthTooShort',
	/** The server acts; the answer says gzip and its body is not valid gzip. */
	'corruptGzip',
	/** The server acts; the body trickles a byte at a time, slower than the client's timeout. */
	'slowBody',
	/** The server acts; a proxy answers 200 with an HTML page instead. */
	'html2xx',
	/** A proxy answers an HTML 502 without asking the server. */
	'html5xxBefore',
	/** The server acts; a proxy answers an HTML 502 instead. */
	'html5xxAfter',
] as const;

export type FaultPoint = (typeof FAULT_POINTS)[number];

/** Whether the server acted on a request that met this fault (refuse: nothing reached anything). */
export const SERVER_ACTS: Record<FaultPoint, boolean> = {
	refuse: false,
	resetAfterRequestHeaders: false,
	resetAfterRequestBody: true,
	resetAfterResponseHeaders: true,
	resetMidBody: true,
	contentLengthTooLong: true,
	contentLengthTooShort: true,
	corruptGzip: true,
	slowBody: true,
	html2xx: true,
	html5xxBefore: false,
	html5xxAfter: true,
};

export interface ProxiedExchange {
	method: string;
	path: string;
	body: string;
	fault?: FaultPoint;
	/** The server's status, when it was asked. */
	serverStatus?: number;
}

export interface FaultPointProxy {
	url: string;
	log: ProxiedExchange[];
	close(): Promise<void>;
}

export type Schedule = (request: {
	method: string;
	path: string;
	body: string;
}) => FaultPoint | 'pass';

/**
 * A schedule over the writes of a run's items, each told by its key in the request body: the
 * `attempt`th POST of item `item` (both from 0) meets `fault(item, attempt)`; anything else passes.
 */
export function faultsByAttempt(
	keys: string[],
	fault: (item: number, attempt: number) => FaultPoint | 'pass',
): Schedule {
	const attempts = keys.map(() => 0);
	return ({ method, body }) => {
		const item = method === 'POST' ? keys.findIndex((key) => body.includes(key)) : -1;
		return item < 0 ? 'pass' : fault(item, attempts[item]++);
	};
}

const HTML = (status: number) =>
	`<html><head><title>${status}</title></head><body><h1>${status}</h1><p>proxy</p></body></html>`;

const REASONS: Record<number, string> = { 200: 'OK', 201: 'Created', 502: 'Bad Gateway' };

function headOf(status: number, headers: Record<string, string | number>): string {
	const lines = [`HTTP/1.1 ${status} ${REASONS[status] ?? 'Status'}`];
	for (const [name, value] of Object.entries({ ...headers, connection: 'close' }))
		lines.push(`${name}: ${value}`);
	return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Parses one HTTP/1.1 request off a socket; resolves once its whole body has arrived. */
function readRequest(
	socket: net.Socket,
): Promise<{ method: string; path: string; headers: Record<string, string>; body: Buffer }> {
	return new Promise((resolve, reject) => {
		let buffered = Buffer.alloc(0);
		const onData = (chunk: Buffer) => {
			buffered = Buffer.concat([buffered, chunk]);
			const end = buffered.indexOf('\r\n\r\n');
			if (end < 0) return;
			const [requestLine, ...lines] = buffered.subarray(0, end).toString('latin1').split('\r\n');
			const headers: Record<string, string> = {};
			for (const line of lines) {
				const at = line.indexOf(':');
				headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
			}
			const length = Number(headers['content-length'] ?? 0);
			if (buffered.length < end + 4 + length) return;
			socket.off('data', onData);
			const [method, path] = requestLine.split(' ');
			resolve({ method, path, headers, body: buffered.subarray(end + 4, end + 4 + length) });
		};
		socket.on('data', onData);
		socket.once('error', reject);
	});
}

/** Asks the server, as the client would have. */
function forward(
	target: URL,
	request: { method: string; path: string; headers: Record<string, string>; body: Buffer },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
	return new Promise((resolve, reject) => {
		const headers: Record<string, string> = { ...request.headers, host: target.host };
		delete headers['accept-encoding'];
		const upstream = http.request(
			{
				hostname: target.hostname,
				port: target.port,
				method: request.method,
				path: request.path,
				headers,
			},
			(response) => {
				const parts: Buffer[] = [];
				response.on('data', (chunk: Buffer) => parts.push(chunk));
				response.on('end', () =>
					resolve({
						status: response.statusCode ?? 502,
						headers: response.headers,
						body: Buffer.concat(parts),
					}),
				);
			},
		);
		upstream.on('error', reject);
		upstream.end(request.body);
	});
}

/**
 * Starts the proxy. `slowByteMs`: how long the slow body waits between bytes (longer than the
 * client's whole-request timeout divided by the body's length is enough; it stops when the client
 * gives up). `gatewayDateMs`: the proxy is a gateway that writes its own `Date` header on every
 * answer (relayed or its own, as nginx does) from a clock that far ahead of this host's (negative:
 * behind); without it the server's is relayed and the proxy's own answers carry none.
 */
export async function startFaultPointProxy(
	target: string,
	schedule: Schedule,
	{ slowByteMs = 400, gatewayDateMs }: { slowByteMs?: number; gatewayDateMs?: number } = {},
): Promise<FaultPointProxy> {
	const head = (status: number, headers: Record<string, string | number>) =>
		headOf(
			status,
			gatewayDateMs === undefined
				? headers
				: { ...headers, date: new Date(Date.now() + gatewayDateMs).toUTCString() },
		);
	const upstream = new URL(target);
	const log: ProxiedExchange[] = [];
	const sockets = new Set<net.Socket>();

	const server = net.createServer((socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
		socket.on('error', () => undefined);
		void (async () => {
			const request = await readRequest(socket);
			const body = request.body.toString('utf8');
			const decided = schedule({ method: request.method, path: request.path, body });
			const fault = decided === 'pass' || decided === 'refuse' ? undefined : decided;
			const entry: ProxiedExchange = { method: request.method, path: request.path, body, fault };
			log.push(entry);
			if (fault === 'resetAfterRequestHeaders') return socket.resetAndDestroy();
			if (fault === 'html5xxBefore') {
				const page = HTML(502);
				return socket.end(
					head(502, { 'content-type': 'text/html', 'content-length': page.length }) + page,
				);
			}
			const answer = await forward(upstream, request);
			entry.serverStatus = answer.status;
			const relayed: Record<string, string | number> = {};
			for (const name of ['content-type', 'date', 'retry-after']) {
				const value = answer.headers[name];
				if (typeof value === 'string') relayed[name] = value;
			}
			const length = answer.body.length;
			const later = (fn: () => void) => setTimeout(fn, 20).unref();
			switch (fault) {
				case undefined:
					return socket.end(
						Buffer.concat([
							Buffer.from(head(answer.status, { ...relayed, 'content-length': length })),
							answer.body,
						]),
					);
				case 'resetAfterRequestBody':
					return socket.resetAndDestroy();
				case 'resetAfterResponseHeaders':
					socket.write(head(answer.status, { ...relayed, 'content-length': length }));
					return later(() => socket.resetAndDestroy());
				case 'resetMidBody':
					socket.write(
						Buffer.concat([
							Buffer.from(head(answer.status, { ...relayed, 'content-length': length })),
							answer.body.subarray(0, Math.floor(length / 2)),
						]),
					);
					return later(() => socket.resetAndDestroy());
				case 'contentLengthTooLong':
					return socket.end(
						Buffer.concat([
							Buffer.from(head(answer.status, { ...relayed, 'content-length': length + 25 })),
							answer.body,
						]),
					);
				case 'contentLengthTooShort':
					return socket.end(
						Buffer.concat([
							Buffer.from(
								head(answer.status, { ...relayed, 'content-length': Math.max(1, length - 10) }),
							),
							answer.body,
						]),
					);
				case 'corruptGzip': {
					const zipped = gzipSync(answer.body);
					// Bytes flipped past the gzip header: the inflater stops on bad data.
					for (let i = 12; i < zipped.length - 8; i += 3) zipped[i] ^= 0x5a;
					return socket.end(
						Buffer.concat([
							Buffer.from(
								head(answer.status, {
									...relayed,
									'content-encoding': 'gzip',
									'content-length': zipped.length,
								}),
							),
							zipped,
						]),
					);
				}
				case 'slowBody': {
					socket.write(head(answer.status, { ...relayed, 'content-length': length }));
					let sent = 0;
					const drip = setInterval(() => {
						if (socket.destroyed || sent >= length) {
							clearInterval(drip);
							if (!socket.destroyed) socket.end();
							return;
						}
						socket.write(answer.body.subarray(sent, sent + 1));
						sent++;
					}, slowByteMs);
					drip.unref();
					return;
				}
				case 'html2xx': {
					const page = HTML(200);
					return socket.end(
						head(200, { 'content-type': 'text/html', 'content-length': page.length }) + page,
					);
				}
				case 'html5xxAfter': {
					const page = HTML(502);
					return socket.end(
						head(502, { 'content-type': 'text/html', 'content-length': page.length }) + page,
					);
				}
			}
		})().catch(() => socket.destroy());
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as net.AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		log,
		close: () =>
			new Promise<void>((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}

/**
 * An address on this machine where nothing listens, so every connection to it is refused: a
 * privileged port no service here uses (a port freed after listen(0) could be handed to another
 * server a moment later). Checked before it is given.
 */
export async function refusingUrl(): Promise<string> {
	for (const port of [1, 3, 5, 7, 11, 13, 17, 19]) {
		const refused = await new Promise<boolean>((resolve) => {
			const socket = net.connect(port, '127.0.0.1');
			socket.once('connect', () => {
				socket.destroy();
				resolve(false);
			});
			socket.once('error', (error: NodeJS.ErrnoException) =>
				resolve(error.code === 'ECONNREFUSED'),
			);
		});
		if (refused) return `http://127.0.0.1:${port}`;
	}
	throw new Error('No refusing port found on 127.0.0.1');
}
