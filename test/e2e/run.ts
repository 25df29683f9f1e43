// Real n8n, end to end (`npm run test:e2e`; `npm run build` first). The scenarios, in order:
//   scenarios/account-send-sms.ts           examples/account-send-sms.json via `n8n execute`
//   scenarios/unified-send-sms.ts           examples/unified-send-sms.json via `n8n execute`
//   scenarios/retry-on-fail.ts              Retry On Fail (Max Tries 3) sends the SMS that went once
//   scenarios/sms-trigger.ts                Comms Account Trigger, published, in `n8n start`
//   scenarios/account-trigger-lifecycle/    its three events through restarts, both poll paths
//   scenarios/webhook-trigger.ts            Comms Unified Trigger: signed, forged, stale, repeated
//   scenarios/execution-state.ts            the Spending Cap across a 70 s Wait and an n8n restart
//   scenarios/editor/                       the editor in headless Chromium (+ README picture)
//   scenarios/ai-agent/                     AI Agent tools, Send and Wait answered in a browser
// The rig (rig/suite.ts, runSuite) installs n8n 2.41.1 once into a cache, packs this package and installs
// it into a fresh n8n user folder as n8n does, starts the sandbox in this process, imports
// every credential and workflow, runs them, and prints `e2e: N passed, N failed` last.
// Options (environment): see README.md in this folder.

import fs from 'node:fs';
import path from 'node:path';
import { loadSandbox, REPO, type CommsSandbox } from './comms.ts';
import { startCollector } from './rig/collector.ts';
import { E2eError, log } from './rig/proc.ts';
import { startScriptedModel } from './rig/scripted-model.ts';
import { abortCurrent, runSuite, type Suite } from './rig/suite.ts';
import { accountSendSmsScenario } from './scenarios/account-send-sms.ts';
import { lifecycleScenario } from './scenarios/account-trigger-lifecycle/index.ts';
import { retryOnFailScenario } from './scenarios/retry-on-fail.ts';
import { aiScenario } from './scenarios/ai-agent/index.ts';
import { editorScenario } from './scenarios/editor/index.ts';
import { executionStateScenario } from './scenarios/execution-state.ts';
import { smsTriggerScenario } from './scenarios/sms-trigger.ts';
import { unifiedSendSmsScenario } from './scenarios/unified-send-sms.ts';
import { webhookTriggerScenario } from './scenarios/webhook-trigger.ts';

const RUN_TIMEOUT_MS = Number(process.env.E2E_TIMEOUT_MS) || 15 * 60 * 1000;

/** The sandbox with the collector and the scripted chat model beside it, stopped together. */
async function startCommsSandbox(): Promise<CommsSandbox> {
	// autoSettleMs: webhooks go out and calls move on while nobody calls the API, as in life.
	const sandbox = await loadSandbox().startSandbox({ port: 0, autoSettleMs: 1000 });
	const collector = await startCollector();
	// The OpenAI-compatible model the AI Agent scenarios' Chat Model nodes talk to.
	const model = await startScriptedModel();
	const stopSandbox = sandbox.stop.bind(sandbox);
	return Object.assign(sandbox, {
		collector,
		model,
		stop: async () => {
			await collector.stop();
			await model.stop();
			await stopSandbox();
		},
	});
}

/** The suite: this package, the sandbox, the examples, then the live scenarios. */
function commsSuite(repo = REPO): Suite {
	return {
		packageDir: repo,
		preflight() {
			const missing = ['dist', 'build/sandbox/index.js']
				.filter((file) => !fs.existsSync(path.join(repo, file)))
				.map((file) => `${file} (run \`npm run build\`)`);
			if (missing.length > 0)
				throw new E2eError(`cannot run the real-n8n test, missing:\n  - ${missing.join('\n  - ')}`);
		},
		startServer: startCommsSandbox,
		scenarios: [accountSendSmsScenario(repo), unifiedSendSmsScenario(repo), retryOnFailScenario()],
		// E2E_ONLY=<regular expression>: run only the live scenarios whose name matches.
		liveScenarios: [
			smsTriggerScenario,
			lifecycleScenario('default'),
			lifecycleScenario('durable'),
			webhookTriggerScenario,
			executionStateScenario,
			editorScenario(repo),
			aiScenario(repo),
		].filter((s) => !process.env.E2E_ONLY || new RegExp(process.env.E2E_ONLY, 'i').test(s.name)),
	};
}

/** The summary line the CI parser reads: `e2e: N passed, N failed`, alone on a line. */
function summary(passed: number, failed: number): void {
	process.stdout.write(`e2e: ${passed} passed, ${failed} failed\n`);
}

async function main(suite: Suite): Promise<void> {
	const total = suite.scenarios.length + (suite.liveScenarios || []).length;
	const onSignal = (signal: NodeJS.Signals) => {
		log(`${signal}: stopping`);
		abortCurrent();
		summary(0, total);
		process.exit(130);
	};
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
	// A closed stdout/stderr (say `| head`) must end the run cleanly, not crash it
	// half-way with n8n still running.
	for (const stream of [process.stdout, process.stderr]) {
		stream.on('error', () => {
			abortCurrent();
			process.exit(1);
		});
	}
	try {
		const { passed, failed } = await runSuite(suite, {
			timeoutMs: RUN_TIMEOUT_MS,
			onTimeout: () => {
				process.stderr.write(`e2e: timed out after ${Math.round(RUN_TIMEOUT_MS / 1000)}s\n`);
				summary(0, total);
				process.exit(1);
			},
		});
		summary(passed, failed);
		// Exit explicitly: a keep-alive socket left open must not hold the run open.
		process.exit(failed === 0 && passed === total ? 0 : 1);
	} catch (error) {
		process.stderr.write(`e2e: ${error.message}\n`);
		if (error.details) process.stderr.write(`${error.details}\n`);
		else if (!(error instanceof E2eError)) process.stderr.write(`${error.stack}\n`);
		summary(0, total);
		process.exit(1);
	}
}

if (import.meta.main) void main(commsSuite());
