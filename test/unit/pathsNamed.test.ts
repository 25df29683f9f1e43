/**
 * Every path a doc or a code comment names is in this repository: the docs stand alone, and a
 * moved file leaves no comment pointing at where it was. Checked over every tracked text file:
 * paths from the repository's root (`nodes/shared/transport/send.ts`), paths relative to the file
 * naming it (`./tool.ts`, `../comms.ts`), and nothing that points outside it (the provider's API
 * documents, design notes or machine paths that only exist where the project is developed).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/** Files whose paths are examples, or patterns: the link checker's own test and this one. */
const NOT_CHECKED = [
	'package-lock.json',
	'bench/results.json',
	'bench/results.md',
	'test/unit/docLinks.test.ts',
	'test/unit/pathsNamed.test.ts',
];

const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
	.split('\n')
	.filter((file) => /\.(md|ts|js|mjs|json|ya?ml|sh)$/.test(file))
	.filter((file) => !NOT_CHECKED.includes(file))
	.filter((file) => fs.existsSync(path.join(ROOT, file)));

/** The repository's top-level folders and files: a path starting with one is from the root. */
const TOP = fs.readdirSync(ROOT).filter((name) => !name.startsWith('.') && name !== 'node_modules');

/** Pointers outside the repository. */
const OUTSIDE = [
	/\.\.\/shared\/(design|spec|hooks)\b/,
	/(^|[\s`'"(])spec\/[\w-]+/,
	/\b(ENGINEERING|PRODUCT|DEVELOPERS)\.md\b/,
	/\/work\/[\w.-]+/,
];

/** Paths with an extension, rooted at the repository or relative to the file ("./x.ts"). */
const EXTENSION = String.raw`\.(?:ts|js|mjs|cjs|md|json|sh|ya?ml|svg|png)`;
const PATH = new RegExp(
	String.raw`(?<![\w./@-])((?:\.{1,2}/)+[\w.-]+(?:/[\w.-]+)*${EXTENSION}|[A-Za-z][\w.-]*/[\w.-]+(?:/[\w.-]+)*${EXTENSION})(?![\w/.])`,
	'g',
);

/** Paths of files that are made, not kept (the build, the run's outputs, the user's own n8n). */
const MADE = /^(dist|build|\.e2e|\.dev|\.tools|coverage|node_modules)\//;

/**
 * A file named alone in a doc or comment (`see recovery.ts`) is one of the repository's files, by
 * name: a renamed file leaves no comment naming what it was called.
 */
const BARE = /(?<![\w./@-])([A-Za-z][\w-]*\.ts)\b(?![\w/-])/g;
const BASENAMES = new Set(tracked.map((file) => path.basename(file)));
/** Files of other projects the docs name: n8n's own sources, and what n8n builds from ours. */
const ELSEWHERE = ['WorkflowExecute.ts', 'NodeExecuteFunctions.ts'];
let checkedBare = 0;

/** How many paths were checked, so that a pattern gone wrong cannot pass by checking none. */
let checked = 0;

function problemsIn(file: string): string[] {
	const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
	const problems: string[] = [];
	for (const outside of OUTSIDE) {
		const match = outside.exec(text);
		if (match) problems.push(`${file}: points outside the repository: "${match[0].trim()}"`);
	}
	for (const [, named] of text.matchAll(PATH)) {
		if (/[<>*{}$]/.test(named) || /^https?:/.test(named)) continue;
		const relative = named.startsWith('.');
		// In workflows, scripts and configuration a relative path is the command's, not the file's.
		if (relative && !/\.(md|ts|js|mjs)$/.test(file)) continue;
		const root = named.split('/')[0];
		if (!relative && !TOP.includes(root)) continue;
		const resolved = relative
			? path.normalize(path.join(path.dirname(file), named))
			: path.normalize(named);
		if (MADE.test(resolved) || resolved.startsWith('..')) continue;
		checked += 1;
		if (!fs.existsSync(path.join(ROOT, resolved)))
			problems.push(`${file}: names ${named}, which is not in the repository`);
	}
	if (/\.(md|ts)$/.test(file)) {
		for (const [, named] of text.matchAll(BARE)) {
			checkedBare += 1;
			if (!BASENAMES.has(named) && !ELSEWHERE.includes(named))
				problems.push(`${file}: names ${named}, which no file of the repository is called`);
		}
	}
	return problems;
}

it('every path a doc or comment names is in the repository, and nothing points outside it', () => {
	expect(tracked.length).toBeGreaterThan(100);
	expect(tracked.flatMap(problemsIn)).toEqual([]);
	expect(checked).toBeGreaterThan(300);
	expect(checkedBare).toBeGreaterThan(100);
});
