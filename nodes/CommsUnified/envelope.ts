/**
 * What every Comms Unified operation shares: the money options, the Spending Cap around each
 * request, and the output (the result's fields, the billing block, the timestamp).
 *
 * The request itself goes through the shared transport (`unifiedApiRequest`): the credential
 * puts the key in the envelope, the per-service limiter paces it, a 429 is waited out, an error
 * envelope under any status (200 included) becomes an error, and a send whose outcome is unknown
 * is never sent again.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { executionRecord } from '../shared/runtime/executionMemory';
import { options, shown } from '../shared/parameters/nodeParameters';
import { outcomeOf, withOutcome } from '../shared/transport';
import {
	UNIFIED_CREDENTIAL,
	unifiedApiRequest,
	type UnifiedKeyMode,
	type UnifiedService,
	type UnifiedSuccess,
} from './api/unifiedApi';
import { formatPence, type Price, toUnits } from './api/pricing';
import { type Settlement, SpendingLedger } from './spending';

/**
 * Shown above the parameters of each operation that reaches a person: the Unified API keeps no
 * history the node can read, so after a run that was cut short nothing tells it what went.
 */
export const noHistoryNotice: INodeProperties = {
	displayName:
		"The Unified API keeps no history this node can read, so running a workflow again after a run that was cut short (n8n or a worker stopped mid-run) sends every item again. Check first what went (the provider's dashboard, or the delivery events your Comms Unified Trigger received) and run only the rest.",
	name: 'noHistoryNotice',
	type: 'notice',
	default: '',
};

export const includeBillingOption: INodeProperties = {
	displayName: 'Include Billing',
	name: 'includeBilling',
	type: 'boolean',
	default: true,
	description:
		'Whether to add the billing block to each item: the cost, the credits left, and whether the key is live (charged) or test (nothing charged)',
};

export const spendingCapOption: INodeProperties = {
	displayName: 'Spending Cap (Pence)',
	name: 'spendingCapPence',
	type: 'number',
	typeOptions: { minValue: 0, numberPrecision: 2 },
	default: 100,
	description:
		'Refuse, before sending, any item that would take what this workflow execution has spent through Comms Unified nodes, items in flight included, above this many pence (1 credit = 1p). Prices: SMS 3p per 160 characters, email 0.15p, AI chat 15p, voice 7p a minute. A call is billed after it ends, so it always counts at least 10 minutes (70p), more if the API reports more. Test keys spend nothing.',
};

export interface MoneySettings {
	includeBilling: boolean;
	/** The cap in units (hundredths of a penny); undefined: no cap. */
	capUnits?: number;
}

/** Reads Include Billing and Spending Cap (Pence) for one item. */
export function moneySettings(ctx: IExecuteFunctions, i: number): MoneySettings {
	const chosen = options(ctx, i);
	const includeBilling = chosen.includeBilling !== false;
	if (
		chosen.spendingCapPence === undefined ||
		chosen.spendingCapPence === null ||
		chosen.spendingCapPence === ''
	)
		return { includeBilling };
	const cap =
		typeof chosen.spendingCapPence === 'number'
			? chosen.spendingCapPence
			: Number(String(chosen.spendingCapPence).trim());
	if (
		!Number.isFinite(cap) ||
		cap < 0 ||
		(typeof chosen.spendingCapPence === 'string' && !String(chosen.spendingCapPence).trim())
	) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Spending Cap (Pence) "${shown(chosen.spendingCapPence)}" must be a number of pence, 0 or more`,
			{ itemIndex: i },
		);
	}
	return { includeBilling, capUnits: toUnits(cap) };
}

/** An item ready to send. */
export interface Envelope {
	data: IDataObject;
	price: Price;
	/** What the item is, for messages: "SMS", "voice call". */
	what: string;
	money: MoneySettings;
}

/**
 * The execution's spend, kept with the execution (so it holds across a Wait, a resume on another
 * worker and a restart), and the ledger of requests in flight over it, kept in this process:
 * none is in flight across a park. Shared by every Comms Unified node in the execution.
 */
const ledgers = new WeakMap<object, SpendingLedger>();

function ledgerOf(ctx: IExecuteFunctions): SpendingLedger {
	const record = executionRecord(ctx);
	let ledger = ledgers.get(record);
	if (!ledger) {
		ledger = new SpendingLedger(record);
		ledgers.set(record, ledger);
	}
	return ledger;
}

/** Live or test, from the key's prefix (read once per node run; the key itself goes nowhere). */
const modes = new WeakMap<object, Promise<UnifiedKeyMode>>();

function keyMode(ctx: IExecuteFunctions): Promise<UnifiedKeyMode> {
	let mode = modes.get(ctx);
	if (!mode) {
		// Anything but a test key counts as live; the transport says what is wrong with a bad one.
		mode = ctx.getCredentials(UNIFIED_CREDENTIAL).then(
			(credentials): UnifiedKeyMode =>
				typeof credentials.apiKey === 'string' && credentials.apiKey.trim().startsWith('key_test_')
					? 'test'
					: 'live',
			(): UnifiedKeyMode => 'live',
		);
		modes.set(ctx, mode);
	}
	return mode;
}

/**
 * What a failed request counts: nothing when it was proven not sent or the API refused it, its
 * estimate in every other case (the transport marks what it proved; an unmarked error is unknown).
 */
function settlementOfFailure(error: unknown): Settlement {
	return outcomeOf(error) === 'unknown' ? { kind: 'unknown' } : { kind: 'notCharged' };
}

function numberOf(value: unknown): number | undefined {
	return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The billing block of an item: the API's figures, and in words whether anything was charged. */
function billingOutput(billing: IDataObject | undefined, mode: UnifiedKeyMode): IDataObject {
	const block = billing ?? {};
	const live = typeof block.isLive === 'boolean' ? block.isLive : mode === 'live';
	const cost = numberOf(block.cost);
	const costFormatted =
		typeof block.costFormatted === 'string'
			? block.costFormatted
			: cost === undefined
				? undefined
				: formatPence(toUnits(cost));
	const left =
		typeof block.creditsRemainingFormatted === 'string'
			? block.creditsRemainingFormatted
			: undefined;
	const output: IDataObject = {
		mode: live ? 'live' : 'test',
		cost,
		costFormatted,
		creditsRemaining: numberOf(block.creditsRemaining),
		creditsRemainingFormatted: left,
		note: live
			? `Live key: charged ${costFormatted ?? 'an amount the API did not report'}${left ? `; ${left} of credits left` : ''}.`
			: "Test key: nothing was charged. The request ran in the provider's sandbox.",
	};
	return Object.fromEntries(Object.entries(output).filter(([, value]) => value !== undefined));
}

/** The Spending Cap's refusal: before any request, so the item was not sent. */
function refusedByCap(
	...args: ConstructorParameters<typeof NodeOperationError>
): NodeOperationError {
	return withOutcome(new NodeOperationError(...args), 'notSent');
}

/**
 * Sends one envelope under the Spending Cap: refused before sending if it would take the
 * execution's spend above the cap, then counted at the cost the API reports.
 */
export async function sendEnvelope(
	ctx: IExecuteFunctions,
	itemIndex: number,
	service: UnifiedService,
	action: string,
	envelope: Envelope,
): Promise<IDataObject> {
	const mode = await keyMode(ctx);
	// A test key is never charged, so its items cost nothing against the cap.
	const priceUnits = mode === 'test' ? 0 : envelope.price.units;
	const ledger = ledgerOf(ctx);
	const decision = await ledger.reserve(priceUnits, envelope.money.capUnits);
	if (decision.kind === 'refused') {
		const after = decision.spentUnits + decision.priceUnits;
		throw refusedByCap(
			ctx.getNode(),
			`Spending Cap: this ${envelope.what} would cost ${formatPence(decision.priceUnits)} and take this execution's spend to ${formatPence(after)}, above the cap of ${formatPence(decision.capUnits)}. It was not sent.`,
			{
				itemIndex,
				description: `Spent so far in this execution: ${formatPence(decision.spentUnits)}. This item is counted at ${envelope.price.basis}; items already answered count at the cost the API reported, items whose outcome is unknown at their estimate, and items not sent or refused at nothing. Raise Spending Cap (Pence) under Options, or send fewer items.`,
			},
		);
	}
	const outcome = await unifiedApiRequest(ctx, service, action, envelope.data, itemIndex).then(
		(body) => ({ body }),
		(error: unknown) => ({ error }),
	);
	if ('error' in outcome) {
		decision.reservation.settle(settlementOfFailure(outcome.error));
		throw outcome.error;
	}
	const response: UnifiedSuccess = outcome.body;
	const reported = numberOf(response.billing?.cost);
	decision.reservation.settle(
		reported === undefined
			? { kind: 'unknown' }
			: { kind: 'charged', units: toUnits(reported), provisional: envelope.price.provisional },
	);

	const item: IDataObject = { ...response.result };
	if (envelope.money.includeBilling) item.billing = billingOutput(response.billing, mode);
	if (response.timestamp !== undefined) item.timestamp = response.timestamp;
	return item;
}
