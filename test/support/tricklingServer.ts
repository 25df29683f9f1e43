/**
 * A server that answers at once with its status and headers, then sends its body a byte at a
 * time, so slowly that the whole answer takes `totalMs`: the socket is never idle, so only a
 * timeout on the whole request can end it early. Requests after the first `trickle` are
 * answered at once with the same body.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TricklingServer {
	url: string;
	/** Requests received, oldest first. */
	received: Array<{ method: string; url: string; at: number }>;
	close(): Promise<void>;
}

export async function startTricklingServer({
	status = 200,
	body,
	everyMs = 100,
	totalMs = 8_000,
	trickle = Infinity,
}: {
	status?: number;
	body: unknown;
	everyMs?: number;
	totalMs?: number;
	/** How many requests are trickled; later ones are answered at once. */
	trickle?: number;
}): Promise<TricklingServer> {
	const received: TricklingServer['received'] = [];
	const timers = new Set<NodeJS.Timeout>();
	const server = http.createServer((req, res) => {
		req.resume();
		req.on('end', () => {
			received.push({ method: req.method ?? '', url: req.url ?? '', at: Date.now() });
			const text = JSON.stringify(body);
			res.writeHead(status, { 'content-type': 'application/json' });
			if (received.length > trickle) {
				res.end(text);
				return;
			}
			// The JSON first, then white space (which JSON allows after it) a byte at a time.
			res.write(text);
			let left = Math.ceil(totalMs / everyMs);
			const timer = setInterval(() => {
				if (res.destroyed || --left <= 0) {
					clearInterval(timer);
					timers.delete(timer);
					if (!res.destroyed) res.end(' ');
					return;
				}
				res.write(' ');
			}, everyMs);
			timers.add(timer);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		received,
		close: () =>
			new Promise<void>((resolve) => {
				for (const timer of timers) clearInterval(timer);
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
