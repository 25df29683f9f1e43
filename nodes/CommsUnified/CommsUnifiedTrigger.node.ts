import type {
	IDataObject,
	IHookFunctions,
	INode,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { redactSecrets } from '../shared/transport';
import { EVENT_OPTIONS, eventItem, parseEvent, UNIFIED_EVENTS } from './trigger/event';
import { quotePrefix } from '../shared/parameters/expressionValues';
import { forgetTrigger, webhookCredentials } from './trigger/credentialCache';
import {
	checkTimestamp,
	DEFAULT_WINDOW_SECONDS,
	eventIdOf,
	eventKey,
	MAX_REMEMBERED_EVENTS,
	MAX_WINDOW_SECONDS,
	recentEvents,
} from './trigger/replay';
import { checkSignature, DEFAULT_SIGNATURE_HEADER, usableSecret } from './trigger/signature';
import { assertReady, readSettings } from './trigger/webhookSettings';

/** Where static data keeps the events taken inside the replay window. */
const STATIC_KEY = 'recentEvents';

/** Answers the request here (n8n sends nothing more) and starts nothing. */
function refuse(
	ctx: IWebhookFunctions,
	status: number,
	message: string,
	headers: Record<string, string> = {},
): IWebhookResponseData {
	const res = ctx.getResponseObject();
	res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
	res.end(JSON.stringify({ message }));
	return { noWebhookResponse: true };
}

function label(node: INode, workflowId: string | undefined): string {
	return `Comms Unified Trigger "${node.name}" (workflow ${workflowId ?? 'unsaved'})`;
}

const UNAUTHORIZED = 'Unauthorized';

const SIGNATURE_PROBLEMS: Record<string, string> = {
	noBody: 'the request has no raw body to verify',
	missing: 'the request has no signature header',
	malformed: 'the signature header is not a hex HMAC-SHA256',
	mismatch: 'the signature does not match the body and the Webhook Secret',
};

export class CommsUnifiedTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Comms Unified Trigger',
		name: 'commsUnifiedTrigger',
		icon: { light: 'file:../../icons/comms.svg', dark: 'file:../../icons/comms.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{($parameter["events"] || []).join(", ")}}',
		description:
			'Starts the workflow when a signed call, SMS or email event of the Comms Unified API arrives',
		defaults: { name: 'Comms Unified Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'commsUnifiedApi', required: true }],
		eventTriggerDescription: 'Waiting for a signed event at the Test URL',
		activationMessage: 'Signed events sent to the Production URL now start this workflow.',
		webhooks: [
			{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' },
		],
		properties: [
			{
				displayName:
					"The API has no way to register this URL for you: give it yourself. Copy the Production URL from Webhook URLs above (the Test URL only works while you listen for a test event; the Production URL once the workflow is published). For a voice call, put it in Webhook URL of the Comms Unified node's Make a Call operation; for SMS and email events, enter it where your provider takes the events address. Every event must be signed with the credential's Webhook Secret.",
				name: 'urlNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				options: EVENT_OPTIONS,
				default: [...UNIFIED_EVENTS],
				required: true,
				description:
					'The events that start the workflow. Others are acknowledged and start nothing.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Include Headers',
						name: 'includeHeaders',
						type: 'boolean',
						default: false,
						description: 'Whether to add the request headers to each item, under "headers"',
					},
					{
						displayName: 'Replay Window (Seconds)',
						name: 'replayWindowSeconds',
						type: 'number',
						typeOptions: { minValue: 0, maxValue: MAX_WINDOW_SECONDS },
						default: DEFAULT_WINDOW_SECONDS,
						description: `Refuse (401) events whose timestamp is older than this (or more than 5 minutes ahead), and acknowledge repeats of an event already taken within it without starting the workflow again. The default, one hour, keeps a sender's late retries. At most ${MAX_REMEMBERED_EVENTS.toLocaleString('en-GB')} events are remembered per window. 0 turns both off.`,
					},
					{
						displayName: 'Signature Header',
						name: 'signatureHeader',
						type: 'string',
						default: DEFAULT_SIGNATURE_HEADER,
						description:
							'The request header that carries the hex HMAC-SHA256 of the body (a "sha256=" prefix is accepted)',
					},
				],
			},
		],
	};

	webhookMethods = {
		default: {
			// The API registers nothing: the user gives the URL to the sender. These only make
			// sure the trigger can verify what arrives before it starts listening.
			async checkExists(this: IHookFunctions): Promise<boolean> {
				await assertReady(this);
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				await assertReady(this);
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				// Unpublished: the credential kept for fast deliveries goes with it.
				forgetTrigger(this.getWorkflow().id, this.getNode());
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const node = this.getNode();
		const workflowId = this.getWorkflow().id;
		const req = this.getRequestObject();
		const read = readSettings(this);
		if ('problem' in read) {
			this.logger.warn(`${label(node, workflowId)} refused an event: ${read.problem}`);
			return refuse(this, 401, UNAUTHORIZED);
		}
		const { settings } = read;
		// The secret, from a short-lived copy in this process when one is there: n8n builds a new
		// expression isolate for every getCredentials() in a webhook, which is most of the time a
		// delivery takes (see credentialCache.ts).
		const rawBody = (req as { rawBody?: unknown }).rawBody;
		const header = req.headers[settings.signatureHeader];
		const { credentials, verdict } = await webhookCredentials(
			this,
			workflowId,
			Date.now(),
			(candidate) =>
				checkSignature({ rawBody, header, secret: usableSecret(candidate.webhookSecret) ?? '' }),
		);
		const secret = usableSecret(credentials.webhookSecret);
		if (secret === undefined) {
			this.logger.warn(
				`${label(node, workflowId)} refused an event: the Comms Unified API credential has no Webhook Secret`,
			);
			return refuse(this, 401, UNAUTHORIZED);
		}

		// The signature, over the bytes exactly as they arrived, before anything is read from them.
		if (verdict !== 'valid') {
			this.logger.warn(
				`${label(node, workflowId)} refused an event (401): ${SIGNATURE_PROBLEMS[verdict] ?? verdict}`,
			);
			return refuse(this, 401, UNAUTHORIZED);
		}
		const body = rawBody as Uint8Array | string;

		const parsed = parseEvent(body);
		if (!parsed.ok) {
			this.logger.warn(
				`${label(node, workflowId)} refused a signed request (400): ${parsed.reason}`,
			);
			return refuse(this, 400, `Not an event: ${parsed.reason}`);
		}
		const { event, payload } = parsed;
		/** The event's name as logs quote it (a sender may put anything there). */
		const named = quotePrefix(event, 40);

		let expiresAtMs = 0;
		if (settings.replayWindowSeconds > 0) {
			const nowMs = Date.now();
			const stamped = checkTimestamp(payload.timestamp, nowMs, settings.replayWindowSeconds);
			if (!stamped.ok) {
				this.logger.warn(
					`${label(node, workflowId)} refused a signed ${named} event (401): its timestamp is ${stamped.reason === 'missing' ? 'missing' : stamped.reason === 'malformed' ? 'not an ISO 8601 date and time with an offset' : 'outside the replay window'}`,
				);
				return refuse(
					this,
					401,
					`${UNAUTHORIZED}: the event's timestamp is missing or outside the accepted window`,
				);
			}
			expiresAtMs = stamped.atMs + settings.replayWindowSeconds * 1000;
		}

		if (!settings.events.includes(event)) {
			this.logger.debug(
				`${label(node, workflowId)} acknowledged a ${named} event that is not selected`,
			);
			return {};
		}

		if (settings.replayWindowSeconds > 0) {
			// From loading static data to marking the event: synchronous, so a delivery arriving at
			// the same moment in this process cannot slip between the check and the mark.
			const staticData = this.getWorkflowStaticData('node');
			const claim = recentEvents.claim({
				scope: [
					workflowId ?? '',
					node.id ?? node.name,
					this.getMode() === 'manual' ? 'test' : 'production',
				].join('\u0000'),
				key: eventKey(payload, body),
				expiresAtMs,
				nowMs: Date.now(),
				windowSeconds: settings.replayWindowSeconds,
				stored: staticData[STATIC_KEY],
			});
			if (claim.kind === 'duplicate') {
				this.logger.debug(
					`${label(node, workflowId)} acknowledged a repeat of a ${named} event already taken`,
				);
				return {};
			}
			if (claim.kind === 'full') {
				// Taking it would mean forgetting an event still inside the window, so that its
				// replay would be accepted; dropping it would lose it. The sender keeps it instead.
				this.logger.warn(
					`${label(node, workflowId)} asked the sender to retry a signed ${named} event in ${claim.retryAfterSeconds} s (503): the replay store already holds ${claim.held} events still inside the ${settings.replayWindowSeconds} s window, its capacity. Shorten Replay Window (Seconds) if events arrive this fast.`,
				);
				return refuse(this, 503, 'Too many recent events: retry later', {
					'retry-after': String(claim.retryAfterSeconds),
				});
			}
			staticData[STATIC_KEY] = claim.remembered as unknown as IDataObject;
		}

		const json: IDataObject = eventItem(payload, eventIdOf(payload, body)) as IDataObject;
		if (settings.includeHeaders) json.headers = { ...req.headers } as IDataObject;
		const secrets = [secret, typeof credentials.apiKey === 'string' ? credentials.apiKey : ''];
		return { workflowData: [[{ json: redactSecrets(json, secrets) }]] };
	}
}
