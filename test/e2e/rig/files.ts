// Files the rig reads and writes: JSON documents (package.json, import files for n8n's CLI) and
// the temp folder a run works in, removed at the end unless E2E_KEEP=1.

import fs from 'node:fs';
import { log } from './proc.ts';
import type { Json } from './types.ts';

export function readJson(file: string): Json {
	return JSON.parse(fs.readFileSync(file, 'utf8'));
}

export function writeJson(file: string, value: unknown): void {
	fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** Removes a directory unless E2E_KEEP=1 (then says where it is). */
export function removeTemp(dir: string): void {
	if (!dir) return;
	if (process.env.E2E_KEEP === '1') {
		log(`E2E_KEEP=1: leaving ${dir}`);
		return;
	}
	fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
