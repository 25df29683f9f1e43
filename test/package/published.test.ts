/**
 * What the published package holds, checked on the real thing: the package is built afresh
 * (`npm run build:package`: tsc module by module into dist/, libphonenumber-js bundled once,
 * icons and codex files copied), `npm pack` makes the tarball, and its unpacked copy beside a
 * node_modules holding only n8n-workflow (what n8n gives a community package) is loaded with
 * n8n-core's own PackageDirectoryLoader.
 *
 * - the tarball holds exactly dist/, README.md, LICENSE, CHANGELOG.md and package.json, and
 *   dist/ holds the compiled sources, the codex files and the icons, nothing else;
 * - no runtime dependency: every file requires only n8n-workflow, the built-ins n8n's scanner
 *   allows, and files of the package itself; libphonenumber-js is in one file of its own;
 * - every node and credential loads and names icons that ship;
 * - the nodes share one nodes/shared/ in the built output: exactly one file defines the
 *   limiter registry, and two nodes loaded as n8n loads them count their requests on one
 *   limiter per key (the README promises limits kept per key across every node);
 * - test-only setters are reached by nothing the package runs;
 * - on the oldest Node.js package.json's engines allows (support/oldestNode.ts): every shipped
 *   file loads and every node and credential constructs, the unit tests of what ships pass,
 *   `npm install --engine-strict` takes the tarball, and the build targets follow that Node.js.
 */
import { execFileSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { PackageDirectoryLoader } from 'n8n-core';
import type { Icon, INodeType } from 'n8n-workflow';

import { PollHarness, runWorkflow, singleNodeWorkflow } from '../../harness';
import type { RateLimit, RateLimiter } from '../../nodes/shared/transport/pacing';
import type { limiterScope } from '../../nodes/shared/transport';
import {
	ensureOldestNode,
	ES_EDITION_OF_NODE,
	LOAD_EVERYTHING,
	runWith,
	shippedCodeUnitTests,
} from '../support/oldestNode';
import { accountCredentials, useSandbox } from '../support/sandbox';

const root = path.join(__dirname, '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
	name: string;
	engines: { node: string };
	dependencies?: Record<string, string>;
	n8n: { nodes: string[]; credentials: string[] };
};
const entries = [...manifest.n8n.nodes, ...manifest.n8n.credentials];

/** What the scanner's no-restricted-imports allows that a file of ours may need at run time. */
const ALLOWED_AT_RUN_TIME = new Set(['n8n-workflow', 'crypto', 'node:crypto']);
/** The one file libphonenumber-js is bundled into. */
const VENDOR = 'dist/nodes/shared/parameters/vendor/libphonenumber.js';

let tarballFiles: string[];
let tarball: string;
let workDir: string;
/** The unpacked tarball, as n8n installs it: <workDir>/node_modules/n8n-nodes-comms-api. */
let installed: string;

function npm(...args: string[]): string {
	const npmCli = process.env.npm_execpath;
	const [command, prefix] = npmCli ? [process.execPath, [npmCli]] : ['npm', []];
	return execFileSync(command, [...prefix, ...args], {
		cwd: root,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
	});
}

beforeAll(() => {
	npm('run', 'build:package', '--silent');
	workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'comms-published-'));
	const [{ filename, files }] = JSON.parse(
		npm('pack', '--json', '--ignore-scripts', '--pack-destination', workDir),
	) as Array<{ filename: string; files: Array<{ path: string }> }>;
	tarballFiles = files.map((file) => file.path).sort();
	tarball = path.join(workDir, path.basename(filename));
	// Unpacked where n8n puts a community package, with n8n-workflow as its only neighbour.
	const modules = path.join(workDir, 'node_modules');
	fs.mkdirSync(modules);
	execFileSync('tar', ['-xzf', tarball, '-C', workDir]);
	installed = path.join(modules, manifest.name);
	fs.renameSync(path.join(workDir, 'package'), installed);
	fs.symlinkSync(
		path.join(root, 'node_modules', 'n8n-workflow'),
		path.join(modules, 'n8n-workflow'),
	);
}, 180_000);

afterAll(() => {
	if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

/** `dist/nodes/CommsAccount/CommsAccount.node.js` -> `commsAccount`, as our classes name their type. */
const typeName = (entry: string) => {
	const className = path.basename(entry).split('.')[0];
	return className[0].toLowerCase() + className.slice(1);
};
const typeNames = (list: string[]) => list.map(typeName).sort();
/** The Account API's polling trigger, whatever package.json calls it. */
const ACCOUNT_TRIGGER = typeName(
	manifest.n8n.nodes.find((entry) => /CommsAccount\w*Trigger/.test(entry))!,
);

const distJs = () => tarballFiles.filter((file) => file.endsWith('.js'));
const read = (file: string) => fs.readFileSync(path.join(installed, file), 'utf8');

/**
 * What dist/ should hold, from the source tree: every `.ts` under nodes/ and credentials/ as the
 * `.js` tsc makes of it, and the files gulp copies (codex files, icons) as they are.
 */
function expectedDist(): string[] {
	const out: string[] = [];
	const walk = (dir: string) => {
		for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
			const relative = path.posix.join(dir, entry.name);
			if (entry.isDirectory()) walk(relative);
			else if (entry.name.endsWith('.ts')) out.push(`dist/${relative.replace(/\.ts$/, '.js')}`);
			else if (/\.node\.json$|\.(png|svg)$/.test(entry.name)) out.push(`dist/${relative}`);
		}
	};
	walk('nodes');
	walk('credentials');
	walk('icons');
	return out.sort();
}

describe('the published package', () => {
	it('holds exactly dist/, README.md, LICENSE, CHANGELOG.md and package.json', () => {
		const outsideDist = tarballFiles.filter((file) => !file.startsWith('dist/'));
		expect(outsideDist).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json']);
	});

	it('holds in dist/ the compiled nodes and credentials, the codex files and the icons, nothing else', () => {
		const inDist = tarballFiles.filter((file) => file.startsWith('dist/'));
		expect(inDist).toEqual(expectedDist());
		// Each node's codex file is among them.
		for (const entry of manifest.n8n.nodes)
			expect(inDist).toContain(entry.replace(/\.js$/, '.json'));
	});

	it('declares no runtime dependency', () => {
		expect(manifest.dependencies ?? {}).toEqual({});
	});

	it.each(entries)('names %s, which is in the tarball', (entry) => {
		expect(tarballFiles).toContain(entry);
	});

	it('requires nothing but n8n-workflow, allowed built-ins and its own files', () => {
		const problems: string[] = [];
		for (const file of distJs()) {
			for (const [, , name] of read(file).matchAll(/\brequire\((["'`])([^"'`]+)\1\)/g)) {
				if (name.startsWith('.')) {
					const target = path.posix.join(path.posix.dirname(file), name);
					const candidates = [target, `${target}.js`, `${target}/index.js`];
					if (!candidates.some((candidate) => tarballFiles.includes(candidate)))
						problems.push(`${file}: ${name} is not in the tarball`);
				} else if (!ALLOWED_AT_RUN_TIME.has(name)) {
					const builtin = builtinModules.includes(name.replace(/^node:/, ''));
					problems.push(`${file}: ${name}${builtin ? ' (a built-in the scanner refuses)' : ''}`);
				}
			}
		}
		expect(problems).toEqual([]);
	});

	it('bundles libphonenumber-js once, into a file of its own that nodes/shared/parameters/phoneNumbers requires', () => {
		const bundling = distJs().filter((file) => read(file).includes('libphonenumber-js'));
		expect(bundling).toEqual([VENDOR]);
		expect(read('dist/nodes/shared/parameters/phoneNumbers.js')).toContain(
			'require("./vendor/libphonenumber")',
		);
	});
});

describe('on the oldest Node.js package.json allows', () => {
	/** `>=22.0.0` -> `22.0.0`, read here on its own. */
	const floor = /^>=(\d+\.\d+\.\d+)$/.exec(manifest.engines.node)?.[1];
	let node: string;

	beforeAll(() => {
		node = ensureOldestNode();
	}, 180_000);

	it('is the exact floor of engines.node', () => {
		expect(floor).toBeDefined();
		expect(runWith(node, ['--version'], root).output.trim()).toBe(`v${floor}`);
	});

	it('loads every shipped file and constructs every node and credential', () => {
		const ran = runWith(node, ['-e', LOAD_EVERYTHING], installed);
		expect(ran).toMatchObject({ status: 0 });
		const { names } = JSON.parse(ran.output.trim().split('\n').pop()!) as { names: string[] };
		expect(names.sort()).toEqual(typeNames(entries));
	});

	it('passes the unit tests of what ships', () => {
		const files = shippedCodeUnitTests();
		expect(files.length).toBeGreaterThan(10);
		const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
		const ran = runWith(
			node,
			['--experimental-vm-modules', '--no-warnings', jest, '--ci', '--runTestsByPath', ...files],
			root,
			600_000,
		);
		// On a failure, the failing tests' part of jest's report.
		const report = ran.output.slice(Math.max(0, ran.output.indexOf('●') - 200), -1).slice(0, 6000);
		expect({ status: ran.status, report: ran.status === 0 ? '' : report }).toEqual({
			status: 0,
			report: '',
		});
		expect(ran.output).toMatch(new RegExp(`jest: \\d+ passed, 0 failed`));
	}, 660_000);

	it('takes the tarball under npm install --engine-strict, without pulling in n8n-workflow', () => {
		const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'comms-engine-strict-'));
		try {
			fs.writeFileSync(path.join(folder, 'package.json'), '{"name":"nodes","private":true}');
			// npm run by that Node.js (first on PATH): it checks engines against it.
			const args = ['install', '--engine-strict', '--no-audit', '--no-fund', tarball];
			expect(runWith(node, args, folder, 240_000, 'npm')).toMatchObject({ status: 0 });
			const installedNames = fs.readdirSync(path.join(folder, 'node_modules'));
			expect(installedNames.filter((name) => !name.startsWith('.'))).toEqual([manifest.name]);
		} finally {
			fs.rmSync(folder, { recursive: true, force: true });
		}
	});

	it('builds for it: esbuild targets it, tsc a language edition it runs', () => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS script, untyped
		const { targetFromEngines } = require('../../scripts/bundle-vendor.js') as {
			targetFromEngines(): string;
		};
		expect(targetFromEngines()).toBe(`node${floor}`);
		const edition = ES_EDITION_OF_NODE[Number(floor!.split('.')[0])];
		expect(edition).toBeDefined();
		const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
		const config = JSON.parse(
			execFileSync(process.execPath, [tsc, '--showConfig', '-p', 'tsconfig.build.json'], {
				cwd: root,
				encoding: 'utf8',
			}),
		) as { compilerOptions: { target: string; lib: string[] } };
		const year = (name: string) => Number(/^es(\d{4})/i.exec(name)?.[1] ?? NaN);
		const { target, lib } = config.compilerOptions;
		expect({ target, newer: year(target) > edition }).toEqual({ target, newer: false });
		for (const name of lib)
			expect({ lib: name, newer: !(year(name) <= edition) }).toEqual({ lib: name, newer: false });
	});
});

describe('n8n loading the installed package', () => {
	let loader: PackageDirectoryLoader;

	beforeAll(async () => {
		loader = new PackageDirectoryLoader(installed);
		await loader.loadAll();
	});

	it('loads every node and credential package.json names', () => {
		expect(Object.keys(loader.nodeTypes).sort()).toEqual(typeNames(manifest.n8n.nodes));
		expect(Object.keys(loader.credentialTypes).sort()).toEqual(typeNames(manifest.n8n.credentials));
	});

	it.each(entries)('%s names icons that are in the tarball', (entry) => {
		// The class as n8n's loader makes it (before n8n turns `file:` icons into URLs).
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by path, as n8n does
		const exported = require(path.join(installed, entry)) as Record<string, new () => unknown>;
		const instance = new (Object.values(exported)[0])() as {
			description?: { icon?: Icon };
			icon?: Icon;
		};
		const icon = instance.description?.icon ?? instance.icon;
		const icons = typeof icon === 'string' ? [icon] : icon ? [icon.light, icon.dark] : [];
		expect(icons.length).toBeGreaterThan(0);
		for (const file of icons) {
			expect(file).toMatch(/^file:/);
			const shipped = path.posix.normalize(
				path.posix.join(path.posix.dirname(entry), file.slice('file:'.length)),
			);
			expect({ file, shipped: tarballFiles.includes(shipped) }).toEqual({ file, shipped: true });
		}
	});
});

describe('one state for every node of the installed package', () => {
	const sandbox = useSandbox();
	let loader: PackageDirectoryLoader;

	beforeAll(async () => {
		loader = new PackageDirectoryLoader(installed);
		await loader.loadAll();
	});

	it('has exactly one file in dist/ that defines the limiter registry', () => {
		const defining = distJs().filter((file) => /function sharedLimiter\(/.test(read(file)));
		expect(defining).toEqual(['dist/nodes/shared/transport/pacing.js']);
	});

	it('counts the Comms Account node and the Account trigger, loaded as n8n loads them, on one limiter per key', async () => {
		const type = (name: string) => loader.nodeTypes[name].type as INodeType;
		const nodeTypes = {
			'n8n-nodes-comms-api.commsAccount': type('commsAccount'),
			[`n8n-nodes-comms-api.${ACCOUNT_TRIGGER}`]: type(ACCOUNT_TRIGGER),
		};
		const credentials = accountCredentials(sandbox());
		const { apiKey, baseUrl } = credentials.commsAccountApi;
		// The registry of the installed package, as the nodes n8n loaded reach it.
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- the installed copy, by path
		const pacing = require(
			path.join(installed, 'dist', 'nodes', 'shared', 'transport', 'pacing.js'),
		) as {
			sharedLimiter(scope: string, limit: RateLimit): RateLimiter;
		};
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- the installed copy, by path
		const { accountApi } = require(
			path.join(installed, 'dist', 'nodes', 'CommsAccount', 'api', 'accountApi.js'),
		) as { accountApi: { limitOf(): RateLimit } };
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- the installed copy, by path
		const transport = require(
			path.join(installed, 'dist', 'nodes', 'shared', 'transport', 'index.js'),
		) as {
			limiterScope: typeof limiterScope;
		};
		const scope = transport.limiterScope('account', apiKey, baseUrl);
		const limiter = () => pacing.sharedLimiter(scope, accountApi.limitOf());
		const requests = () => sandbox().requests().length;
		expect(limiter().used).toBe(0);

		const listed = await runWorkflow(
			singleNodeWorkflow('n8n-nodes-comms-api.commsAccount', {
				resource: 'number',
				operation: 'getAll',
				returnAll: true,
			}),
			{ credentials, nodeTypes },
		);
		expect(listed.error).toBeUndefined();
		const byNode = requests();
		expect(byNode).toBeGreaterThan(0);
		expect(limiter().used).toBe(byNode);

		const poll = new PollHarness(
			{
				nodes: [
					{
						id: 'trigger',
						name: 'SMS received',
						type: `n8n-nodes-comms-api.${ACCOUNT_TRIGGER}`,
						typeVersion: 1,
						position: [0, 0],
						parameters: {},
						credentials: { commsAccountApi: { id: 'cred-account', name: 'Comms Account' } },
					},
				],
				connections: {},
			},
			{ credentials, nodeTypes },
		);
		expect((await poll.activate()).error).toBeUndefined();
		expect(requests()).toBeGreaterThan(byNode);
		// The trigger's requests land on the limiter the action node used: one per key.
		expect(limiter().used).toBe(requests());
	});

	it('reaches the test-only setters from nothing it runs', () => {
		const setters: Record<string, string> = {
			setSharedLimit: 'dist/nodes/shared/transport/pacing.js',
			setRequestTimeout: 'dist/nodes/shared/transport/timeout.js',
		};
		for (const [setter, definedIn] of Object.entries(setters)) {
			const mentioning = distJs().filter((file) => read(file).includes(setter));
			expect({ setter, mentioning }).toEqual({ setter, mentioning: [definedIn] });
			// Defined and exported, never called in the file that defines it.
			const calls = read(definedIn).match(new RegExp(`\\b${setter}\\(`, 'g')) ?? [];
			expect({ setter, calls: calls.length }).toEqual({ setter, calls: 1 });
		}
	});
});
