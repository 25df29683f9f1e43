/**
 * The Spending Cap's ledger: what an execution has spent and what its requests in flight may
 * still cost. Pure: the node keeps one per execution.
 *
 * An item is let through when everything spent, everything in flight and its own price fit
 * under the cap. It is refused when it would not fit even if every request in flight turned out
 * to cost nothing; in between, it waits for those answers before deciding. Each answer replaces
 * its estimate with what the API says it charged, except where that figure is not final (a
 * voice call, billed by the minute once it ends, may be reported at 0 when it is created): then
 * the item counts at no less than its estimate. A request whose outcome is unknown keeps its
 * estimate, since it may have been charged; one proven not sent, or refused, counts nothing.
 *
 * The spend lives in a store the caller gives (the execution's record, so it survives a park);
 * what is in flight lives here.
 */

export type Settlement =
	/**
	 * The API answered with a success and reported this cost (units). `provisional`: the cost
	 * may still grow (a call billed when it ends), so the item counts at least at its estimate.
	 */
	| { kind: 'charged'; units: number; provisional?: boolean }
	/** The API refused the request: nothing was done or charged. */
	| { kind: 'notCharged' }
	/** Carried out or not, nobody can say: counted at its estimate. */
	| { kind: 'unknown' };

export interface Reservation {
	settle(settlement: Settlement): void;
}

export type Decision =
	| { kind: 'go'; reservation: Reservation }
	| { kind: 'refused'; priceUnits: number; spentUnits: number; capUnits: number };

/** Where the spend is kept: the execution's record, saved with it (see nodes/shared/runtime/executionMemory.ts). */
export interface SpendStore {
	spentUnits?: unknown;
}

export class SpendingLedger {
	/** Estimates of the requests in flight (in this process: none survives a park). */
	private reserved = 0;
	private waiters: Array<() => void> = [];

	constructor(private readonly store: SpendStore = {}) {}

	/** Units charged (or possibly charged) so far in the execution. */
	private get spent(): number {
		const units = this.store.spentUnits;
		return typeof units === 'number' && Number.isFinite(units) && units > 0 ? units : 0;
	}

	private set spent(units: number) {
		this.store.spentUnits = units;
	}

	get spentUnits(): number {
		return this.spent;
	}

	get inFlightUnits(): number {
		return this.reserved;
	}

	/** Decides whether an item costing `priceUnits` may go under `capUnits` (none: no cap). */
	async reserve(priceUnits: number, capUnits: number | undefined): Promise<Decision> {
		for (;;) {
			if (
				capUnits === undefined ||
				priceUnits === 0 ||
				this.spent + this.reserved + priceUnits <= capUnits
			) {
				this.reserved += priceUnits;
				return { kind: 'go', reservation: this.reservation(priceUnits) };
			}
			if (this.spent + priceUnits > capUnits)
				return { kind: 'refused', priceUnits, spentUnits: this.spent, capUnits };
			// It fits only if some request in flight turns out cheaper than counted: wait for one.
			await new Promise<void>((resolve) => this.waiters.push(resolve));
		}
	}

	private reservation(estimate: number): Reservation {
		let settled = false;
		return {
			settle: (settlement) => {
				if (settled) return;
				settled = true;
				this.reserved -= estimate;
				if (settlement.kind === 'charged')
					this.spent += settlement.provisional
						? Math.max(estimate, settlement.units)
						: Math.max(0, settlement.units);
				else if (settlement.kind === 'unknown') this.spent += estimate;
				const waiters = this.waiters;
				this.waiters = [];
				for (const wake of waiters) wake();
			},
		};
	}
}
