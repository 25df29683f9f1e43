/**
 * Every workflow in examples/ runs through n8n's engine against the sandbox without an
 * error, so the examples users import (and the demo and end-to-end run) stay valid.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { runWorkflow, type WorkflowJson } from '../../harness';
import { accountCredentials, unifiedCredentials, useSandbox } from '../support/sandbox';

const sandbox = useSandbox();
const dir = path.join(__dirname, '..', '..', 'examples');
const files = fs.readdirSync(dir).filter((file) => file.endsWith('.json'));

it('there are examples', () => expect(files.length).toBeGreaterThan(0));

it.each(files)('examples/%s runs without an error and every node produces items', async (file) => {
	const workflow = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as WorkflowJson;
	const result = await runWorkflow(workflow, {
		credentials: {
			...accountCredentials(sandbox()),
			...unifiedCredentials(sandbox(), sandbox().credentials.unified.test),
		},
	});
	expect(result.error).toBeUndefined();
	for (const node of workflow.nodes) expect(result.output(node.name).length).toBeGreaterThan(0);
});
