/**
 * Runs a workflow, as a user would save it, through n8n's own engine (`WorkflowExecute` from
 * n8n-core), with our node types registered and credentials applied through each
 * credential's own `authenticate`. Requests go out over real HTTP.
 */
import type {
	ICredentialDataDecryptedObject,
	IConnections,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	IRun,
	IRunExecutionData,
	ITaskData,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	IWorkflowSettings,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { createRunExecutionData, Expression, Workflow } from 'n8n-workflow';
import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';

import { InMemoryCredentialsHelper } from './credentialsHelper';
import { credentialTypes, HarnessNodeTypes } from './nodeTypes';

export interface WorkflowJson {
	name?: string;
	nodes: INode[];
	connections: IConnections;
	settings?: IWorkflowSettings;
	staticData?: IDataObject;
}

export interface RunOptions {
	/** Decrypted credential data by credential type name. */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** Items the start node receives (default: one empty item). */
	input?: INodeExecutionData[];
	/** Name of the node to start from (default: the first node without inputs). */
	startNode?: string;
	/** Extra node types for the run, by full type name. */
	nodeTypes?: Record<string, INodeType>;
	mode?: WorkflowExecuteMode;
	/** The execution's id (default `harness-execution`); n8n gives every execution, a retry included, a new one. */
	executionId?: string;
}

export interface WorkflowResult {
	run: IRun;
	/** Output items of each node's first run, first output. */
	output(nodeName: string, outputIndex?: number): INodeExecutionData[];
	/** The task data of a node's first run (for errors and hints). */
	task(nodeName: string): ITaskData | undefined;
	/** The error the run stopped on, if any. */
	error: IRun['data']['resultData']['error'];
}

let engineReady: Promise<void> | undefined;

/** Real n8n 2.x evaluates expressions in the `vm` engine; so do we. */
export function initExpressionEngine(): Promise<void> {
	engineReady ??= Expression.initExpressionEngine({
		engine: 'vm',
		bridgeTimeout: 5000,
		bridgeMemoryLimit: 128,
		poolSize: 1,
		maxCodeCacheSize: 1024,
	});
	return engineReady;
}

export function buildWorkflow(json: WorkflowJson, nodeTypes = new HarnessNodeTypes()): Workflow {
	return new Workflow({
		id: 'harness',
		name: json.name ?? 'harness',
		nodes: json.nodes,
		connections: json.connections,
		nodeTypes,
		active: false,
		settings: json.settings,
		staticData: json.staticData,
	});
}

export function buildAdditionalData(
	credentials: Record<string, ICredentialDataDecryptedObject>,
	hooks?: ExecutionLifecycleHooks,
	extra: Partial<IWorkflowExecuteAdditionalData> = {},
): IWorkflowExecuteAdditionalData {
	const base = {
		credentialsHelper: new InMemoryCredentialsHelper(credentialTypes(), credentials),
		hooks,
		executeWorkflow: async () => {
			throw new Error('Sub-workflows are not available in harness runs');
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678/',
		formBaseUrl: 'http://127.0.0.1:5678/form',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		formTestBaseUrl: 'http://127.0.0.1:5678/form-test',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
		// An execution id, as n8n gives every run: Send and Wait signs its resume link with it.
		executionId: 'harness-execution',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		mcpBaseUrl: 'http://127.0.0.1:5678/mcp',
		mcpTestBaseUrl: 'http://127.0.0.1:5678/mcp-test',
		variables: {},
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('Task runners are not available in harness runs');
		},
	};
	return { ...base, ...extra } as unknown as IWorkflowExecuteAdditionalData;
}

function startNodeOf(workflow: Workflow, name?: string): INode {
	if (name) {
		const node = workflow.getNode(name);
		if (!node) throw new Error(`No node named "${name}"`);
		return node;
	}
	const targets = new Set(Object.keys(workflow.connectionsByDestinationNode));
	const start = Object.values(workflow.nodes).find(
		(node) => !targets.has(node.name) && !node.disabled,
	);
	if (!start) throw new Error('The workflow has no node without inputs to start from');
	return start;
}

/** Runs `runExecutionData` through a new engine, as n8n does for a new or a resumed execution. */
async function execute(
	json: WorkflowJson,
	options: RunOptions,
	runExecutionData: IRunExecutionData,
): Promise<WorkflowResult> {
	await initExpressionEngine();
	const workflow = buildWorkflow(json, new HarnessNodeTypes(options.nodeTypes));
	const mode = options.mode ?? 'manual';
	const workflowData = {
		id: workflow.id,
		name: workflow.name,
		nodes: json.nodes,
		connections: json.connections,
		active: false,
	} as unknown as IWorkflowBase;
	const hooks = new ExecutionLifecycleHooks(mode, `harness-${Date.now()}`, workflowData);
	let resolveFinished!: (run: IRun) => void;
	const finished = new Promise<IRun>((resolve) => (resolveFinished = resolve));
	hooks.addHandler('workflowExecuteAfter', (run) => resolveFinished(run));

	const additionalData = buildAdditionalData(
		options.credentials ?? {},
		hooks,
		options.executionId ? { executionId: options.executionId } : {},
	);
	const engine = new WorkflowExecute(additionalData, mode, runExecutionData);
	await engine.processRunExecutionData(workflow);
	const run = await finished;
	const runData = run.data.resultData.runData;
	return {
		run,
		error: run.data.resultData.error,
		task: (nodeName) => runData[nodeName]?.[0],
		output: (nodeName, outputIndex = 0) => runData[nodeName]?.[0]?.data?.main?.[outputIndex] ?? [],
	};
}

export async function runWorkflow(
	json: WorkflowJson,
	options: RunOptions = {},
): Promise<WorkflowResult> {
	const workflow = buildWorkflow(json, new HarnessNodeTypes(options.nodeTypes));
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{
					node: startNodeOf(workflow, options.startNode),
					data: { main: [options.input ?? [{ json: {} }]] },
					source: null,
				},
			],
		},
	});
	return await execute(json, options, runExecutionData);
}

/**
 * Carries on with an execution that a node parked (its run ended with `waitTill`), as n8n does
 * when the wait is over: the saved run data goes through JSON, as n8n stores it, and a new engine
 * (new cancel signal, nothing kept in memory from the first run) runs it. The options are the
 * first run's (credentials may be changed, as a person may change them while it waits).
 */
export async function resumeWorkflow(
	json: WorkflowJson,
	parked: WorkflowResult,
	options: RunOptions = {},
): Promise<WorkflowResult> {
	if (!parked.run.data.waitTill) throw new Error('The execution is not waiting');
	const saved = JSON.parse(JSON.stringify(parked.run.data)) as IRunExecutionData;
	return await execute(json, options, saved);
}

let retries = 0;

/**
 * The editor's Retry of a failed execution, as n8n 2.41's `ExecutionService.retry` does it: the
 * failed execution's saved data (through JSON, as stored, its `contextData` included), its error
 * removed and the failed run of the last node dropped, run again by a new engine from where it
 * stopped, as a new execution (a new id). `loadWorkflow`: the editor's "Retry with currently saved
 * workflow": `json` is the workflow as saved since (parameters edited), and each node on the
 * execution stack is replaced by the saved one of its name, as n8n does; otherwise `json` is the
 * workflow the failed execution ran.
 */
export async function retryFailedExecution(
	json: WorkflowJson,
	failed: WorkflowResult,
	options: RunOptions & { loadWorkflow?: boolean } = {},
): Promise<WorkflowResult> {
	if (!failed.error) throw new Error('The execution did not fail');
	const saved = JSON.parse(JSON.stringify(failed.run.data)) as IRunExecutionData;
	const { lastNodeExecuted } = saved.resultData;
	delete saved.resultData.error;
	const runs = lastNodeExecuted ? saved.resultData.runData?.[lastNodeExecuted] : undefined;
	if (runs?.length && runs[runs.length - 1].error !== undefined) runs.pop();
	const { loadWorkflow, ...rest } = options;
	if (loadWorkflow) {
		// As n8n does: the nodes of a Workflow built from the saved one (its parameters' defaults filled in).
		const workflow = buildWorkflow(json, new HarnessNodeTypes(options.nodeTypes));
		for (const entry of saved.executionData?.nodeExecutionStack ?? []) {
			const node = workflow.getNode(entry.node.name);
			if (!node) throw new Error(`The saved workflow has no node "${entry.node.name}"`);
			entry.node = node;
		}
	}
	return await execute(
		json,
		{ executionId: `harness-retry-${++retries}`, ...rest, mode: 'retry' },
		saved,
	);
}
