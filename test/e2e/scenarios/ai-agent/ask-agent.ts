// Asking one agent chain of the AI scenario (agent-tools.ts) for an SMS: the prompt carries the
// script the scripted model follows; what comes back is the agent's answer, the model's first
// request (the tools it was offered) and each tool result as the model read it.

import { expect } from '../../comms.ts';
import type { ChatRequest, ScriptedModel } from '../../rig/scripted-model.ts';
import { textOf } from '../../rig/scripted-model.ts';
import type { Json } from '../../rig/types.ts';

export interface AgentRun {
	answer: string;
	first: ChatRequest;
	results: string[];
}

/** Posts the prompt to the chain's webhook (`url`) and reads the conversation back. */
export async function askAgent(
	model: ScriptedModel,
	url: string,
	name: string,
	marker: string,
	script: Json,
): Promise<AgentRun> {
	const prompt = `Please text our customer (${marker}). SCRIPT ${JSON.stringify(script)}`;
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ prompt }),
	});
	const text = await response.text();
	expect(
		response.status === 200,
		`${name}: the workflow answered ${response.status}: ${text.slice(0, 400)}`,
	);
	const conversation = model.conversation(marker);
	expect(
		conversation.length >= 2,
		`${name}: the model was asked ${conversation.length} time(s), expected a tool call and an answer`,
		text.slice(0, 400),
	);
	const last = conversation[conversation.length - 1];
	// Each tool result as the model read it; a JSON error item's text unescaped.
	const results = (last.messages ?? [])
		.filter((m) => m.role === 'tool')
		.map((m) => textOf(m.content))
		.map((text: string) => {
			try {
				const parsed = JSON.parse(text);
				const first = Array.isArray(parsed) ? parsed[0] : parsed;
				return first && typeof first.error === 'string' ? `error: ${first.error}` : text;
			} catch {
				return text;
			}
		});
	return { answer: text, first: conversation[0], results };
}

/** The tool the model was offered whose name contains `namePart` (it must be there). */
export function toolOf(request: ChatRequest, namePart: string): Json {
	const tools: Json[] = (request.tools || []).map((t) => t.function || t);
	const tool = tools.find((t) => t.name.includes(namePart));
	expect(
		tool,
		`the model was offered no tool named like "${namePart}" (offered: ${tools.map((t: Json) => t.name).join(', ')})`,
	);
	return tool;
}
