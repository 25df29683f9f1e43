/**
 * Runs a polling trigger the way n8n 2.41 does, through n8n-core's own `PollContext`:
 *
 * - each poll builds the workflow afresh from what the "database" holds (a JSON copy kept
 *   here), with the node's static data as n8n stores it between polls;
 * - `poll()` runs in the context's mode: `trigger` (an active workflow: activation `activate`
 *   for the poll n8n makes when the workflow is published, `update` for the scheduled ones)
 *   or `manual` ("Fetch Test Event", as n8n-core's WorkflowExecute runs a poll node);
 * - after a poll that succeeded, its static data is saved, as n8n saves it:
 *   - `cursors: 'staticData'` (n8n's default): when it changed through the object
 *     `getWorkflowStaticData` returned (n8n's `__dataChanged`), whole;
 *   - `cursors: 'durable'` (N8N_POLLER_DURABLE_CURSORS_ENABLED): the node works on a copy of
 *     its own static data, committed with the execution it starts, or alone when it emitted
 *     nothing, and only if it differs from what was loaded. The poll n8n runs when it
 *     publishes a workflow (activation other than `update`) runs as a test of the trigger:
 *     its copy is committed only if it emitted. The workflow's own static data (`global`) is
 *     saved after that poll and after a poll that emitted, never after a scheduled poll that
 *     emitted nothing (n8n 2.41: poll-trigger-executor, trigger-execution-context.factory);
 *     commits are fenced: a poll whose node state was committed by another poll after it was
 *     loaded (an overlapping poll) commits nothing and starts no execution (`fenced`);
 *   a poll that throws saves nothing, and neither does a test run;
 * - `keepContext` (default path only): n8n keeps the workflow and one poll context from
 *   activation for every poll of an active workflow, with its static data in memory, saved
 *   when a poll changed it; `restart()` stands for a new n8n process;
 * - `crashBeforeSave` stands for n8n stopping between handing the items on and saving: the
 *   items are emitted, the state is not stored (what durable cursors rule out);
 * - the items a poll returns start the rest of the workflow through `WorkflowExecute`, from
 *   the trigger, as n8n runs a polled execution.
 *
 * Credentials reach the node through the credential's own `authenticate` (see
 * credentialsHelper.ts), exactly as in workflow runs.
 */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { PollContext } from 'n8n-core';

import { HarnessNodeTypes } from './nodeTypes';
import {
	buildAdditionalData,
	initExpressionEngine,
	runWorkflow,
	type WorkflowJson,
	type WorkflowResult,
} from './runWorkflow';

export interface PollHarnessOptions {
	/** The trigger's name (default: the first polling node). */
	nodeName?: string;
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** How n8n keeps the poller's state between polls (see above). */
	cursors?: 'staticData' | 'durable';
	/** What `getPollBudgetMs()` answers (n8n-core's default: 5 minutes). */
	budgetMs?: number;
	/** Default path: one workflow and poll context for every poll, as n8n keeps them (see above). */
	keepContext?: boolean;
	/** Extra node types by full type name. */
	nodeTypes?: Record<string, INodeType>;
	workflowId?: string;
}

export interface PollOptions {
	mode?: Extract<WorkflowExecuteMode, 'trigger' | 'manual'>;
	activation?: WorkflowActivateMode;
	/** n8n stops after emitting and before saving: the items go on, the state is not stored. */
	crashBeforeSave?: boolean;
}

export interface PollRun {
	/** The items of the trigger's first output, or null when the poll returned nothing. */
	items: INodeExecutionData[] | null;
	/** What `poll()` threw. */
	error?: Error;
	/** Whether the node asked for its static data. */
	readStaticData: boolean;
	/** Whether this poll's state was stored. */
	saved: boolean;
	/** Durable cursors: another poll committed first, so this one committed and started nothing. */
	fenced?: boolean;
	/** The execution the items started (when the trigger has nodes after it). */
	execution?: Promise<WorkflowResult>;
	/** Wall time the poll took, ms. */
	durationMs: number;
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value ?? {})) as T;

export class PollHarness {
	/** The workflow's static data as the database holds it. */
	storedStaticData: IDataObject;
	readonly runs: PollRun[] = [];
	readonly node: INode;
	private readonly nodeTypes: HarnessNodeTypes;
	private readonly nodeType: INodeType;
	private readonly credentials: Record<string, ICredentialDataDecryptedObject>;
	private readonly workflowId: string;
	/** The workflow and poll context n8n keeps between polls (`keepContext`). */
	private kept: { workflow: Workflow; context: PollContext } | undefined;

	constructor(
		private readonly json: WorkflowJson,
		private readonly options: PollHarnessOptions = {},
	) {
		this.nodeTypes = new HarnessNodeTypes(options.nodeTypes);
		this.credentials = options.credentials ?? {};
		this.workflowId = options.workflowId ?? 'harness-poll';
		this.storedStaticData = clone(json.staticData ?? {});
		const node = options.nodeName
			? json.nodes.find((candidate) => candidate.name === options.nodeName)
			: json.nodes.find(
					(candidate) =>
						this.nodeTypes.getByNameAndVersion(candidate.type, candidate.typeVersion).description
							.polling === true,
				);
		if (!node)
			throw new Error(
				options.nodeName
					? `No node named "${options.nodeName}"`
					: 'The workflow has no polling node',
			);
		this.node = node;
		this.nodeType = this.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		if (typeof this.nodeType.poll !== 'function') throw new Error(`${node.type} has no poll()`);
	}

	/** The key n8n keeps a node's static data under. */
	private get key(): string {
		return `node:${this.node.name}`;
	}

	/** The trigger's own static data as stored (a copy). */
	nodeStaticData(): IDataObject {
		return clone((this.storedStaticData[this.key] ?? {}) as IDataObject);
	}

	/** Replaces what is stored, as a restart from a saved copy does. */
	restore(staticData: IDataObject): void {
		this.storedStaticData = clone(staticData);
	}

	/** A new n8n process: nothing kept in memory survives, only what was stored. */
	restart(): void {
		this.kept = undefined;
	}

	/** The poll n8n makes when the workflow is published. */
	async activate(): Promise<PollRun> {
		return await this.poll({ activation: 'activate' });
	}

	/** "Fetch Test Event". */
	async fetchTestEvent(): Promise<PollRun> {
		return await this.poll({ mode: 'manual', activation: 'manual' });
	}

	async poll({
		mode = 'trigger',
		activation = mode === 'manual' ? 'manual' : 'update',
		crashBeforeSave = false,
	}: PollOptions = {}): Promise<PollRun> {
		await initExpressionEngine();
		const durable = this.options.cursors === 'durable' && mode !== 'manual';
		const keep = this.options.keepContext === true && !durable && mode === 'trigger';
		const kept = keep ? this.kept : undefined;
		// Loaded from the database for this poll, as n8n does (or kept from activation).
		const workflow =
			kept?.workflow ??
			new Workflow({
				id: this.workflowId,
				name: this.json.name ?? 'harness',
				nodes: this.json.nodes,
				connections: this.json.connections,
				nodeTypes: this.nodeTypes,
				active: mode !== 'manual',
				settings: this.json.settings,
				staticData: clone(this.storedStaticData),
			});
		const seed = clone((this.storedStaticData[this.key] ?? {}) as IDataObject);
		const snapshot = clone(seed);
		let readStaticData = false;
		const resolveNodeStaticData = () => {
			readStaticData = true;
			return durable ? snapshot : workflow.getStaticData('node', this.node);
		};
		const additionalData = buildAdditionalData(this.credentials);
		const budgetMs = this.options.budgetMs;
		const context =
			kept?.context ??
			new PollContext(
				workflow,
				this.node,
				additionalData,
				mode,
				activation,
				undefined,
				undefined,
				undefined,
				undefined,
				resolveNodeStaticData,
				budgetMs === undefined ? undefined : () => budgetMs,
			);
		if (keep) this.kept = { workflow, context };

		const started = performance.now();
		const run: PollRun = { items: null, readStaticData: false, saved: false, durationMs: 0 };
		this.runs.push(run);
		try {
			const result = await workflow.expression.withIsolate(
				async () => await this.nodeType.poll!.call(context),
			);
			run.items = result?.[0] ?? null;
		} catch (error) {
			run.error = error as Error;
		}
		run.durationMs = performance.now() - started;
		run.readStaticData = readStaticData;

		if (!run.error && mode !== 'manual' && !crashBeforeSave) {
			const committed = JSON.stringify(this.storedStaticData[this.key] ?? {});
			if (durable && committed !== JSON.stringify(seed)) {
				// Fenced: another poll committed this node's state after this one loaded it.
				run.fenced = true;
				run.items = null;
			} else if (durable) {
				const emitted = run.items !== null;
				const publishing = activation !== 'update';
				if ((emitted || !publishing) && JSON.stringify(snapshot) !== JSON.stringify(seed)) {
					this.storedStaticData = { ...this.storedStaticData, [this.key]: clone(snapshot) };
					run.saved = true;
				}
				const flags = workflow.staticData as IDataObject & { __dataChanged?: boolean };
				if ((emitted || publishing) && flags.__dataChanged === true) {
					const { __dataChanged: _flag, [this.key]: _cursor, ...rest } = clone(flags);
					this.storedStaticData = { ...rest, [this.key]: this.storedStaticData[this.key] };
					if (this.storedStaticData[this.key] === undefined) delete this.storedStaticData[this.key];
				}
			} else if ((workflow.staticData as { __dataChanged?: boolean }).__dataChanged === true) {
				const { __dataChanged: _flag, ...data } = clone(
					workflow.staticData as IDataObject & { __dataChanged?: boolean },
				);
				this.storedStaticData = data;
				run.saved = true;
				// Saved: n8n clears the flag on the workflow it keeps.
				(workflow.staticData as { __dataChanged?: boolean }).__dataChanged = false;
			}
		}

		const downstream = Object.keys(this.json.connections[this.node.name] ?? {}).length > 0;
		if (run.items && run.items.length > 0 && downstream && mode !== 'manual') {
			run.execution = runWorkflow(
				{ ...this.json, staticData: this.storedStaticData },
				{
					credentials: this.credentials,
					nodeTypes: this.options.nodeTypes,
					startNode: this.node.name,
					input: run.items,
					mode: 'trigger',
				},
			);
		}
		return run;
	}

	/** Every execution started so far, finished. */
	async executions(): Promise<WorkflowResult[]> {
		return await Promise.all(this.runs.flatMap((run) => (run.execution ? [run.execution] : [])));
	}
}
