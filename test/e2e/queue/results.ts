// The queue run's figures into bench/results.json under "queueMode" (a run on n8n's default poll
// path, QUEUE_DURABLE_CURSORS=0, under queueMode.defaultPollPath, leaving the rest as it was).

import fs from 'node:fs';
import path from 'node:path';
import { REPO } from '../comms.ts';
import { E2eError, log } from '../rig/proc.ts';
import type { Json } from '../rig/types.ts';
import { DURABLE_CURSORS, RESULTS_FILE } from './settings.ts';

export function writeResults(figures: Json): void {
	let results: Json = {};
	try {
		results = JSON.parse(fs.readFileSync(RESULTS_FILE, 'utf8'));
	} catch (error) {
		if (error.code !== 'ENOENT')
			throw new E2eError(`could not read ${RESULTS_FILE}: ${error.message}`);
	}
	// A run on n8n's default poll path goes under queueMode.defaultPollPath; the usual run
	// (durable poll cursors) replaces the rest and keeps that.
	const previous = results.queueMode || {};
	results.queueMode = DURABLE_CURSORS
		? {
				...figures,
				...(previous.defaultPollPath ? { defaultPollPath: previous.defaultPollPath } : {}),
			}
		: { ...previous, defaultPollPath: figures };
	fs.mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
	fs.writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, '\t')}\n`);
	log(`wrote the figures to ${path.relative(REPO, RESULTS_FILE)} under "queueMode"`);
}
