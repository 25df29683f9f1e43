/**
 * Unknown-outcome recovery's memory: the records sends in this process have made or look-ups
 * have found (`ClaimLedger`), and the gate that holds a key's sends back while one of its writes
 * is looked up (`LookupGate`), with the process-wide instance of each (see recovery.ts).
 */

/**
 * The records sends in this process have claimed as theirs (their own successes, and what
 * their look-ups found), so that no other send, of this execution or another, takes them.
 * Bounded: a claim is dropped `ttlMs` after it was made, long after any look-up that could
 * meet the record (look-ups only read records made since just before their own send).
 */
export class ClaimLedger {
	private readonly claimed = new Map<string, number>();

	constructor(private readonly ttlMs = 60 * 60_000) {}

	isClaimed(ids: string[]): boolean {
		return ids.some((id) => this.claimed.has(id));
	}

	claim(ids: string[], nowMs: number): void {
		// Oldest first (a Map keeps insertion order): drop what has expired.
		for (const [id, at] of this.claimed) {
			if (nowMs - at < this.ttlMs) break;
			this.claimed.delete(id);
		}
		for (const id of ids) {
			this.claimed.delete(id);
			this.claimed.set(id, nowMs);
		}
	}

	get size(): number {
		return this.claimed.size;
	}
}

/**
 * Per key (say, calls to one customer from one number), sends may overlap one another, but a
 * look-up waits for every send in flight to finish and claim its record, and holds new sends
 * back until it is done. Otherwise a look-up could take the record of a send whose answer was
 * still on its way, and that item's request would be lost. First come, first served.
 */
export class LookupGate {
	private readonly keys = new Map<
		string,
		{
			sending: number;
			lookingUp: boolean;
			queue: Array<{ kind: 'send' | 'lookUp'; grant: () => void }>;
		}
	>();

	/** Waits for the key's turn; resolves with the function that leaves. */
	enter(key: string, kind: 'send' | 'lookUp'): Promise<() => void> {
		let state = this.keys.get(key);
		if (!state) {
			state = { sending: 0, lookingUp: false, queue: [] };
			this.keys.set(key, state);
		}
		const entry = state;
		return new Promise((resolve) => {
			entry.queue.push({
				kind,
				grant: () => {
					let left = false;
					resolve(() => {
						if (left) return;
						left = true;
						if (kind === 'send') entry.sending--;
						else entry.lookingUp = false;
						this.pump(key);
					});
				},
			});
			this.pump(key);
		});
	}

	private pump(key: string): void {
		const state = this.keys.get(key);
		if (!state) return;
		while (state.queue.length && !state.lookingUp) {
			const next = state.queue[0];
			if (next.kind === 'lookUp' && state.sending > 0) break;
			state.queue.shift();
			if (next.kind === 'send') state.sending++;
			else state.lookingUp = true;
			next.grant();
		}
		if (!state.queue.length && !state.sending && !state.lookingUp) this.keys.delete(key);
	}
}

/**
 * The records sends in this process have claimed, and the gate between sends and look-ups of
 * one key: process-wide, so that a look-up never takes a record another execution's send made
 * (it waits for that send's answer, which claims the record) nor one another look-up found.
 */
export let claims = new ClaimLedger();
export const gate = new LookupGate();

/** Forgets every claim. For tests: a reset sandbox hands out its identifiers again. */
export function forgetClaims(): void {
	claims = new ClaimLedger();
}
