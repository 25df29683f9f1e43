/** Markdown headings as GitHub anchors them, for the tests that check links into the README. */

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
	return heading
		.trim()
		.toLowerCase()
		.replace(/[`*_]/g, '')
		.replace(/[^\p{L}\p{N}\s-]/gu, '')
		.replace(/\s/g, '-');
}

/** Every heading's anchor, outside code fences; a repeated heading gets -1, -2, … as on GitHub. */
export function anchors(markdown: string): Set<string> {
	const found = new Set<string>();
	const counts = new Map<string, number>();
	let fenced = false;
	for (const line of markdown.split('\n')) {
		if (line.startsWith('```')) fenced = !fenced;
		const m = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
		if (!m) continue;
		const base = slug(m[1]);
		const n = counts.get(base) ?? 0;
		counts.set(base, n + 1);
		found.add(n ? `${base}-${n}` : base);
	}
	return found;
}
