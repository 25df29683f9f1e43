// `npm pack` of a community package, as it would be published: fails clearly when the build
// output its package.json's `n8n` field declares is missing from the folder or the tarball.

import fs from 'node:fs';
import path from 'node:path';
import { readJson } from './files.ts';
import { E2eError, log, run } from './proc.ts';
import type { Json, Packed } from './types.ts';

/** Files a package.json's `n8n` field says n8n must load (nodes and credentials). */
export function declaredN8nFiles(packageJson: Json): string[] {
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
