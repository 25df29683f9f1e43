// Real n8n, end to end (`npm run test:e2e`; `npm run build` first). The scenarios, in order:
//   scenarios/account-send-sms.ts           examples/account-send-sms.json via `n8n execute`
//   scenarios/unified-send-sms.ts           examples/unified-send-sms.json via `n8n execute`
//   scenarios/account-call-and-history.ts   SMS sent and found in the history, a call placed and read
//   scenarios/retry-on-fail.ts              Retry On Fail (Max Tries 3) sends the SMS that went once
//   scenarios/package-loaded.ts             n8n serves every node, AI tool and credential
//   scenarios/sms-trigger.ts                Comms Account Trigger, published, in `n8n start`
//   scenarios/account-trigger-lifecycle/    its three events through restarts, both poll paths
//   scenarios/webhook-trigger.ts            Comms Unified Trigger: signed, forged, stale, repeated
//   scenarios/execution-state.ts            the Spending Cap across a 70 s Wait and an n8n restart
//   scenarios/retry-after-edit.ts           the editor's Retry after raising the cap: one call each
//   scenarios/editor/                       the editor in headless Chromium (+ README picture)
//   scenarios/ai-agent/                     AI Agent tools, Send and Wait answered in a browser
// The rig (rig/suite.ts, declareSuite) installs n8n 2.41.1 once into a cache, packs this package
// and installs it into a fresh n8n user folder as n8n does, starts the sandbox in this process,
// imports every credential and workflow, and runs each scenario as a test of Node.js's own test
// runner (spec reporter), printing `e2e: N passed, N failed` last (rig/summary-reporter.ts).
// `npm run test:versions` (versions.ts) runs the same suite, less what only the latest n8n needs,
// in the older n8n versions the package supports.
// Options (environment): see README.md in this folder.

import fs from 'node:fs';
import path from 'node:path';
import { loadSandbox, REPO, type CommsSandbox } from './comms.ts';
import { startCollector } from './rig/collector.ts';
import { E2eError, log } from './rig/proc.ts';
import { startScriptedModel } from './rig/scripted-model.ts';
import { LATEST, type N8nProfile } from './rig/n8n-versions.ts';
import { after } from 'node:test';
import { abortCurrent, declareSuite, type Suite, tally } from './rig/suite.ts';
import { accountCallAndHistoryScenario } from './scenarios/account-call-and-history.ts';
import { accountSendSmsScenario } from './scenarios/account-send-sms.ts';
import { lifecycleScenario } from './scenarios/account-trigger-lifecycle/index.ts';
import { retryOnFailScenario } from './scenarios/retry-on-fail.ts';
import { aiScenario } from './scenarios/ai-agent/index.ts';
import { editorScenario } from './scenarios/editor/index.ts';
import { executionStateScenario } from './scenarios/execution-state.ts';
import { retryAfterEditScenario } from './scenarios/retry-after-edit.ts';
import { packageLoadedScenario } from './scenarios/package-loaded.ts';
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

/**
 * The suite for one n8n version: this package, the sandbox, the examples, then the live
 * scenarios. The latest n8n gets every scenario; an older one what the package promises there
 * (every node loads, Account send, history and a call, Unified SMS, both triggers, the AI tools
 * and Send and Wait), without the editor in a browser, Retry On Fail and the trigger's lifecycle
 * through restarts, which test the package rather than the n8n version.
 */
export function commsSuite(profile: N8nProfile = LATEST, repo = REPO): Suite {
	const latest = profile === LATEST;
	return {
		n8n: profile,
		packageDir: repo,
		preflight() {
			const missing = ['dist', 'build/sandbox/index.js']
				.filter((file) => !fs.existsSync(path.join(repo, file)))
				.map((file) => `${file} (run \`npm run build\`)`);
			if (missing.length > 0)
				throw new E2eError(`cannot run the real-n8n test, missing:\n  - ${missing.join('\n  - ')}`);
		},
		startServer: startCommsSandbox,
		scenarios: [
			accountSendSmsScenario(repo),
			unifiedSendSmsScenario(repo),
			accountCallAndHistoryScenario(),
			...(latest ? [retryOnFailScenario()] : []),
		],
		liveScenarios: [
			packageLoadedScenario(repo),
			smsTriggerScenario,
			...(latest ? [lifecycleScenario('default'), lifecycleScenario('durable')] : []),
			webhookTriggerScenario,
			...(latest ? [executionStateScenario, retryAfterEditScenario, editorScenario(repo)] : []),
			aiScenario(repo, profile.has),
		],
	};
}

/** How many scenarios a suite counts. */
function scenarioCount(suite: Suite): number {
	return suite.scenarios.length + (suite.liveScenarios || []).length;
}

/**
 * Declares the suites, one after another (each n8n version in a fresh user folder), as node:test
 * suites; the summary reporter prints `<label>: N passed, N failed` last (package.json runs it
 * beside the spec reporter). A suite that cannot start fails all its scenarios, and the next one
 * still runs. A signal or the run's time limit stops everything, saying so in the same line.
 */
export function declareRun(suites: Suite[], label = 'e2e'): void {
	process.env.E2E_SUMMARY = label;
	const total = suites.reduce((sum, suite) => sum + scenarioCount(suite), 0);
	const stopNow = (code: number) => {
		abortCurrent();
		process.stdout.write(`${label}: 0 passed, ${total} failed\n`);
		process.exit(code);
	};
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
		process.on(signal, () => {
			log(`${signal}: stopping`);
			stopNow(130);
		});
	// A closed stdout/stderr (say `| head`) must end the run cleanly, not crash it
	// half-way with n8n still running.
	for (const stream of [process.stdout, process.stderr]) {
		stream.on('error', () => {
			abortCurrent();
			process.exit(1);
		});
	}
	for (const suite of suites) {
		const n8n = suite.n8n ?? LATEST;
		declareSuite(suite, `n8n ${n8n.n8n} on Node.js ${n8n.node}`, {
			timeoutMs: RUN_TIMEOUT_MS,
			onTimeout: () => {
				process.stderr.write(`${label}: timed out after ${Math.round(RUN_TIMEOUT_MS / 1000)}s\n`);
				stopNow(1);
			},
		});
	}
	// node:test reports the end of the run once nothing is left to do in this process; should a
	// keep-alive socket or a child's pipe hold it open, the run still ends, with the same line.
	after(() => {
		setTimeout(() => {
			log('something held the run open after the last scenario: ending it');
			process.stdout.write(`${label}: ${tally.passed} passed, ${tally.failed} failed\n`);
			process.exit(tally.failed === 0 ? 0 : 1);
		}, 15_000).unref();
	});
}

if (import.meta.main) declareRun([commsSuite()]);
