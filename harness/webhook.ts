/**
 * Runs a webhook trigger the way n8n 2.41 does, through n8n-core's own `WebhookContext`:
 *
 * - activation: `checkExists`, then `create` when it answers false (n8n's
 *   createWebhookIfNotExists), in a `HookContext`;
 * - each request: the workflow's static data is loaded from the "database" (a JSON copy kept
 *   here) before the node runs, the body is read as n8n's body parser reads it (`rawBody` as a
 *   Buffer of the bytes received, `body` parsed from it for JSON), the node's `webhook()` runs
 *   with the request and response in `additionalData`, static data is saved back only if it
 *   changed through the object `getWorkflowStaticData` returned (whole, last writer wins), and
 *   the answer follows n8n's rules: the node's own answer with `noWebhookResponse`, 200 "Webhook
 *   call received" when it starts nothing, and for `onReceived` 200 "Workflow was started" at
 *   once while the workflow runs through `WorkflowExecute`;
 * - `listen()`: a loopback HTTP server with n8n's URL layout (`/webhook/<webhookId>/<path>` for
 *   production, `/webhook-test/...` for test), so a real sender (the sandbox) can deliver.
 *
 * Two requests handled at once each load static data before either saves, as in n8n.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeType,
	IWebhookData,
	IWebhookDescription,
	IWebhookResponseData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { HookContext, WebhookContext } from 'n8n-core';

import { HarnessNodeTypes } from './nodeTypes';
import {
	buildAdditionalData,
	initExpressionEngine,
	runWorkflow,
	type WorkflowJson,
	type WorkflowResult,
} from './runWorkflow';

export interface WebhookRequest {
	/** Header names in any case; they reach the node lower-cased, as Node.js gives them. */
	headers: Record<string, string | string[] | undefined>;
	/** The body exactly as sent. */
	body: Buffer | string;
	method?: string;
	query?: Record<string, string>;
}

export interface WebhookReply {
	status: number;
	headers: Record<string, string>;
	/** The response body as text. */
	text: string;
	/** The response body parsed as JSON (undefined when it is not JSON). */
	json: unknown;
}

export interface WebhookCall {
	reply: WebhookReply;
	/** What the node's `webhook()` returned (undefined when it was not reached or threw). */
	result?: IWebhookResponseData;
	/** The error `webhook()` threw, if it did. */
	error?: Error;
	/** The execution the request started; settles when the workflow has finished. */
	execution?: Promise<WorkflowResult>;
}

export interface WebhookHarnessOptions {
	/** The trigger node's name (default: the first node with a webhook). */
	nodeName?: string;
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** `webhook` (production, the default) or `manual` (a test URL). */
	mode?: WorkflowExecuteMode;
	/** Extra node types by full type name. */
	nodeTypes?: Record<string, INodeType>;
	/** The workflow's id (scopes in-process state, as n8n's workflow id does). */
	workflowId?: string;
}

/** n8n's answer when a webhook starts nothing and says nothing itself. */
const RECEIVED = { message: 'Webhook call received' };
/** n8n's answer in `onReceived` mode once the execution is created. */
const STARTED = { message: 'Workflow was started' };

function lowerCaseHeaders(headers: WebhookRequest['headers']): http.IncomingHttpHeaders {
	const out: http.IncomingHttpHeaders = {};
	for (const [name, value] of Object.entries(headers))
		if (value !== undefined) out[name.toLowerCase()] = value;
	return out;
}

/** The answer being written, shaped like the parts of express's Response a node uses. */
class CapturedResponse {
	statusCode = 200;
	headersSent = false;
	finished = false;
	private readonly headers: Record<string, string> = {};
	private chunks: string[] = [];

	status(code: number): this {
		this.statusCode = code;
		return this;
	}

	setHeader(name: string, value: string | number | readonly string[]): this {
		this.headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
		return this;
	}

	getHeader(name: string): string | undefined {
		return this.headers[name.toLowerCase()];
	}

	header(name: string, value: string): this {
		return this.setHeader(name, value);
	}

	set(name: string, value: string): this {
		return this.setHeader(name, value);
	}

	writeHead(code: number, headers: Record<string, string | number> = {}): this {
		this.statusCode = code;
		for (const [name, value] of Object.entries(headers)) this.setHeader(name, value);
		this.headersSent = true;
		return this;
	}

	write(chunk: string | Uint8Array): boolean {
		this.headersSent = true;
		this.chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
		return true;
	}

	end(chunk?: string | Uint8Array): this {
		if (chunk !== undefined) this.write(chunk);
		this.headersSent = true;
		this.finished = true;
		return this;
	}

	send(body?: unknown): this {
		if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array))
			return this.json(body);
		if (typeof body === 'string' && !this.getHeader('content-type'))
			this.setHeader('content-type', 'text/html; charset=utf-8');
		return this.end(body as string | Uint8Array | undefined);
	}

	json(body: unknown): this {
		if (!this.getHeader('content-type'))
			this.setHeader('content-type', 'application/json; charset=utf-8');
		return this.end(JSON.stringify(body));
	}

	reply(): WebhookReply {
		const text = this.chunks.join('');
		let json: unknown;
		try {
			json = text === '' ? undefined : JSON.parse(text);
		} catch {
			json = undefined;
		}
		return { status: this.statusCode, headers: { ...this.headers }, text, json };
	}
}

function answer(status: number, body: unknown): WebhookReply {
	const text = JSON.stringify(body);
	return {
		status,
		headers: { 'content-type': 'application/json; charset=utf-8' },
		text,
		json: body,
	};
}

/** The media type of a Content-Type header, lower-cased, as n8n's `req.contentType`. */
function mediaType(value: string | string[] | undefined): string | undefined {
	const text = Array.isArray(value) ? value[0] : value;
	return text?.split(';')[0].trim().toLowerCase() || undefined;
}

export class WebhookHarness {
	/** The workflow's static data as the database holds it. */
	storedStaticData: IDataObject;
	/** Every request handled, in arrival order. */
	readonly calls: WebhookCall[] = [];
	readonly node: INode;
	private readonly nodeTypes: HarnessNodeTypes;
	private readonly nodeType: INodeType;
	private readonly description: IWebhookDescription;
	private readonly workflowId: string;
	private readonly credentials: Record<string, ICredentialDataDecryptedObject>;
	private readonly mode: WorkflowExecuteMode;
	private readonly extraNodeTypes?: Record<string, INodeType>;

	constructor(
		private readonly json: WorkflowJson,
		options: WebhookHarnessOptions = {},
	) {
		this.nodeTypes = new HarnessNodeTypes(options.nodeTypes);
		this.extraNodeTypes = options.nodeTypes;
		this.credentials = options.credentials ?? {};
		this.mode = options.mode ?? 'webhook';
		this.workflowId = options.workflowId ?? 'harness-webhook';
		this.storedStaticData = JSON.parse(JSON.stringify(json.staticData ?? {})) as IDataObject;
		const node = options.nodeName
			? json.nodes.find((candidate) => candidate.name === options.nodeName)
			: json.nodes.find(
					(candidate) =>
						this.nodeTypes.getByNameAndVersion(candidate.type, candidate.typeVersion).description
							.webhooks?.length,
				);
		if (!node)
			throw new Error(
				options.nodeName
					? `No node named "${options.nodeName}"`
					: 'The workflow has no webhook node',
			);
		this.node = node;
		this.nodeType = this.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		const description = this.nodeType.description.webhooks?.find(
			(webhook) => webhook.name === 'default',
		);
		if (!description || typeof this.nodeType.webhook !== 'function')
			throw new Error(`${node.type} has no default webhook`);
		this.description = description;
	}

	/** The path after `/webhook/` (n8n: `<webhookId>/<path>` for a node with a webhookId). */
	get path(): string {
		const path = String(this.description.path ?? '');
		return this.node.webhookId ? `${this.node.webhookId}/${path}` : path;
	}

	private workflow(): Workflow {
		return new Workflow({
			id: this.workflowId,
			name: this.json.name ?? 'harness',
			nodes: this.json.nodes,
			connections: this.json.connections,
			nodeTypes: this.nodeTypes,
			active: this.mode !== 'manual',
			settings: this.json.settings,
			// A fresh copy each time, as n8n loads it from the database for every request.
			staticData: JSON.parse(JSON.stringify(this.storedStaticData)) as IDataObject,
		});
	}

	private webhookData(
		workflow: Workflow,
		additionalData: ReturnType<typeof buildAdditionalData>,
	): IWebhookData {
		return {
			httpMethod: 'POST',
			node: this.node.name,
			path: this.path,
			webhookDescription: this.description,
			workflowId: workflow.id,
			workflowExecuteAdditionalData: additionalData,
			webhookId: this.node.webhookId,
			isTest: this.mode === 'manual',
		};
	}

	/**
	 * What n8n does when the workflow is published (or a test listener starts): `checkExists`,
	 * then `create` if it answered false. Throws what the node throws.
	 */
	async activate(): Promise<void> {
		await initExpressionEngine();
		const workflow = this.workflow();
		const additionalData = buildAdditionalData(this.credentials);
		const context = new HookContext(
			workflow,
			this.node,
			additionalData,
			this.mode,
			this.mode === 'manual' ? 'manual' : 'activate',
			this.webhookData(workflow, additionalData),
		);
		const methods = this.nodeType.webhookMethods?.default;
		if (!methods) return;
		await workflow.expression.withIsolate(async () => {
			const exists = await methods.checkExists.call(context);
			if (!exists) await methods.create.call(context);
		});
	}

	/** What n8n does when the workflow is unpublished. */
	async deactivate(): Promise<void> {
		const workflow = this.workflow();
		const additionalData = buildAdditionalData(this.credentials);
		const context = new HookContext(
			workflow,
			this.node,
			additionalData,
			this.mode,
			'update',
			this.webhookData(workflow, additionalData),
		);
		await this.nodeType.webhookMethods?.default?.delete.call(context);
	}

	/** Handles one request as n8n's webhook handler does; resolves once the answer is known. */
	async deliver(request: WebhookRequest): Promise<WebhookCall> {
		// Loaded first, before anything awaits: two requests at once both see the state from before either.
		const workflow = this.workflow();
		const call: WebhookCall = { reply: answer(500, { message: 'not handled' }) };
		this.calls.push(call);
		const headers = lowerCaseHeaders(request.headers);
		const rawBody =
			typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : request.body;
		const contentType = mediaType(headers['content-type']);

		// n8n's body parser: multipart is left to its form parser (no rawBody); JSON is parsed
		// from rawBody, and a body that does not parse is answered 422 before any node runs.
		let body: unknown = {};
		const multipart = contentType?.startsWith('multipart/') === true;
		if (!multipart && rawBody.length > 0) {
			const text = rawBody.toString('utf8').replace(/^\uFEFF/, '');
			if (contentType === 'application/json') {
				try {
					body = JSON.parse(text);
				} catch {
					call.reply = answer(422, { code: 422, message: 'Failed to parse request body' });
					return call;
				}
			} else if (contentType === 'text/plain') {
				body = text;
			}
		}
		const req = {
			method: request.method ?? 'POST',
			url: `/webhook/${this.path}`,
			headers,
			rawHeaders: Object.entries(headers).flatMap(([name, value]) =>
				Array.isArray(value) ? value.flatMap((v) => [name, v]) : [name, String(value)],
			),
			contentType,
			encoding: 'utf-8',
			rawBody: multipart ? undefined : rawBody,
			body,
			query: request.query ?? {},
			params: {},
			header: (name: string) => headers[name.toLowerCase()],
			get: (name: string) => headers[name.toLowerCase()],
		};
		const res = new CapturedResponse();

		await initExpressionEngine();
		const additionalData = buildAdditionalData(this.credentials, undefined, {
			httpRequest: req,
			httpResponse: res,
		} as never);
		const context = new WebhookContext(
			workflow,
			this.node,
			additionalData,
			this.mode,
			this.webhookData(workflow, additionalData),
			[],
			null,
		);
		let result: IWebhookResponseData;
		try {
			result = await workflow.expression.withIsolate(
				async () => await this.nodeType.webhook!.call(context),
			);
		} catch (error) {
			// n8n answers 500 and records a failed execution; the error stays with the call.
			call.error = error as Error;
			call.reply = answer(500, {
				code: 0,
				message: 'Workflow Webhook Error: Workflow could not be started!',
			});
			return call;
		}
		call.result = result;

		// n8n saves static data once the answer is settled, and only if it changed through the proxy.
		if ((workflow.staticData as { __dataChanged?: boolean }).__dataChanged === true) {
			this.storedStaticData = JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject;
		}

		if (result.noWebhookResponse === true) {
			call.reply = res.reply();
			if (!res.finished)
				throw new Error('The node claimed the response (noWebhookResponse) but did not end it');
		}
		if (result.workflowData === undefined) {
			if (result.noWebhookResponse !== true)
				call.reply = answer(
					200,
					result.webhookResponse !== undefined ? result.webhookResponse : RECEIVED,
				);
			return call;
		}
		const workflowData = result.workflowData;
		call.execution = runWorkflow(
			{ ...this.json, staticData: this.storedStaticData },
			{
				credentials: this.credentials,
				nodeTypes: this.extraNodeTypes,
				startNode: this.node.name,
				input: workflowData[0] ?? [],
				mode: this.mode,
			},
		);
		if (result.noWebhookResponse !== true) {
			const mode = this.description.responseMode ?? 'onReceived';
			if (mode !== 'onReceived')
				throw new Error(`The harness answers only onReceived webhooks, not "${String(mode)}"`);
			call.reply = answer(
				200,
				result.webhookResponse !== undefined ? result.webhookResponse : STARTED,
			);
		}
		return call;
	}

	/**
	 * A loopback HTTP server with n8n's URL layout: production `/webhook/<path>`, test
	 * `/webhook-test/<path>` (both handled in this harness's mode). Resolves with its URLs.
	 */
	async listen(): Promise<{
		baseUrl: string;
		productionUrl: string;
		testUrl: string;
		close(): Promise<void>;
	}> {
		const server = http.createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				const url = new URL(req.url ?? '/', 'http://127.0.0.1');
				const known =
					url.pathname === `/webhook/${this.path}` || url.pathname === `/webhook-test/${this.path}`;
				const send = (reply: WebhookReply) => {
					res.writeHead(reply.status, reply.headers);
					res.end(reply.text);
				};
				if (!known)
					return send(
						answer(404, { code: 404, message: 'The requested webhook is not registered.' }),
					);
				if (req.method !== 'POST')
					return send(
						answer(405, { code: 405, message: `This webhook is not registered for ${req.method}` }),
					);
				this.deliver({
					headers: req.headers as WebhookRequest['headers'],
					body: Buffer.concat(chunks),
					query: Object.fromEntries(url.searchParams),
				}).then(
					(call) => send(call.reply),
					(error: Error) => send(answer(500, { message: error.message })),
				);
			});
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as AddressInfo;
		const baseUrl = `http://127.0.0.1:${port}`;
		return {
			baseUrl,
			productionUrl: `${baseUrl}/webhook/${this.path}`,
			testUrl: `${baseUrl}/webhook-test/${this.path}`,
			close: () =>
				new Promise<void>((resolve) => {
					server.closeAllConnections();
					server.close(() => resolve());
				}),
		};
	}

	/** Every execution started so far, finished. */
	async executions(): Promise<WorkflowResult[]> {
		return await Promise.all(
			this.calls.flatMap((call) => (call.execution ? [call.execution] : [])),
		);
	}
}
