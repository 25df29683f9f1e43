#!/usr/bin/env node
// The main job: start the sandbox, run every example workflow in examples/ through n8n's
// own engine (n8n-core's WorkflowExecute) with the sandbox's credentials, and print what
// each node did. Run it with `npm run demo` (after the build).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

// build/ is tsc's development tree (sandbox, harness); the nodes themselves are loaded from
// dist/, the bundled files the package ships.
const root = path.join(__dirname, '..');
const build = path.join(root, 'build');
require(path.join(build, 'harness', 'environment')).prepareN8nEnvironment('demo');
const { startSandbox } = require(path.join(build, 'sandbox'));
const { runWorkflow, usePublishedPackage } = require(path.join(build, 'harness'));
usePublishedPackage(root);

function short(value, width = 110) {
	const text = JSON.stringify(value);
	return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

async function main() {
	const sandbox = await startSandbox({ port: 0 });
	const credentials = {
		commsAccountApi: { apiKey: sandbox.credentials.account.unrestricted, baseUrl: sandbox.accountBaseUrl },
		commsUnifiedApi: { apiKey: sandbox.credentials.unified.test, endpointUrl: sandbox.unifiedUrl, webhookSecret: sandbox.credentials.webhookSecret },
	};
	console.log(`Sandbox running at ${sandbox.url} (Account API and Unified API, no account needed)\n`);
	const examples = fs.readdirSync(path.join(__dirname, '..', 'examples')).filter((f) => f.endsWith('.json')).sort();
	let failed = 0;
	try {
		for (const file of examples) {
			const workflow = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'examples', file), 'utf8'));
			console.log(`▶ ${workflow.name}  (examples/${file})`);
			const started = Date.now();
			const result = await runWorkflow(workflow, { credentials });
			for (const node of workflow.nodes) {
				const task = result.task(node.name);
				if (!task) continue;
				if (task.error) {
					console.log(`  ✗ ${node.name}: ${task.error.message}`);
					continue;
				}
				const items = result.output(node.name);
				console.log(`  ✓ ${node.name}: ${items.length} item${items.length === 1 ? '' : 's'}`);
				for (const item of items.slice(0, 3)) console.log(`      ${short(item.json)}`);
				if (items.length > 3) console.log(`      … and ${items.length - 3} more`);
				for (const hint of task.hints ?? []) console.log(`      hint: ${hint.message}`);
			}
			if (result.error) {
				failed++;
				console.log(`  workflow failed: ${result.error.message}`);
			}
			console.log(`  (${Date.now() - started} ms)\n`);
		}
		const received = sandbox.requests();
		console.log(`The sandbox received ${received.length} API requests; the first few, keys masked as it logs them:`);
		for (const entry of received.slice(0, 4)) console.log(`  ${entry.method} ${entry.path} → ${entry.status}  key ${entry.keyMask}`);
	} finally {
		await sandbox.stop();
	}
	if (failed) {
		console.error(`\n${failed} example workflow(s) failed`);
		process.exit(1);
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
