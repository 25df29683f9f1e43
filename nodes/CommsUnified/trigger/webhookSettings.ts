/**
 * The trigger's parameters, read and checked (a problem said in words a user can act on), and
 * what must hold before it listens.
 */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHookFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { quotePrefix } from '../../shared/parameters/expressionValues';
import { DEFAULT_WINDOW_SECONDS, MAX_WINDOW_SECONDS } from './replay';
import { DEFAULT_SIGNATURE_HEADER, usableSecret } from './signature';

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface TriggerSettings {
	events: string[];
	signatureHeader: string;
	replayWindowSeconds: number;
	includeHeaders: boolean;
}

type SettingsResult = { settings: TriggerSettings } | { problem: string; description?: string };

/** Reads and checks the node's parameters; a problem is said in words a user can act on. */
export function readSettings(ctx: IHookFunctions | IWebhookFunctions): SettingsResult {
	const events = ctx.getNodeParameter('events', []) as unknown;
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const selected = Array.isArray(events)
		? events.filter((event): event is string => typeof event === 'string')
		: [];
	if (selected.length === 0)
		return {
			problem: 'Select at least one event in Events',
			description: 'The trigger starts the workflow only for the events selected there.',
		};
	const header =
		options.signatureHeader === undefined
			? DEFAULT_SIGNATURE_HEADER
			: String(options.signatureHeader).trim();
	if (!HEADER_NAME.test(header)) {
		return {
			problem: `Signature Header "${quotePrefix(header)}" is not an HTTP header name`,
			description: `Use the name of the header that carries the signature, such as ${DEFAULT_SIGNATURE_HEADER}.`,
		};
	}
	const window =
		options.replayWindowSeconds === undefined
			? DEFAULT_WINDOW_SECONDS
			: Number(options.replayWindowSeconds);
	if (!Number.isInteger(window) || window < 0 || window > MAX_WINDOW_SECONDS) {
		return {
			problem: `Replay Window (Seconds) "${quotePrefix(String(options.replayWindowSeconds))}" must be a whole number from 0 (off) to ${MAX_WINDOW_SECONDS}`,
		};
	}
	return {
		settings: {
			events: selected,
			signatureHeader: header.toLowerCase(),
			replayWindowSeconds: window,
			includeHeaders: options.includeHeaders === true,
		},
	};
}

/** What must hold before the trigger listens: a webhook secret and usable parameters. */
export async function assertReady(ctx: IHookFunctions): Promise<void> {
	const credentials = await ctx.getCredentials<ICredentialDataDecryptedObject>('commsUnifiedApi');
	if (usableSecret(credentials.webhookSecret) === undefined) {
		throw new NodeOperationError(
			ctx.getNode(),
			'The Comms Unified API credential has no Webhook Secret',
			{
				description:
					"Open the credential, paste the webhook signing secret from your provider's dashboard into Webhook Secret, and save. The trigger verifies every event's signature with it, and does not start without one, so that it never accepts unsigned events.",
			},
		);
	}
	const read = readSettings(ctx);
	if ('problem' in read)
		throw new NodeOperationError(ctx.getNode(), read.problem, { description: read.description });
}
