/**
 * What the published package holds, checked on the real thing: the build is bundled afresh
 * (gulp build: esbuild plus the assets), `npm pack --dry-run` lists the tarball, and the
 * bundled files are loaded as n8n loads them.
 *
 * - every `file:` icon a node or credential names is inside the tarball (a missing one shows
 *   as a broken image all over the editor);
 * - the package has no runtime dependency, and the bundled files require nothing but
 *   n8n-workflow and the Node.js built-ins n8n's scanner allows;
 * - they load and describe themselves with libphonenumber-js out of reach (bundled in).
 */
import { execFileSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.join(__dirname, '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
	dependencies?: Record<string, string>;
	n8n: { nodes: string[]; credentials: string[] };
};
const entries = [...manifest.n8n.nodes, ...manifest.n8n.credentials];

/** What the scanner's no-restricted-imports allows that a bundle of ours may need at run time. */
const ALLOWED_AT_RUN_TIME = new Set(['n8n-workflow', 'crypto', 'node:crypto']);

let tarballFiles: Set<string>;

beforeAll(() => {
	execFileSync(
		process.execPath,
		[path.join(root, 'node_modules', 'gulp', 'bin', 'gulp.js'), 'build', '--silent'],
		{ cwd: root, stdio: 'pipe' },
	);
	const npm = process.env.npm_execpath;
	const [command, args] = npm ? [process.execPath, [npm]] : ['npm', []];
	const out = execFileSync(command, [...args, 'pack', '--dry-run', '--json', '--ignore-scripts'], {
		cwd: root,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const [{ files }] = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
	tarballFiles = new Set(files.map((file) => file.path));
}, 120_000);

/** Loads a bundled file in a child process whose module search cannot see node_modules but n8n-workflow's. */
function describeInIsolation(entry: string): { name: string; icons: string[] } {
	const isolated = fs.mkdtempSync(path.join(os.tmpdir(), 'comms-published-'));
	try {
		// A copy of the built file beside a node_modules holding only n8n-workflow, as n8n gives it.
		const target = path.join(isolated, 'package', entry);
		fs.mkdirSync(path.dirname(target), { recursive: true });
		fs.copyFileSync(path.join(root, entry), target);
		fs.mkdirSync(path.join(isolated, 'node_modules'));
		fs.symlinkSync(
			path.join(root, 'node_modules', 'n8n-workflow'),
			path.join(isolated, 'node_modules', 'n8n-workflow'),
		);
		const script = `
			const exported = require(${JSON.stringify(target)});
			const instance = new (Object.values(exported)[0])();
			const d = instance.description ?? instance;
			const icons = [];
			const add = (icon) => { if (typeof icon === 'string') icons.push(icon); else if (icon) icons.push(icon.light, icon.dark); };
			add(d.icon);
			process.stdout.write(JSON.stringify({ name: d.name, icons }));`;
		const out = execFileSync(process.execPath, ['-e', script], {
			cwd: isolated,
			encoding: 'utf8',
			env: { PATH: process.env.PATH ?? '', NODE_PATH: '' },
		});
		return JSON.parse(out) as { name: string; icons: string[] };
	} finally {
		fs.rmSync(isolated, { recursive: true, force: true });
	}
}

describe('the published package', () => {
	it('declares no runtime dependency', () => {
		expect(manifest.dependencies ?? {}).toEqual({});
	});

	it.each(entries)('%s is in the tarball', (entry) => {
		expect(tarballFiles.has(entry)).toBe(true);
	});

	it('ships no TypeScript sources, source maps or development tree', () => {
		const stray = [...tarballFiles].filter((file) =>
			/\.ts$|\.map$|^build\/|^sandbox\/|^harness\/|^test\//.test(file),
		);
		expect(stray).toEqual([]);
	});

	it.each(entries)('%s requires only n8n-workflow and allowed built-ins', (entry) => {
		const code = fs.readFileSync(path.join(root, entry), 'utf8');
		const required = new Set(
			[...code.matchAll(/\brequire\((["'`])([^"'`]+)\1\)/g)].map((match) => match[2]),
		);
		const notAllowed = [...required].filter((name) => !ALLOWED_AT_RUN_TIME.has(name));
		expect(notAllowed).toEqual([]);
		// Node built-ins other than crypto would be refused by the scanner on n8n Cloud too.
		expect(
			[...required].filter(
				(name) =>
					builtinModules.includes(name.replace(/^node:/, '')) && !ALLOWED_AT_RUN_TIME.has(name),
			),
		).toEqual([]);
	});

	it.each(entries)(
		'%s loads with libphonenumber-js out of reach, and every icon it names ships',
		(entry) => {
			const { name, icons } = describeInIsolation(entry);
			expect(name).toBeTruthy();
			expect(icons.length).toBeGreaterThan(0);
			for (const icon of icons) {
				expect(icon).toMatch(/^file:/);
				const file = path.posix.normalize(
					path.posix.join(path.posix.dirname(entry), icon.slice('file:'.length)),
				);
				expect({ icon, inTarball: tarballFiles.has(file) }).toEqual({ icon, inTarball: true });
			}
		},
	);
});
