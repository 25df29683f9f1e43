// Every relative link in the project's Markdown pages (README, docs/, CONTRIBUTING, SECURITY,
// CHANGELOG, the end-to-end runs' README) resolves to a file of the repository, and a `#fragment` into a Markdown page names
// one of its headings. No link or path in them leaves the repository: a user who reads the
// README on npm or GitHub has nothing beside it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import { anchors, slug } from '../support/markdown';

const root = resolve(__dirname, '..', '..');

function markdownPages(): string[] {
	const pages = [
		'README.md',
		'CONTRIBUTING.md',
		'SECURITY.md',
		'CHANGELOG.md',
		'test/e2e/README.md',
	].filter((f) => existsSync(join(root, f)));
	const docs = join(root, 'docs');
	if (existsSync(docs)) {
		for (const f of readdirSync(docs)) if (f.endsWith('.md')) pages.push(join('docs', f));
	}
	return pages;
}

/** The targets of inline links and images outside code fences and code spans. */
export function links(markdown: string): string[] {
	const out: string[] = [];
	let fenced = false;
	for (const line of markdown.split('\n')) {
		if (line.startsWith('```')) fenced = !fenced;
		if (fenced) continue;
		const text = line.replace(/`[^`]*`/g, '');
		for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) out.push(m[1]);
	}
	return out;
}

describe('links in the Markdown pages', () => {
	const pages = markdownPages();

	it('finds the README', () => {
		expect(pages).toContain('README.md');
	});

	it('keeps the README to 300 lines, a page a person installing the package reads', () => {
		const lines = readFileSync(join(root, 'README.md'), 'utf8').trimEnd().split('\n').length;
		expect(lines).toBeLessThanOrEqual(300);
	});

	it.each(pages)('%s: every relative link resolves inside the repository', (page) => {
		const text = readFileSync(join(root, page), 'utf8');
		const broken: string[] = [];
		for (const target of links(text)) {
			if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: — public pages
			const [path, fragment] = target.split('#');
			const file = path ? resolve(dirname(join(root, page)), decodeURI(path)) : join(root, page);
			if (relative(root, file).startsWith('..')) {
				broken.push(`${target} (outside the repository)`);
				continue;
			}
			if (!existsSync(file)) {
				broken.push(`${target} (no such file)`);
				continue;
			}
			if (fragment && file.endsWith('.md') && statSync(file).isFile()) {
				if (!anchors(readFileSync(file, 'utf8')).has(fragment))
					broken.push(`${target} (no such heading)`);
			}
		}
		expect(broken).toEqual([]);
	});

	it.each(pages)('%s: names no path outside the repository', (page) => {
		const text = readFileSync(join(root, page), 'utf8');
		expect(text.match(/\.\.\/shared\/[\w/.-]*/g) ?? []).toEqual([]);
	});

	it('the checker sees a broken link and a heading anchor', () => {
		expect(links('see [a](docs/x.md#y) and `[b](c.md)` and [d](https://e.f)')).toEqual([
			'docs/x.md#y',
			'https://e.f',
		]);
		expect(slug('Comms Account Trigger (polling)')).toBe('comms-account-trigger-polling');
		expect([...anchors('# A b\n## A b\n```\n# not\n```')]).toEqual(['a-b', 'a-b-1']);
	});
});
