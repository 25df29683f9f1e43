// The generic part of the real-n8n end-to-end run: pack a community package,
// install it into a fresh n8n user folder the way n8n itself installs community
// packages, start a fake API server, import credentials and workflows with n8n's
// CLI, execute each workflow and hand the result to a check callback.
//
// Nothing here knows about the Comms API: test/e2e/run.ts supplies that as data
// (a suite), and any other community package can be run through the same path.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureN8n, npmEnv } from './n8n-install.ts';
import { E2eError, freePort, killAllChildren, log, run } from './proc.ts';
import { startN8n, type RunningN8n } from './n8n-server.ts';
import type { N8nInstall } from './n8n-install.ts';
import type { RunOptions } from './proc.ts';
import type {
	ApiServer,
	Credential,
	CredentialInput,
	CredentialRef,
	Json,
	Packed,
	Workflow,
} from './types.ts';

/** Time limits for one n8n CLI command and one shallow npm install. */
const N8N_COMMAND_TIMEOUT_MS = Number(process.env.N8N_E2E_COMMAND_TIMEOUT_MS) || 3 * 60 * 1000;
const NPM_INSTALL_TIMEOUT_MS = 5 * 60 * 1000;

/** A random id in n8n's shape (16 alphanumeric characters). */
export function n8nId(): string {
	const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
	const bytes = crypto.randomBytes(16);
	return Array.from(bytes, (byte) => alphabet[byte % alphabet.length]).join('');
}

function readJson(file: string): Json {
	return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function writeJson(file: string, value: unknown): void {
	fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** Files a package.json's `n8n` field says n8n must load (nodes and credentials). */
function declaredN8nFiles(packageJson: Json): string[] {
	const n8n = packageJson.n8n || {};
	return [...(n8n.nodes || []), ...(n8n.credentials || [])];
}

/**
 * `npm pack`s the package in packageDir into destDir and returns the tarball's path.
 * Fails clearly when the build output the package declares is not there.
 */
export async function packPackage(packageDir: string, destDir: string): Promise<Packed> {
	const packageJsonPath = path.join(packageDir, 'package.json');
	if (!fs.existsSync(packageJsonPath)) throw new E2eError(`no package.json in ${packageDir}`);
	const packageJson = readJson(packageJsonPath);
	const declared = declaredN8nFiles(packageJson);
	if (declared.length === 0) {
		throw new E2eError(
			`${packageJson.name}: package.json's "n8n" field lists no nodes or credentials, so n8n would load nothing`,
		);
	}
	const missing = declared.filter((file: string) => !fs.existsSync(path.join(packageDir, file)));
	if (missing.length > 0) {
		throw new E2eError(
			`${packageJson.name}: build output missing (${missing.join(', ')}); run \`npm run build\` first`,
		);
	}
	log(`packing ${packageJson.name}@${packageJson.version} from ${packageDir}`);
	// --ignore-scripts: the build is assumed done; pack exactly what is on disk.
	const result = await run(
		'npm',
		['pack', '--json', '--ignore-scripts', `--pack-destination=${destDir}`],
		{
			cwd: packageDir,
			timeoutMs: 120000,
			label: 'npm pack',
		},
	);
	const [info] = JSON.parse(result.stdout);
	const tarball = path.join(destDir, info.filename);
	const packed = new Set(info.files.map((file: { path: string }) => file.path));
	const notPacked = declared.filter((file) => !packed.has(file.replace(/^\.\//, '')));
	if (notPacked.length > 0) {
		throw new E2eError(
			`${packageJson.name}: the tarball lacks files the "n8n" field declares (${notPacked.join(', ')}); check "files" in package.json`,
		);
	}
	log(`packed ${info.filename}: ${info.entryCount} files, ${info.size} bytes`);
	return { tarball, name: packageJson.name, version: packageJson.version };
}

/**
 * Installs a packed community package into userFolder as n8n does when a user
 * installs it from Settings > Community nodes: unpack into
 * .n8n/nodes/node_modules/<name>, drop dev/peer/optional dependencies from its
 * package.json, then a shallow `npm install` inside it (so a runtime dependency
 * missing from "dependencies" shows up). n8n-workflow is not installed: n8n
 * puts its own node_modules on NODE_PATH, as it does for every community package.
 */
export async function installCommunityPackage(
	packed: Packed,
	userFolder: string,
	n8n: N8nInstall,
): Promise<string> {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const packageDir = path.join(nodesDir, 'node_modules', packed.name);
	fs.mkdirSync(packageDir, { recursive: true });
	log(`installing ${packed.name} into ${packageDir}`);
	await run('tar', ['-xzf', packed.tarball, '-C', packageDir, '--strip-components=1'], {
		timeoutMs: 60000,
	});
	const packageJsonPath = path.join(packageDir, 'package.json');
	const { devDependencies, peerDependencies, optionalDependencies, ...packageJson } =
		readJson(packageJsonPath);
	writeJson(packageJsonPath, packageJson);
	await run(
		'npm',
		[
			'install',
			'--audit=false',
			'--fund=false',
			'--bin-links=false',
			'--install-strategy=shallow',
			'--ignore-scripts=true',
			'--package-lock=false',
		],
		{
			cwd: packageDir,
			env: npmEnv({ PATH: `${n8n.nodeBinDir}${path.delimiter}${process.env.PATH}` }),
			timeoutMs: NPM_INSTALL_TIMEOUT_MS,
			label: `npm install (inside ${packed.name})`,
		},
	);
	// n8n's ledger of installed packages, as n8n keeps it next to node_modules.
	writeJson(path.join(nodesDir, 'package.json'), {
		name: 'installed-nodes',
		private: true,
		dependencies: { [packed.name]: packed.version },
	});
	const missing = declaredN8nFiles(packageJson).filter(
		(file) => !fs.existsSync(path.join(packageDir, file)),
	);
	if (missing.length > 0) throw new E2eError(`installed package lacks ${missing.join(', ')}`);
	const deps = Object.keys(packageJson.dependencies || {});
	log(
		`installed ${packed.name}${deps.length ? ` with runtime dependencies: ${deps.join(', ')}` : ' (no runtime dependencies)'}`,
	);
	await checkLoadsInIsolation(
		packageDir,
		declaredN8nFiles(packageJson),
		Object.keys(peerDependencies || {}),
		n8n,
	);
	return packageDir;
}

/**
 * n8n puts its own node_modules on NODE_PATH, so inside n8n a community package
 * can require anything n8n happens to ship (libphonenumber-js, for one) even if
 * its package.json forgot to declare it; it then breaks when n8n drops or
 * changes that module. So load every node and credential file once with a
 * NODE_PATH that holds only the package's peer dependencies (n8n-workflow), taken
 * from n8n's copy: any other module must come from the package's own install.
 */
async function checkLoadsInIsolation(
	packageDir: string,
	files: string[],
	peerNames: string[],
	n8n: N8nInstall,
): Promise<void> {
	const peersDir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-peers-'));
	try {
		for (const name of peerNames) {
			const source = [
				path.join(n8n.n8nDir, 'node_modules', name),
				path.join(n8n.dir, 'node_modules', name),
			].find((dir) => fs.existsSync(path.join(dir, 'package.json')));
			if (!source) throw new E2eError(`peer dependency ${name} is not part of n8n's install`);
			fs.mkdirSync(path.dirname(path.join(peersDir, name)), { recursive: true });
			fs.symlinkSync(source, path.join(peersDir, name), 'dir');
		}
		const script = `
			const problems = [];
			for (const file of ${JSON.stringify(files)}) {
				try {
					require(require('node:path').join(process.cwd(), file));
				} catch (error) {
					const missing = error.code === 'MODULE_NOT_FOUND' && /Cannot find module '([^']+)'/.exec(error.message);
					const what = missing && (missing[1].startsWith('.') || missing[1].startsWith('/')
						? ' requires "' + missing[1] + '", which is not in the tarball (see "files" in package.json)'
						: ' requires "' + missing[1] + '", which is not in "dependencies" in package.json');
					problems.push(file + (what || ' does not load: ' + error.message.split('\\n')[0]));
				}
			}
			if (problems.length) { console.error(problems.join('\\n')); process.exit(1); }`;
		const result = await run(n8n.node, ['-e', script], {
			cwd: packageDir,
			env: {
				PATH: `${n8n.nodeBinDir}${path.delimiter}${process.env.PATH}`,
				NODE_PATH: peersDir,
				HOME: process.env.HOME || os.homedir(),
			},
			timeoutMs: 60000,
			check: false,
			label: 'isolated load check',
		});
		if (result.code !== 0) {
			throw new E2eError(
				`the installed package does not load on its own (inside n8n a module n8n happens to ship would hide this, until n8n drops it):\n${result.stderr.trim()}`,
			);
		}
		log(
			`every node and credential file loads with only ${peerNames.join(', ') || 'no modules'} from n8n`,
		);
	} finally {
		fs.rmSync(peersDir, { recursive: true, force: true });
	}
}

/**
 * The environment n8n runs in: Node.js 24 first on PATH, a private user folder,
 * a fixed encryption key, everything that would call n8n's servers switched off,
 * free ports, and nothing inherited from the caller's own n8n configuration.
 */
export async function n8nEnvironment(
	n8n: N8nInstall,
	userFolder: string,
): Promise<NodeJS.ProcessEnv> {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (/^(N8N_|DB_|EXECUTIONS_|QUEUE_|GENERIC_TIMEZONE$|NODE_OPTIONS$|NODE_PATH$|npm_)/.test(key))
			continue;
		env[key] = value;
	}
	const loopback = '127.0.0.1,localhost,::1';
	Object.assign(env, {
		PATH: `${n8n.nodeBinDir}${path.delimiter}${process.env.PATH}`,
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: crypto.randomBytes(24).toString('hex'),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_PORT: String(await freePort()),
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_DISABLED_MODULES: 'mcp-registry',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		// `n8n execute` prints its result through the logger at level info: at warn
		// or below, --rawOutput prints nothing at all.
		N8N_LOG_LEVEL: process.env.E2E_N8N_LOG_LEVEL || 'info',
		N8N_LOG_OUTPUT: 'console',
		N8N_BLOCK_ENV_ACCESS_IN_NODE: 'false',
		DB_TYPE: 'sqlite',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		NO_PROXY: [process.env.NO_PROXY, loopback].filter(Boolean).join(','),
		no_proxy: [process.env.no_proxy, loopback].filter(Boolean).join(','),
	});
	return env;
}

/** Runs `n8n <args>` with Node.js 24 and the e2e environment. */
export function n8nCli(
	n8n: N8nInstall,
	env: NodeJS.ProcessEnv,
	args: string[],
	options: RunOptions = {},
) {
	return run(n8n.node, [n8n.n8nBin, ...args], {
		cwd: env.N8N_USER_FOLDER,
		env,
		timeoutMs: N8N_COMMAND_TIMEOUT_MS,
		echo: process.env.E2E_VERBOSE === '1' ? `  n8n ${args[0]}| ` : undefined,
		label: `n8n ${args.join(' ')}`,
		...options,
	});
}

/**
 * Splits `n8n execute --rawOutput` output into the run document and the rest.
 * n8n prints the run as pretty JSON through its logger (on stdout, at level
 * info), and its other log lines (task broker ready, Python runner missing,
 * license SDK, encryption key notices; on failure an error report and a stack)
 * come before and after it, so take the longest span of whole lines that parses.
 * Resolves to { doc, logLines } (doc null when no JSON was found).
 */
export function splitRawOutput(stdout: string): { doc: Json; logLines: string[] } {
	const lines = stdout.split('\n');
	const starts: number[] = [];
	const ends: number[] = [];
	lines.forEach((line, index) => {
		if (/^[{[]\s*$/.test(line) || /^[{[]/.test(line)) starts.push(index);
		if (/^[}\]]\s*$/.test(line)) ends.push(index);
	});
	for (const start of starts) {
		for (let k = ends.length - 1; k >= 0 && ends[k] >= start; k -= 1) {
			try {
				const doc = JSON.parse(lines.slice(start, ends[k] + 1).join('\n'));
				const logLines = [...lines.slice(0, start), ...lines.slice(ends[k] + 1)].filter((line) =>
					line.trim(),
				);
				return { doc, logLines };
			} catch {
				// Try a shorter span.
			}
		}
	}
	return { doc: null, logLines: lines.filter((line) => line.trim()) };
}

/** The run document from `n8n execute --rawOutput`, or an E2eError saying why not. */
export function parseRawOutput(stdout: string): Json {
	const { doc } = splitRawOutput(stdout);
	if (doc === null) {
		throw new E2eError(
			'could not find the run JSON in `n8n execute --rawOutput` output (it needs N8N_LOG_LEVEL=info or more)',
			`--- stdout ---\n${stdout.trimEnd()}`,
		);
	}
	return doc;
}

/** A one-line account of why a run failed, from its run document. */
function describeRunError(doc: Json): string | null {
	const error = doc?.data?.resultData?.error;
	if (!error) return null;
	const node = error.node?.name ? `node "${error.node.name}" failed: ` : '';
	const extra = [error.description, error.httpCode && `HTTP ${error.httpCode}`]
		.filter(Boolean)
		.join('; ');
	return `${node}${error.message || 'unknown error'}${extra ? ` (${extra})` : ''}`;
}

/** The last `max` characters of some log lines, for an error report. */
function tailOf(lines: string[], max = 4000): string {
	const text = lines.join('\n');
	return text.length > max ? `…${text.slice(-max)}` : text;
}

/**
 * What a check callback receives about one execution:
 *   run            the parsed `--rawOutput` document
 *   runData        run.data.resultData.runData (per node name, per run)
 *   items(name)    the json of every item on the first output of node `name`
 *   workflow       the workflow as imported
 *   server         the value startServer() resolved to
 */
export interface ExecutionView {
	run: Json;
	runData: Record<string, Json[]>;
	workflow: Workflow;
	server: ApiServer;
	items(nodeName: string): Json[];
}

export function executionView(runDoc: Json, workflow: Workflow, server: ApiServer): ExecutionView {
	const runData = runDoc?.data?.resultData?.runData || {};
	return {
		run: runDoc,
		runData,
		workflow,
		server,
		items(nodeName: string) {
			const runs = runData[nodeName];
			if (!runs || runs.length === 0) {
				throw new E2eError(
					`node "${nodeName}" did not run (nodes that ran: ${Object.keys(runData).join(', ') || 'none'})`,
				);
			}
			const last = runs[runs.length - 1];
			if (last.error)
				throw new E2eError(
					`node "${nodeName}" failed: ${last.error.message || JSON.stringify(last.error)}`,
				);
			return (last.data?.main?.[0] || []).map((item: Json) => item.json);
		},
	};
}

/** FAIL line for a scenario, then its details (or the stack of an unexpected error). */
function reportFailure(name: string, error: Error & { details?: string }): void {
	log(`FAIL ${name}: ${error.message}`);
	if (error.details) process.stderr.write(`${error.details}\n`);
	else if (!(error instanceof E2eError)) process.stderr.write(`${error.stack}\n`);
}

/** The suite running now, so that a signal handler can clean up after it. */
const current: { abort: (() => void) | null } = { abort: null };

/** Kills everything the running suite started and removes its temp folder (for signal handlers). */
export function abortCurrent(): void {
	if (current.abort) current.abort();
	else killAllChildren();
}

/** Removes a directory unless E2E_KEEP=1 (then says where it is). */
function removeTemp(dir: string): void {
	if (!dir) return;
	if (process.env.E2E_KEEP === '1') {
		log(`E2E_KEEP=1: leaving ${dir}`);
		return;
	}
	fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * Runs a suite end to end and resolves with { passed, failed }.
 *
 * suite = {
 *   packageDir:   directory to `npm pack` (built already),
 *   preflight():  optional; throws an E2eError if something the suite needs is missing,
 *   startServer(): resolves to an object with stop() (the fake API, in this process),
 *   scenarios: [{
 *     name,
 *     credentials(server) -> [{ name, type, data }]      (ids are assigned here),
 *     workflow(server, credentialsByType) -> workflow JSON (credentialsByType[type] = { id, name }),
 *     check(view) -> void, throws on failure             (see executionView),
 *   }],
 * }
 * Any failure before the scenarios run (install, pack, start-up) rejects.
 */
/** One `n8n execute` run of an imported workflow. */
export interface Scenario {
	name: string;
	credentials(server: ApiServer): CredentialInput[];
	workflow(server: ApiServer, credentialsByType: Record<string, CredentialRef>): Workflow;
	check(view: ExecutionView): void | Promise<void>;
}

/** What a live scenario's run() gets: the running n8n and its workflows. */
export interface LiveContext {
	url: string;
	env: NodeJS.ProcessEnv;
	server: ApiServer;
	/** This scenario's workflows, by name (with the ids n8n knows them by). */
	workflows: Record<string, Workflow & { id: string }>;
	allWorkflows: Record<string, Workflow & { id: string }>;
	tempRoot: string;
	packageName: string;
}

/** A check against `n8n start`, with workflows imported (and published) before it starts. */
export interface LiveScenario {
	name: string;
	credentials?(server: ApiServer): CredentialInput[];
	workflows?(
		server: ApiServer,
		credentialsByName: Record<string, CredentialRef & { type: string }>,
	): Workflow[];
	run(context: LiveContext): Promise<void>;
}

export interface Suite {
	packageDir: string;
	preflight?(): void | Promise<void>;
	startServer(): Promise<ApiServer>;
	scenarios: Scenario[];
	liveScenarios?: LiveScenario[];
}

export interface SuiteOptions {
	timeoutMs?: number;
	onTimeout?: () => void;
}

export async function runSuite(
	suite: Suite,
	options: SuiteOptions = {},
): Promise<{ passed: number; failed: number }> {
	if (suite.preflight) await suite.preflight();
	const n8n = await ensureN8n();
	const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-'));
	let server = null as ApiServer | null;
	// Emergency clean-up for a time-out or a signal, when the finally below
	// cannot run: kill n8n and npm, ask the fake API to stop, remove the temp folder.
	current.abort = () => {
		killAllChildren();
		if (server)
			Promise.resolve()
				.then(() => server?.stop())
				.catch(() => {});
		removeTemp(tempRoot);
	};
	// The install above has its own limits; this bounds everything after it.
	const timeoutMs = options.timeoutMs || 0;
	const watchdog =
		timeoutMs > 0
			? setTimeout(() => {
					log(`the run took longer than ${Math.round(timeoutMs / 1000)}s: stopping`);
					current.abort?.();
					if (options.onTimeout) options.onTimeout();
				}, timeoutMs)
			: null;
	try {
		const userFolder = path.join(tempRoot, 'user');
		fs.mkdirSync(userFolder);
		const env = await n8nEnvironment(n8n, userFolder);
		const packed = await packPackage(suite.packageDir, tempRoot);
		await installCommunityPackage(packed, userFolder, n8n);

		server = await suite.startServer();
		log(`API server (sandbox) listening at ${server.url || '(no url)'}`);

		// Credentials and workflows of all scenarios go in with one import each:
		// every n8n command boots n8n (several seconds).
		const prepared = suite.scenarios.map((scenario) => {
			const credentials = scenario
				.credentials(server!)
				.map((credential): Credential => ({ id: n8nId(), ...credential }));
			const byType = Object.fromEntries(
				credentials.map((c) => [c.type, { id: c.id, name: c.name }]),
			);
			const workflow: Workflow = { ...scenario.workflow(server!, byType), id: n8nId() };
			workflow.name = workflow.name || scenario.name;
			return { scenario, credentials, workflow };
		});
		// Live scenarios run against `n8n start`; their workflows are imported with the rest and
		// published (activated) before the server starts.
		const live = (suite.liveScenarios || []).map((scenario) => {
			const credentials = (scenario.credentials ? scenario.credentials(server!) : []).map(
				(credential): Credential => ({ id: n8nId(), ...credential }),
			);
			const byName = Object.fromEntries(
				credentials.map((c) => [c.name, { id: c.id, name: c.name, type: c.type }]),
			);
			const workflows = (scenario.workflows ? scenario.workflows(server!, byName) : []).map(
				(workflow) => ({ ...workflow, id: n8nId() }),
			);
			return { scenario, credentials, workflows };
		});
		const credentialsFile = path.join(tempRoot, 'credentials.json');
		const workflowsFile = path.join(tempRoot, 'workflows.json');
		writeJson(credentialsFile, [
			...prepared.flatMap((p) => p.credentials),
			...live.flatMap((l) => l.credentials),
		]);
		writeJson(workflowsFile, [
			...prepared.map((p) => p.workflow),
			...live.flatMap((l) => l.workflows.map(({ publish: _publish, ...workflow }) => workflow)),
		]);
		log('n8n import:credentials');
		await n8nCli(n8n, env, ['import:credentials', `--input=${credentialsFile}`]);
		log('n8n import:workflow');
		await n8nCli(n8n, env, ['import:workflow', `--input=${workflowsFile}`]);

		let passed = 0;
		let failed = 0;
		for (const { scenario, workflow } of prepared) {
			log(`scenario "${scenario.name}": n8n execute --id ${workflow.id} --rawOutput`);
			try {
				const result = await n8nCli(n8n, env, ['execute', `--id=${workflow.id}`, '--rawOutput'], {
					check: false,
				});
				const { doc, logLines } = splitRawOutput(result.stdout);
				const logTail = `--- n8n log (without the run JSON) ---\n${tailOf([...logLines, ...result.stderr.split('\n')].filter((l) => l.trim()))}`;
				const runError = describeRunError(doc);
				if (runError) throw new E2eError(`workflow failed: ${runError}`, logTail);
				if (result.code !== 0)
					throw new E2eError(`n8n execute exited with code ${result.code}`, logTail);
				const runDoc = doc ?? parseRawOutput(result.stdout); // throws when there is no JSON
				if (runDoc.status && runDoc.status !== 'success')
					throw new E2eError(`execution status is "${runDoc.status}", expected "success"`, logTail);
				await scenario.check(executionView(runDoc, workflow, server!));
				passed += 1;
				log(`PASS ${scenario.name}`);
			} catch (error) {
				failed += 1;
				reportFailure(scenario.name, error);
			}
		}
		if (live.length > 0) {
			for (const workflow of live.flatMap((l) => l.workflows).filter((w) => w.publish)) {
				log(`n8n publish:workflow --id=${workflow.id} (${workflow.name})`);
				await n8nCli(n8n, env, ['publish:workflow', `--id=${workflow.id}`]);
			}
			let n8nServer = null as RunningN8n | null;
			for (const { scenario, workflows } of live) {
				log(`live scenario "${scenario.name}"`);
				try {
					n8nServer ??= await startN8n(n8n, env);
					const byName = Object.fromEntries(workflows.map((w) => [w.name, w]));
					const allWorkflows = Object.fromEntries(
						live.flatMap((l) => l.workflows).map((w) => [w.name, w]),
					);
					await scenario.run({
						url: n8nServer.url,
						env,
						server: server!,
						workflows: byName,
						allWorkflows,
						tempRoot,
						packageName: packed.name,
					});
					passed += 1;
					log(`PASS ${scenario.name}`);
				} catch (error) {
					failed += 1;
					reportFailure(scenario.name, error);
				}
			}
		}
		return { passed, failed };
	} finally {
		if (watchdog) clearTimeout(watchdog);
		current.abort = null;
		killAllChildren();
		if (server) {
			try {
				await server.stop();
			} catch (error) {
				log(`stopping the fake API failed: ${error.message}`);
			}
		}
		removeTemp(tempRoot);
	}
}
