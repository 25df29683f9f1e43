// A scripted OpenAI-compatible chat model on loopback, for n8n's OpenAI Chat Model node (its
// credential's Base URL points here). It keeps every request, so a check can read exactly what
// n8n told the model: the tools' names, descriptions and JSON schemas, and each tool result.
//
// The script travels in the user's prompt: `SCRIPT {"tool": "<part of a tool name>",
// "args": {...}, "times": 1}`. While fewer than `times` tool results are in the conversation the
// model calls that tool with `args`; then it answers `Tool results: <each result>`.
// Both the plain and the streamed (SSE) forms of /chat/completions are answered.

import http from 'node:http';
import type net from 'node:net';
import type { Json } from './types.ts';

interface ChatMessage {
	role: string;
	content: Json;
}

export interface ChatRequest {
	model: string;
	stream?: boolean;
	messages?: ChatMessage[];
	tools?: Json[];
}

interface ToolCall {
	id: string;
	name: string;
	arguments: string;
}

type Turn = { toolCall: ToolCall; content?: undefined } | { toolCall?: undefined; content: string };

export interface ScriptedModel {
	url: string;
	requests(): ChatRequest[];
	conversation(marker: string): ChatRequest[];
	stop(): Promise<void>;
}

export function textOf(content: Json): string {
	if (typeof content === 'string') return content;
	if (Array.isArray(content))
		return content
			.map((part: Json) => (typeof part === 'string' ? part : (part.text ?? '')))
			.join('');
	return content == null ? '' : JSON.stringify(content);
}

function scriptOf(messages: ChatMessage[]): Json {
	const user = messages
		.filter((m) => m.role === 'user' || m.role === 'human')
		.map((m) => textOf(m.content));
	for (const text of user) {
		const at = text.indexOf('SCRIPT ');
		if (at >= 0) return JSON.parse(text.slice(at + 'SCRIPT '.length).trim());
	}
	return { times: 0 };
}

/** What the model says next: a tool call, or the final answer. */
function nextTurn(body: ChatRequest): Turn {
	const messages = body.messages || [];
	const script = scriptOf(messages);
	const results = messages.filter((m) => m.role === 'tool').map((m) => textOf(m.content));
	const tools: { name: string }[] = (body.tools || []).map((t) => t.function || t);
	if (results.length < (script.times ?? 1)) {
		const tool = tools.find((t) => t.name.includes(script.tool || ''));
		if (!tool)
			return { content: `No tool matching "${script.tool}" among ${tools.map((t) => t.name)}` };
		return {
			toolCall: {
				id: `call_${results.length + 1}`,
				name: tool.name,
				arguments: JSON.stringify(script.args || {}),
			},
		};
	}
	return { content: `Tool results: ${results.map((r) => `<<${r}>>`).join(' ')}` };
}

function completion(turn: Turn, model: string) {
	const message = turn.toolCall
		? {
				role: 'assistant',
				content: null,
				tool_calls: [
					{
						id: turn.toolCall.id,
						type: 'function',
						function: { name: turn.toolCall.name, arguments: turn.toolCall.arguments },
					},
				],
			}
		: { role: 'assistant', content: turn.content };
	return {
		id: `chatcmpl-${Date.now()}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model,
		choices: [{ index: 0, message, finish_reason: turn.toolCall ? 'tool_calls' : 'stop' }],
		usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
	};
}

function streamed(res: http.ServerResponse, turn: Turn, model: string): void {
	const base = { id: `chatcmpl-${Date.now()}`, object: 'chat.completion.chunk', created: 0, model };
	const send = (choice: Json) =>
		res.write(`data: ${JSON.stringify({ ...base, choices: [choice] })}\n\n`);
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	if (turn.toolCall) {
		send({
			index: 0,
			delta: {
				role: 'assistant',
				content: null,
				tool_calls: [
					{
						index: 0,
						id: turn.toolCall.id,
						type: 'function',
						function: { name: turn.toolCall.name, arguments: turn.toolCall.arguments },
					},
				],
			},
			finish_reason: null,
		});
		send({ index: 0, delta: {}, finish_reason: 'tool_calls' });
	} else {
		send({ index: 0, delta: { role: 'assistant', content: turn.content }, finish_reason: null });
		send({ index: 0, delta: {}, finish_reason: 'stop' });
	}
	res.write(
		`data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } })}\n\n`,
	);
	res.end('data: [DONE]\n\n');
}

export async function startScriptedModel(): Promise<ScriptedModel> {
	const requests: ChatRequest[] = [];
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			try {
				if (req.method === 'GET' && req.url!.endsWith('/models')) {
					res.writeHead(200, { 'content-type': 'application/json' });
					res.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted', object: 'model' }] }));
					return;
				}
				if (req.method !== 'POST' || !req.url!.endsWith('/chat/completions')) {
					res.writeHead(404, { 'content-type': 'application/json' });
					res.end(JSON.stringify({ error: { message: `not scripted: ${req.method} ${req.url}` } }));
					return;
				}
				const body: ChatRequest = JSON.parse(Buffer.concat(chunks).toString('utf8'));
				requests.push(body);
				const turn = nextTurn(body);
				if (body.stream) streamed(res, turn, body.model);
				else {
					res.writeHead(200, { 'content-type': 'application/json' });
					res.end(JSON.stringify(completion(turn, body.model)));
				}
			} catch (error) {
				res.writeHead(500, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ error: { message: String(error && error.message) } }));
			}
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/v1`;
	return {
		url,
		/** Every /chat/completions body, in arrival order. */
		requests: () => requests.slice(),
		/** The requests of the conversation whose prompt contains `marker`. */
		conversation: (marker: string) =>
			requests.filter((body) =>
				(body.messages || []).some((m) => textOf(m.content).includes(marker)),
			),
		stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
