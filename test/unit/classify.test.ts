/**
 * "Not sent" and "refused" only on proof: the pure rules the transport decides a write's outcome
 * by (nodes/shared/transport/classify.ts, nodes/CommsAccount/api/accountApi.ts and nodes/CommsUnified/api/unifiedApi.ts), against errors Node.js really
 * raises and against thousands of generated ones, each judged by a simple model written apart.
 */
import * as net from 'node:net';

import fc from 'fast-check';

import { isAccountRefusal } from '../../nodes/CommsAccount/api/accountApi';
import { isUnifiedRefusal } from '../../nodes/CommsUnified/api/unifiedApi';
import { failureLabel, provenNotSent } from '../../nodes/shared/transport/classify';

/** A real error of a connection to a port where nothing listens. */
function refusedConnection(): Promise<Error> {
	return new Promise((resolve) => {
		const socket = net.connect(1, '127.0.0.1');
		socket.once('error', resolve);
	});
}

/** A real error of a connection reset by the server after the request was written. */
async function resetAfterWrite(): Promise<Error> {
	const server = net.createServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as net.AddressInfo;
	const error = await new Promise<Error>((resolve) => {
		const socket = net.connect(port, '127.0.0.1', () => socket.write('POST / HTTP/1.1\r\n\r\n'));
		socket.once('error', resolve);
	});
	server.close();
	return error;
}

describe('proof that nothing was sent', () => {
	it('a refused connection (the system call connect failed) is proof, as its own error or wrapped', async () => {
		const refused = await refusedConnection();
		expect(provenNotSent(refused)).toBe('ECONNREFUSED');
		const wrapped = Object.assign(new Error('connect ECONNREFUSED'), {
			code: 'ECONNREFUSED',
			cause: refused,
		});
		expect(provenNotSent(new Error('n8n', { cause: wrapped }))).toBe('ECONNREFUSED');
	});

	it('a reset after the request was written is not, whatever its code says', async () => {
		const reset = await resetAfterWrite();
		expect(provenNotSent(reset)).toBeUndefined();
		expect(failureLabel(reset)).toBe('ECONNRESET');
	});

	it.each([
		['ECONNREFUSED with no system call named', { code: 'ECONNREFUSED' }],
		[
			'a connect that timed out (the SYN may have been answered late)',
			{ code: 'ETIMEDOUT', syscall: 'connect' },
		],
		['a body cut short', { code: 'ERR_BAD_RESPONSE', message: 'stream has been aborted' }],
		['an undecodable encoding', { code: 'Z_DATA_ERROR' }],
		['an answer that is not HTTP', { code: 'HPE_INVALID_CONSTANT' }],
		['a reset while reading', { code: 'ECONNRESET', syscall: 'read' }],
		['a code nobody has seen', { code: 'E_SOMETHING_NEW', syscall: 'connect' }],
		['no code at all', { message: 'socket hang up' }],
	])('%s is not proof', (_, facts) => {
		expect(provenNotSent(Object.assign(new Error('x'), facts))).toBeUndefined();
	});

	it("n8n's own refusal (its SSRF protection), a bad URL and the credential's rules are proof", () => {
		const ssrf = Object.assign(new Error('blocked'), { name: 'SsrfBlockedIpError' });
		expect(provenNotSent(new Error('wrapped', { cause: ssrf }))).toBe('n8n refused the address');
		expect(
			provenNotSent(Object.assign(new TypeError('Invalid URL'), { code: 'ERR_INVALID_URL' })),
		).toBe('ERR_INVALID_URL');
		class RuleError extends Error {}
		expect(provenNotSent(new RuleError('http:// refused'), (e) => e instanceof RuleError)).toBe(
			'the credential refused it',
		);
	});

	it('every address of a host refused: proof; one of them reset: not', () => {
		const refused = () =>
			Object.assign(new Error('r'), { code: 'ECONNREFUSED', syscall: 'connect' });
		const all = Object.assign(new AggregateError([refused(), refused()]), { code: 'ECONNREFUSED' });
		expect(provenNotSent(all)).toBe('ECONNREFUSED');
		const mixed = new AggregateError([
			refused(),
			Object.assign(new Error('x'), { code: 'ECONNRESET', syscall: 'read' }),
		]);
		expect(provenNotSent(mixed)).toBeUndefined();
	});

	it('generated error chains: proof only where the model finds a proof shape', () => {
		const connectCodes = [
			'ECONNREFUSED',
			'ENETUNREACH',
			'EHOSTUNREACH',
			'EADDRNOTAVAIL',
			'ENETDOWN',
		];
		const dnsCodes = ['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA'];
		const anyCode = fc.constantFrom(
			...connectCodes,
			...dnsCodes,
			'ECONNRESET',
			'EPIPE',
			'ETIMEDOUT',
			'ECONNABORTED',
			'ERR_BAD_RESPONSE',
			'ERR_CANCELED',
			'Z_DATA_ERROR',
			'Z_BUF_ERROR',
			'HPE_INVALID_CONSTANT',
			'UND_ERR_SOCKET',
			'ERR_INVALID_URL',
			undefined,
		);
		const anySyscall = fc.constantFrom('connect', 'getaddrinfo', 'read', 'write', undefined);
		const anyName = fc.constantFrom(
			'Error',
			'AxiosError',
			'NodeApiError',
			'SsrfBlockedIpError',
			'AbortError',
		);
		const link = fc.record({ code: anyCode, syscall: anySyscall, name: anyName });
		const chain = fc.array(link, { minLength: 1, maxLength: 5 });
		/** The model: a link that is one of the proofs, judged without the module's tables. */
		const isProof = (l: { code?: string; syscall?: string; name: string }) =>
			l.name === 'SsrfBlockedIpError' ||
			l.code === 'ERR_INVALID_URL' ||
			(l.syscall === 'connect' && connectCodes.includes(l.code ?? '')) ||
			(l.syscall === 'getaddrinfo' && dnsCodes.includes(l.code ?? ''));
		fc.assert(
			fc.property(chain, (links) => {
				let error: unknown;
				for (const l of [...links].reverse())
					error = Object.assign(
						new Error('e', { cause: error }),
						{
							...(l.code ? { code: l.code } : {}),
							...(l.syscall ? { syscall: l.syscall } : {}),
						},
						{ name: l.name },
					);
				expect(provenNotSent(error) !== undefined).toBe(links.some(isProof));
			}),
			{ numRuns: 5_000 },
		);
	});
});

describe("the APIs' documented refusals", () => {
	const accountError = (error: string) => ({ success: false, error, message: 'm' });
	const unifiedError = (code: string) => ({ success: false, code, message: 'm' });

	it('Account: its error shape with a status its documentation gives as a refusal', () => {
		for (const status of [400, 401, 402, 403, 404, 405, 502])
			expect(isAccountRefusal(status, accountError('anything'))).toBe(true);
		for (const status of [200, 201, 409, 413, 422, 429, 500, 503, 504])
			expect(isAccountRefusal(status, accountError('invalid_number'))).toBe(false);
		expect(isAccountRefusal(400, '<html>400</html>')).toBe(false);
		expect(isAccountRefusal(400, { error: 'x' })).toBe(false);
	});

	it('Unified: its error envelope with one of the four codes that say nothing was done, under any status', () => {
		for (const code of [
			'MISSING_API_KEY',
			'INVALID_API_KEY',
			'INSUFFICIENT_CREDITS',
			'SERVICE_UNAVAILABLE',
		])
			// Its documentation gives no status per code: the status is not read.
			expect(isUnifiedRefusal(unifiedError(code))).toBe(true);
		for (const code of ['INTERNAL_ERROR', 'INVALID_PARAMETERS', 'CARRIER_ERROR', 'NEW_CODE'])
			expect(isUnifiedRefusal(unifiedError(code))).toBe(false);
	});

	it('generated answers: refused only in the documented shapes', () => {
		const body = fc.oneof(
			fc.record(
				{ success: fc.boolean(), error: fc.string(), code: fc.string(), message: fc.string() },
				{ requiredKeys: [] },
			),
			fc.string(),
			fc.constant(null),
		);
		fc.assert(
			fc.property(fc.integer({ min: 100, max: 599 }), body, (status, answer) => {
				const shaped = typeof answer === 'object' && answer !== null && answer.success === false;
				expect(isAccountRefusal(status, answer)).toBe(
					shaped &&
						typeof answer.error === 'string' &&
						[400, 401, 402, 403, 404, 405, 502].includes(status),
				);
				expect(isUnifiedRefusal(answer)).toBe(
					shaped &&
						[
							'MISSING_API_KEY',
							'INVALID_API_KEY',
							'INSUFFICIENT_CREDITS',
							'SERVICE_UNAVAILABLE',
						].includes(answer.code as string),
				);
			}),
			{ numRuns: 5_000 },
		);
	});
});
