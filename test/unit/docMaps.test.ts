// The file maps the docs keep by hand are complete: a file added, renamed or removed fails here
// rather than leaving a map that no longer matches the code. A map names each file in backticks,
// by its path or its name alone. The maps of the nodes' code are not kept by hand at all
// (CONTRIBUTING describes the folders, and a request is followed through its imports).
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');

/** The text of a page's section, from its heading to the next heading of the same or a higher level. */
function section(page: string, heading: string): string {
	const text = readFileSync(join(root, page), 'utf8');
	const lines = text.split('\n');
	const start = lines.findIndex((line) => line.replace(/^#+\s+/, '') === heading);
	if (start < 0) throw new Error(`${page} has no heading "${heading}"`);
	const level = /^#+/.exec(lines[start])![0].length;
	const end = lines.findIndex((line, i) => i > start && new RegExp(`^#{1,${level}}\\s`).test(line));
	return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** The files of a folder (not its subfolders) that the map leaves out. */
function unnamed(folder: string, map: string): string[] {
	const named = new Set([...map.matchAll(/`([^`]+)`/g)].flatMap((m) => m[1].split(/[\s,]+/)));
	return readdirSync(join(root, folder), { withFileTypes: true })
		.filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
		.map((entry) => entry.name)
		.filter((name) => !named.has(name) && !named.has(`${folder}/${name}`));
}

describe('the file maps in the docs', () => {
	it.each([
		['docs/sandbox.md', 'Code map', 'sandbox'],
		['test/e2e/README.md', 'Layout', 'test/e2e/rig'],
		['test/e2e/README.md', 'Layout', 'test/e2e/queue'],
		['test/e2e/README.md', 'Layout', 'test/e2e'],
	])('%s, "%s", names every file of %s/', (page, heading, folder) => {
		expect(unnamed(folder, section(page, heading))).toEqual([]);
	});

	it('the check sees a file left out', () => {
		expect(unnamed('sandbox', '`sandbox/index.ts` | `cli.ts`')).toContain('state.ts');
		expect(unnamed('sandbox', '`sandbox/index.ts` | `cli.ts`')).not.toContain('cli.ts');
	});
});
