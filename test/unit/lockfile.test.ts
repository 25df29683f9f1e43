// A lock file npm ci can install on a fresh machine: every package entry (not the root, not a
// workspace link) pins a version and an integrity hash. npm leaves version-less stubs behind when
// an optional dependency could not be resolved where the lock was made (17 of them under
// unrs-resolver once); a registry that later serves those packages makes `npm ci` throw
// "Invalid Version" while building its tree, so nobody can install the project. `resolved` is not
// required: ~/.npmrc's omit-lockfile-registry-resolved leaves it out on purpose.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface LockEntry {
	version?: string;
	integrity?: string;
	link?: boolean;
}

/** Names every entry of a lock's `packages` that lacks a version or an integrity hash. */
export function incompleteEntries(lock: { packages?: Record<string, LockEntry> }): string[] {
	const problems: string[] = [];
	for (const [key, entry] of Object.entries(lock.packages ?? {})) {
		if (key === '' || entry.link) continue;
		const missing = (['version', 'integrity'] as const).filter((field) => !entry[field]);
		if (missing.length) problems.push(`${key} (no ${missing.join(', no ')})`);
	}
	return problems;
}

describe('package-lock.json', () => {
	const lock = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package-lock.json'), 'utf8'));

	it('is lockfileVersion 3, as npm 11 writes it', () => {
		expect(lock.lockfileVersion).toBe(3);
	});

	it('pins a version and an integrity hash for every package entry', () => {
		expect(incompleteEntries(lock)).toEqual([]);
	});

	it('the check names an entry without a version, and skips the root and links', () => {
		const broken = {
			packages: {
				'': { version: '0.1.0' },
				'node_modules/a': { version: '1.0.0', integrity: 'sha512-x' },
				'node_modules/b/node_modules/@unrs/resolver-binding-win32-x64-msvc': { optional: true },
				'node_modules/c': { version: '2.0.0' },
				'node_modules/d': { link: true },
			},
		} as unknown as { packages: Record<string, LockEntry> };
		expect(incompleteEntries(broken)).toEqual([
			'node_modules/b/node_modules/@unrs/resolver-binding-win32-x64-msvc (no version, no integrity)',
			'node_modules/c (no integrity)',
		]);
	});
});
