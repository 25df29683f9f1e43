import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { defaultCountryOption, phoneDocIdLocator } from '../shared/parameters/descriptions';
import { getNumbers } from './api/numbersList';
import { forgetConnection, getConnection } from '../shared/transport';
import { accountApi } from './api/accountApi';
import { DEFAULT_LOOK_BACK_MINUTES } from './trigger/cursorState';
import { latestReceived } from './trigger/smsHistoryReads';
import { claimPoll } from './trigger/pollLifecycle';
import {
	type CallMode,
	pollFinalStatusEvent,
	testFinalStatusEvent,
} from './trigger/callEndedAndSmsDelivered';
import { declared, readFilter, readSetup } from './trigger/pollSettings';
import { pollSmsReceived } from './trigger/smsReceived';

type TriggerEvent = 'smsReceived' | 'callEnded' | 'smsDelivered';

export class CommsAccountTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Comms Account Trigger',
		name: 'commsAccountTrigger',
		icon: { light: 'file:../../icons/comms.svg', dark: 'file:../../icons/comms.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{ $parameter["event"] === "callEnded" ? "call ended" : $parameter["event"] === "smsDelivered" ? "SMS delivered" : "SMS received" }}',
		description:
			'Starts the workflow when one of your Comms Account numbers receives an SMS, a call ends, or a sent SMS is delivered',
		defaults: { name: 'Comms Account Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'commsAccountApi', required: true }],
		properties: [
			{
				// What an older n8n lacks: it works on the default poll path there.
				displayName:
					"In production, run n8n 2.41 or later with its durable poll cursors: then a crash of n8n while a poll hands its records on cannot start them twice or lose them. Older n8n versions use the default poll path, exactly once in every other case (see the package's documentation)",
				name: 'durableCursorsNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				noDataExpression: true,
				default: 'smsReceived',
				options: [
					{
						name: 'SMS Received',
						value: 'smsReceived',
						description: 'An SMS arrives on one of your numbers',
					},
					{
						name: 'Call Ended',
						value: 'callEnded',
						description: 'A manual or AI call reaches a final state (once per call)',
					},
					{
						name: 'SMS Delivered',
						value: 'smsDelivered',
						description: 'A sent SMS is confirmed delivered by the carrier (once per message)',
					},
				],
			},
			{
				displayName: 'Call Mode',
				name: 'callMode',
				type: 'options',
				noDataExpression: true,
				default: 'manual',
				displayOptions: { show: { event: ['callEnded'] } },
				options: [
					{ name: 'Manual', value: 'manual', description: 'Calls that ring your agent first' },
					{
						name: 'AI',
						value: 'ai',
						description: 'AI calls (the API reads them by number: Phone Number is required)',
					},
				],
			},
			{
				...phoneDocIdLocator,
				required: false,
				// Empty means every number, in both modes: "By ID" must accept an empty value, or n8n
				// marks the node as having issues and every execution it starts fails.
				modes: (phoneDocIdLocator.modes ?? []).map((mode) =>
					mode.name === 'id'
						? {
								...mode,
								validation: [
									{
										type: 'regex' as const,
										properties: {
											regex: '(\\S+)?',
											errorMessage:
												'Enter a phoneDocId without spaces, or leave it empty for every number',
										},
									},
								],
							}
						: mode,
				),
				description:
					'Only events of this number. Leave empty for every number of the account (AI calls need a number).',
			},
			{
				displayName: 'Peer',
				name: 'peer',
				type: 'string',
				default: '',
				placeholder: 'e.g. +44 7700 900123',
				description:
					'Only SMS from (or, for SMS Delivered and calls, to) this phone number. International form, or national form with the Default Country option. Leave empty for any.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					defaultCountryOption,
					{
						displayName: 'Include Last Minutes',
						name: 'includeLastMinutes',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 0,
						description:
							'On the first poll after the workflow is published, also start for events of the last this many minutes. 0 starts from that moment: no history.',
					},
					{
						displayName: 'Late Arrival Window (Minutes)',
						name: 'lookBackMinutes',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: DEFAULT_LOOK_BACK_MINUTES,
						description:
							'Each poll also looks this far back, for records the API stores late with an earlier time. Records stored later than this are missed.',
					},
				],
			},
		],
	};

	methods = { listSearch: { getNumbers } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		try {
			await getConnection(this, accountApi).catch((error: unknown) => {
				// The credential's own rules (key prefix, HTTPS): someone has to fix the credential.
				throw new NodeOperationError(this.getNode(), error as Error, {
					failure: { cause: 'credential-invalid' },
				});
			});
			const event = this.getNodeParameter('event', 'smsReceived') as TriggerEvent;
			const callMode = this.getNodeParameter('callMode', 'manual') as CallMode;
			const filter = readFilter(this);

			// "Fetch Test Event": the latest matching record; no state is read or moved.
			if (this.getMode() === 'manual') {
				const latest: IDataObject =
					event === 'smsReceived'
						? await latestReceived(this, filter, Date.now())
						: await testFinalStatusEvent(this, filter, event, callMode);
				return [this.helpers.returnJsonArray([latest])];
			}

			const started = Date.now();
			// One poll of this trigger at a time: another one still running (a slow page, a 429
			// waited out) reads the same state, and both would emit what they find.
			const release = claimPoll(this, started);
			if (!release) {
				this.logger.debug(
					'Comms Account Trigger: the previous poll of this trigger is still running; this one is skipped',
				);
				return null;
			}
			try {
				const setup = readSetup(this, filter, started);
				return event === 'smsReceived'
					? await pollSmsReceived(this, setup)
					: await pollFinalStatusEvent(this, setup, event, callMode);
			} finally {
				release();
			}
		} catch (error) {
			// Thrown in both modes: a test run shows it; an active workflow's poller reads the
			// declared cause to back off (a 429 for its wait, a dead key or suspended account for
			// longest) and the next poll starts from the state this one left untouched.
			throw declared(this, error);
		} finally {
			// n8n's default poll path keeps this context for every poll of the active workflow:
			// the credential is read afresh each poll, and not kept in memory between them.
			forgetConnection(this);
		}
	}
}
