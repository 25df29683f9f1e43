// n8n's CLI with the e2e environment: any command (`n8nCli`), and `n8n execute --rawOutput` with
// its output read back (`executeWorkflow`): n8n prints the run document among its own log lines,
// so the run is found in the output and a failed run is reported with the log around it.

import type { N8nInstall } from './n8n-install.ts';
import { E2eError, run, type RunOptions } from './proc.ts';
import type { Json } from './types.ts';

/** Time limit for one n8n CLI command. */
const N8N_COMMAND_TIMEOUT_MS = Number(process.env.N8N_E2E_COMMAND_TIMEOUT_MS) || 3 * 60 * 1000;

/** Runs `n8n <args>` with Node.js 24 and the e2e environment. */
export function n8nCli(
	n8n: N8nInstall,
	env: NodeJS.ProcessEnv,
	args: string[],
	options: RunOptions = {},
) {
	return run(n8n.node, [n8n.n8nBin, ...args], {
		cwd: env.N8N_USER_FOLDER,
		env,
		timeoutMs: N8N_COMMAND_TIMEOUT_MS,
		echo: process.env.E2E_VERBOSE === '1' ? `  n8n ${args[0]}| ` : undefined,
		label: `n8n ${args.join(' ')}`,
		...options,
	});
}

/**
 * Splits `n8n execute --rawOutput` output into the run document and the rest.
 * n8n prints the run as pretty JSON through its logger (on stdout, at level
 * info), and its other log lines (task broker ready, Python runner missing,
 * license SDK, encryption key notices; on failure an error report and a stack)
 * come before and after it, so take the longest span of whole lines that parses.
 * Resolves to { doc, logLines } (doc null when no JSON was found).
 */
function splitRawOutput(stdout: string): { doc: Json; logLines: string[] } {
	const lines = stdout.split('\n');
	const starts: number[] = [];
	const ends: number[] = [];
	lines.forEach((line, index) => {
		if (/^[{[]\s*$/.test(line) || /^[{[]/.test(line)) starts.push(index);
		if (/^[}\]]\s*$/.test(line)) ends.push(index);
	});
	for (const start of starts) {
		for (let k = ends.length - 1; k >= 0 && ends[k] >= start; k -= 1) {
			try {
				const doc = JSON.parse(lines.slice(start, ends[k] + 1).join('\n'));
				const logLines = [...lines.slice(0, start), ...lines.slice(ends[k] + 1)].filter((line) =>
					line.trim(),
				);
				return { doc, logLines };
			} catch {
				// Try a shorter span.
			}
		}
	}
	return { doc: null, logLines: lines.filter((line) => line.trim()) };
}

/** The run document from `n8n execute --rawOutput`, or an E2eError saying why not. */
function parseRawOutput(stdout: string): Json {
	const { doc } = splitRawOutput(stdout);
	if (doc === null) {
		throw new E2eError(
			'could not find the run JSON in `n8n execute --rawOutput` output (it needs N8N_LOG_LEVEL=info or more)',
			`--- stdout ---\n${stdout.trimEnd()}`,
		);
	}
	return doc;
}

/** A one-line account of why a run failed, from its run document. */
function describeRunError(doc: Json): string | null {
	const error = doc?.data?.resultData?.error;
	if (!error) return null;
	const node = error.node?.name ? `node "${error.node.name}" failed: ` : '';
	const extra = [error.description, error.httpCode && `HTTP ${error.httpCode}`]
		.filter(Boolean)
		.join('; ');
	return `${node}${error.message || 'unknown error'}${extra ? ` (${extra})` : ''}`;
}

/** The last `max` characters of some log lines, for an error report. */
function tailOf(lines: string[], max = 4000): string {
	const text = lines.join('\n');
	return text.length > max ? `…${text.slice(-max)}` : text;
}

/**
 * `n8n execute --id=<workflowId> --rawOutput`: resolves to the run document of a successful
 * run, or throws an E2eError with n8n's log (without the run JSON) as its details.
 */
export async function executeWorkflow(
	n8n: N8nInstall,
	env: NodeJS.ProcessEnv,
	workflowId: string,
): Promise<Json> {
	const result = await n8nCli(n8n, env, ['execute', `--id=${workflowId}`, '--rawOutput'], {
		check: false,
	});
	const { doc, logLines } = splitRawOutput(result.stdout);
	const logTail = `--- n8n log (without the run JSON) ---\n${tailOf([...logLines, ...result.stderr.split('\n')].filter((l) => l.trim()))}`;
	const runError = describeRunError(doc);
	if (runError) throw new E2eError(`workflow failed: ${runError}`, logTail);
	if (result.code !== 0) throw new E2eError(`n8n execute exited with code ${result.code}`, logTail);
	const runDoc = doc ?? parseRawOutput(result.stdout); // throws when there is no JSON
	const finished =
		runDoc.status === 'running' && runDoc.finished === true && n8n.profile.executePrintsRunning;
	if (runDoc.status && runDoc.status !== 'success' && !finished)
		throw new E2eError(`execution status is "${runDoc.status}", expected "success"`, logTail);
	return runDoc;
}
