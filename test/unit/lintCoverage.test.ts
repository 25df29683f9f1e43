// Every TypeScript and JavaScript file in the repository is linted, formatted and, for
// TypeScript, type-checked: an ignore pattern or a tsconfig `include` that leaves a folder out
// fails here, naming the files, instead of letting that folder drift unchecked.
//
// ESLint and Prettier are asked in a child process (both load their configuration as ES modules,
// which this test's CommonJS runtime does not); TypeScript's own config parser, in-process, says
// which files each tsconfig compiles, with the same include and exclude rules as `tsc -p`.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..');
const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/;

function trackedCode(): string[] {
	const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
		.split('\0')
		.filter((file) => CODE.test(file));
	expect(files.length).toBeGreaterThan(100);
	return files;
}

interface FileChecks {
	file: string;
	eslintIgnored: boolean;
	commonRules: boolean;
	n8nRules: boolean;
	prettierIgnored: boolean;
	prettierParser: string | null;
}

/** What ESLint and Prettier make of each file, with this repository's configurations. */
function askLinters(files: string[]): FileChecks[] {
	const script = `
		import { ESLint } from 'eslint';
		import prettier from 'prettier';
		const files = JSON.parse(process.argv[1]);
		const eslint = new ESLint();
		const out = [];
		for (const file of files) {
			const eslintIgnored = await eslint.isPathIgnored(file);
			const rules = eslintIgnored ? {} : (await eslint.calculateConfigForFile(file)).rules ?? {};
			const on = (name) => [1, 2, 'warn', 'error'].includes([rules[name]].flat()[0]);
			const info = await prettier.getFileInfo(file, { ignorePath: '.prettierignore' });
			out.push({
				file,
				eslintIgnored,
				commonRules: on('no-undef') || on('@typescript-eslint/no-unused-vars'),
				n8nRules: on('@n8n/community-nodes/no-restricted-globals'),
				prettierIgnored: info.ignored,
				prettierParser: info.inferredParser,
			});
		}
		process.stdout.write(JSON.stringify(out));
	`;
	const stdout = execFileSync(
		process.execPath,
		['--input-type=module', '-e', script, JSON.stringify(files)],
		{ cwd: ROOT, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
	);
	return JSON.parse(stdout) as FileChecks[];
}

/** The files a tsconfig compiles, as `tsc -p` would list them (relative to the repository). */
function compiledBy(tsconfig: string): Set<string> {
	const path = join(ROOT, tsconfig);
	const read = ts.readConfigFile(path, ts.sys.readFile);
	if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
	const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT, undefined, path);
	return new Set(parsed.fileNames.map((file) => file.slice(ROOT.length + 1)));
}

describe('lint, format and type-check coverage', () => {
	let files: string[] = [];
	let checks: FileChecks[] = [];

	beforeAll(() => {
		files = trackedCode();
		checks = askLinters(files);
	});

	it('lints every TypeScript and JavaScript file with the common rules', () => {
		const unlinted = checks.filter((c) => c.eslintIgnored || !c.commonRules).map((c) => c.file);
		expect(unlinted).toEqual([]);
	});

	it("applies n8n's scanner rules to what ships (nodes/ and credentials/), and only there", () => {
		const ships = (file: string) => /^(nodes|credentials)\//.test(file);
		const wrong = checks
			.filter((c) => c.n8nRules !== ships(c.file))
			.map((c) => `${c.file}: n8n rules ${c.n8nRules ? 'on' : 'off'}`);
		expect(wrong).toEqual([]);
		expect(checks.filter((c) => c.n8nRules).length).toBeGreaterThan(50);
	});

	it('checks the formatting of every TypeScript and JavaScript file', () => {
		const unformatted = checks
			.filter((c) => c.prettierIgnored || c.prettierParser === null)
			.map((c) => c.file);
		expect(unformatted).toEqual([]);
	});

	it('type-checks every TypeScript file under one of the two tsconfigs npm run lint runs', () => {
		const typeChecked = new Set([
			...compiledBy('tsconfig.json'),
			...compiledBy('tsconfig.esm.json'),
		]);
		const unchecked = files.filter((file) => /\.[mc]?ts$/.test(file) && !typeChecked.has(file));
		expect(unchecked).toEqual([]);
	});
});
