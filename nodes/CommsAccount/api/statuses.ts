/**
 * When a call or an SMS of the Account API has ended: the one definition every part of the
 * package uses (the Comms Account Trigger's Call Ended and SMS Delivered, and its Fetch Test
 * Event). Pure.
 *
 * The API documents `ringing-agent`, `no-answer-agent`, `busy` and `completed` for manual calls,
 * `initiated` and `completed` for AI calls, `sent` then `delivered` for SMS, and says other
 * statuses exist ("other statuses between agent answer and bridge: not shown"; "failure states:
 * not shown"). So a status is final only when it is known to be final: the documented endings,
 * and words that can only mean the call or SMS failed for good. Any other status, one never
 * seen before included, means it is still in progress: waiting on a status nobody listed costs
 * at most the day a record is watched, where taking it for an ending fires the event early and
 * loses the real end.
 */

export type StatusKind = 'call' | 'sms';

/** The endings the API documents: a manual call's `no-answer-agent`, `busy` and `completed`, an AI call's `completed`; an SMS's `delivered`. */
const DOCUMENTED_ENDINGS: Record<StatusKind, readonly string[]> = {
	call: ['completed', 'busy', 'no-answer-agent'],
	sms: ['delivered'],
};

/**
 * Words that say a call or an SMS failed for good, as telephony providers use them (the API
 * documents no failure status). A call that rings out (`no-answer`, the customer's side of the
 * documented `no-answer-agent`) has ended too.
 */
export const FAILURE_STATUSES: readonly string[] = [
	'failed',
	'canceled',
	'cancelled',
	'rejected',
	'undelivered',
	'expired',
	'error',
];
const CALL_ALSO_FINAL = ['no-answer'];

/**
 * Statuses known to be on the way to an ending: the documented ones (`ringing-agent`,
 * `initiated`, `sent`) and those providers commonly report. In progress like any other, but
 * not news: a status outside every list here is said once in n8n's log, so users can report it.
 */
const KNOWN_IN_PROGRESS: Record<StatusKind, readonly string[]> = {
	call: [
		'ringing-agent',
		'initiated',
		'queued',
		'ringing',
		'ringing-customer',
		'in-progress',
		'answered',
		'connecting',
		'bridged',
	],
	sms: ['sent', 'queued', 'accepted', 'sending'],
};

const FINAL: Record<StatusKind, ReadonlySet<string>> = {
	call: new Set([...DOCUMENTED_ENDINGS.call, ...CALL_ALSO_FINAL, ...FAILURE_STATUSES]),
	sms: new Set([...DOCUMENTED_ENDINGS.sms, ...FAILURE_STATUSES]),
};
const KNOWN: Record<StatusKind, ReadonlySet<string>> = {
	call: new Set([...FINAL.call, ...KNOWN_IN_PROGRESS.call]),
	sms: new Set([...FINAL.sms, ...KNOWN_IN_PROGRESS.sms]),
};

/**
 * A status as compared: trimmed, lower case, with spaces and underscores as hyphens
 * (`No_Answer` is `no-answer`); '' when the record has no readable status.
 */
export function statusOf(value: unknown): string {
	return typeof value === 'string'
		? value
				.trim()
				.toLowerCase()
				.replace(/[\s_]+/g, '-')
		: '';
}

/** Whether the call or SMS has ended for good at this status (documented, or a failure word). */
export function isFinalStatus(kind: StatusKind, status: unknown): boolean {
	return FINAL[kind].has(statusOf(status));
}

/** Whether an SMS was delivered: the one ending SMS Delivered fires for. */
export function isDelivered(status: unknown): boolean {
	return statusOf(status) === 'delivered';
}

/**
 * Whether the package knows this status (final or known to be in progress). An unreadable
 * status ('') is not a new status: it is in progress, and counted apart.
 */
export function isKnownStatus(kind: StatusKind, status: unknown): boolean {
	const normal = statusOf(status);
	return normal === '' || KNOWN[kind].has(normal);
}

/** The final statuses of a kind, for messages and documentation. */
export function finalStatuses(kind: StatusKind): string[] {
	return [...FINAL[kind]];
}
