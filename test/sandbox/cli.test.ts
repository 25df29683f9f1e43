import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';

import { ACCOUNT_KEYS, UNIFIED_KEYS, WEBHOOK_SECRET, startSandbox } from '../../sandbox';
import { banner, parseArgs } from '../../sandbox/cli';
import { http } from '../support/sandbox';

const root = resolve(__dirname, '../..');

describe('command line arguments', () => {
	it('defaults to port 4010 and newestFirst', () => {
		expect(parseArgs([])).toEqual({ port: 4010, smsOrder: 'newestFirst', quiet: false });
	});

	it('reads --port, --sms-order and --quiet in both spellings', () => {
		expect(parseArgs(['--port', '5000', '--sms-order', 'oldestFirst', '--quiet'])).toEqual({
			port: 5000,
			smsOrder: 'oldestFirst',
			quiet: true,
		});
		expect(parseArgs(['--port=0', '--sms-order=newestFirst'])).toEqual({
			port: 0,
			smsOrder: 'newestFirst',
			quiet: false,
		});
	});

	it('refuses bad values and unknown flags, and offers help', () => {
		expect(parseArgs(['--port', 'x'])).toEqual({ error: expect.stringContaining('--port') });
		expect(parseArgs(['--port', '70000'])).toEqual({ error: expect.stringContaining('--port') });
		expect(parseArgs(['--sms-order', 'random'])).toEqual({
			error: expect.stringContaining('newestFirst'),
		});
		expect(parseArgs(['--verbose'])).toEqual({ error: 'unknown option --verbose' });
		expect(parseArgs(['--help'])).toEqual({ help: true });
	});
});

describe('banner', () => {
	it('prints every credential, URL and seeded number ready to paste', async () => {
		const sandbox = await startSandbox({ port: 0 });
		try {
			const text = banner(sandbox, 'oldestFirst');
			for (const value of [
				sandbox.accountBaseUrl,
				sandbox.unifiedUrl,
				`${sandbox.url}/_sandbox`,
				...Object.values(ACCOUNT_KEYS),
				UNIFIED_KEYS.live,
				UNIFIED_KEYS.test,
				WEBHOOK_SECRET,
				'pdoc_sbx_main',
				'+441632960001',
				'x-signature',
				'SMS history order: oldestFirst',
			]) {
				expect(text).toContain(value);
			}
		} finally {
			await sandbox.stop();
		}
	});
});

describe('npm run sandbox (the compiled entry point)', () => {
	let outDir: string;

	beforeAll(() => {
		// Compile the sandbox the way tsc does for dist/sandbox, without type checking (tsc covers that).
		outDir = mkdtempSync(join(tmpdir(), 'comms-sandbox-cli-'));
		const sourceDir = join(root, 'sandbox');
		for (const file of readdirSync(sourceDir).filter((f) => f.endsWith('.ts'))) {
			const { outputText } = ts.transpileModule(readFileSync(join(sourceDir, file), 'utf8'), {
				compilerOptions: {
					module: ts.ModuleKind.CommonJS,
					target: ts.ScriptTarget.ES2022,
					esModuleInterop: true,
				},
			});
			writeFileSync(join(outDir, file.replace(/\.ts$/, '.js')), outputText);
		}
	});

	afterAll(() => rmSync(outDir, { recursive: true, force: true }));

	function run(args: string[]): {
		child: ChildProcess;
		output: () => string;
		ready: Promise<string>;
		exited: Promise<number | null>;
	} {
		const child = spawn(process.execPath, [join(outDir, 'cli.js'), ...args], {
			env: { ...process.env, NODE_PATH: join(root, 'node_modules') },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let output = '';
		const ready = new Promise<string>((resolveReady, reject) => {
			child.stdout?.on('data', (chunk: Buffer) => {
				output += chunk.toString();
				if (output.includes('Control surface:')) resolveReady(output);
			});
			child.stderr?.on('data', (chunk: Buffer) => {
				output += chunk.toString();
			});
			child.once('exit', () => reject(new Error(`exited early:\n${output}`)));
		});
		ready.catch(() => undefined); // awaited by the tests that expect a start; a bad flag never gets there
		const exited = new Promise<number | null>((resolveExit) =>
			child.once('exit', (code) => resolveExit(code)),
		);
		return { child, output: () => output, ready, exited };
	}

	it.each(['SIGINT', 'SIGTERM'] as const)(
		'serves both APIs, prints credentials and stops cleanly on %s',
		async (signal) => {
			const { child, output, ready, exited } = run(['--port', '0', '--sms-order', 'oldestFirst']);
			const text = await ready;
			const baseUrl = /Base URL\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1];
			expect(baseUrl).toBeDefined();
			expect(text).toContain(ACCOUNT_KEYS.unrestricted);
			expect(text).toContain(`${baseUrl}/unified`);
			const res = await http('GET', `${baseUrl}/v1/numbers`, {
				headers: { authorization: `Bearer ${ACCOUNT_KEYS.unrestricted}` },
			});
			expect(res.status).toBe(200);
			child.kill(signal);
			expect(await exited).toBe(0);
			expect(output()).toContain(`${signal}: stopping the sandbox`);
			expect(output()).toContain('GET /v1/numbers -> 200');
		},
	);

	it('exits with status 2 on a bad flag', async () => {
		const { exited, output } = run(['--sms-order', 'sideways']);
		expect(await exited).toBe(2);
		expect(output()).toContain('Usage: npm run sandbox');
	});
});
