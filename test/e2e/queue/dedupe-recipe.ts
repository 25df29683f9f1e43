// The recipe docs/queue-mode.md gives for several webhook processes, as a workflow: the Comms
// Unified Trigger, then n8n's own Redis node increments a key named after the event's `eventId`
// (atomic in Redis, whichever worker runs it; the key expires with the replay window), and n8n's
// own If node lets the event on only where the count is 1. Each event reaches the rest of the
// workflow once, also when two webhook processes both started it. For the run's check, every
// start also posts the event to the collector ("all") and each one let on posts it again ("once").

import crypto from 'node:crypto';
import { collectNode } from '../rig/collector.ts';
import type { CredentialRef, Workflow, WorkflowNode } from '../rig/types.ts';

export const RECIPE_ALL = '/multi-all';
export const RECIPE_ONCE = '/multi-once';

export function dedupeRecipeWorkflow(
	name: string,
	trigger: Omit<WorkflowNode, 'position'>,
	redis: CredentialRef,
	collectorUrl: string,
): Workflow {
	const triggerName = trigger.name;
	const once = collectNode('Collect once', collectorUrl, RECIPE_ONCE, [880, 0]);
	once.parameters.jsonBody = `={{ JSON.stringify($('${triggerName}').item.json) }}`;
	return {
		name,
		nodes: [
			{ position: [0, 0], ...trigger } as WorkflowNode,
			collectNode('Collect all', collectorUrl, RECIPE_ALL, [220, 200]),
			{
				id: crypto.randomUUID(),
				name: 'Count this event',
				type: 'n8n-nodes-base.redis',
				typeVersion: 1,
				position: [220, 0],
				parameters: {
					operation: 'incr',
					key: '=comms-event:{{ $json.eventId }}',
					expire: true,
					ttl: 3600,
				},
				credentials: { redis },
			},
			{
				id: crypto.randomUUID(),
				name: 'First time?',
				type: 'n8n-nodes-base.if',
				typeVersion: 2.3,
				position: [440, 0],
				parameters: {
					conditions: {
						options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 3 },
						conditions: [
							{
								id: crypto.randomUUID(),
								leftValue: '={{ Object.values($json)[0] }}',
								rightValue: 1,
								operator: { type: 'number', operation: 'equals' },
							},
						],
						combinator: 'and',
					},
					options: {},
				},
			},
			once,
		],
		connections: {
			[triggerName]: {
				main: [
					[
						{ node: 'Count this event', type: 'main', index: 0 },
						{ node: 'Collect all', type: 'main', index: 0 },
					],
				],
			},
			'Count this event': { main: [[{ node: 'First time?', type: 'main', index: 0 }]] },
			'First time?': { main: [[{ node: 'Collect once', type: 'main', index: 0 }], []] },
		},
		settings: { executionOrder: 'v1' },
		active: false,
	};
}
