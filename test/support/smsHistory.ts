/**
 * GET /v1/sms as the sandbox implements it (docs/sandbox.md), for the inbound-SMS cursor's
 * tests: `since` an inclusive lower bound on sentAt, the first `limit` matches in the server's
 * order (equal sentAt in arrival order, reversed for newest first), `nextSince` the oldest
 * sentAt returned. It keeps the requests it was asked, counts those whose matches filled the
 * page (a newest-first page then hides some), and can fail the nth request from now.
 */
import type { SmsOrder } from '../../nodes/CommsAccount/trigger/cursorState';
import type { PageRequest } from '../../nodes/CommsAccount/trigger/pageReading';
import type { SmsPage } from '../../nodes/CommsAccount/api/smsPaging';

export interface StoredSms {
	id: string;
	sentAt: number;
	/** Its place in arrival order. */
	seq: number;
}

export class SmsHistory {
	readonly messages: StoredSms[] = [];
	requests: PageRequest[] = [];
	/** Requests whose matches filled the page (or more). */
	overfull = 0;
	private failIn: number | undefined;

	constructor(public order: SmsOrder = 'oldestFirst') {}

	/** Messages stored now, sent at `sentAts`; their ids. */
	add(...sentAts: number[]): string[] {
		return sentAts.map((sentAt) => {
			const seq = this.messages.length;
			const id = `sms_${String(seq).padStart(6, '0')}`;
			this.messages.push({ id, sentAt, seq });
			return id;
		});
	}

	/** The `n`th request from now (0: the next) fails; `undefined`: none does. */
	failAfter(n: number | undefined): void {
		this.failIn = n;
	}

	fetch = async (request: PageRequest): Promise<SmsPage> => {
		if (this.failIn !== undefined && this.failIn-- === 0) {
			this.failIn = undefined;
			throw new Error('injected failure: HTTP 500');
		}
		this.requests.push(request);
		const since = Date.parse(request.since);
		const direction = this.order === 'oldestFirst' ? 1 : -1;
		const matches = this.messages
			.filter((m) => m.sentAt >= since)
			.sort((a, b) => direction * (a.sentAt - b.sentAt || a.seq - b.seq));
		if (matches.length >= request.limit) this.overfull++;
		const page = matches.slice(0, request.limit);
		const iso = (ms: number) => new Date(ms).toISOString();
		return {
			messages: page.map((m) => ({
				id: m.id,
				messageId: `SM${m.seq}`,
				direction: 'received',
				sentAt: iso(m.sentAt),
				body: `message ${m.seq}`,
			})),
			nextSince: page.length ? iso(Math.min(...page.map((m) => m.sentAt))) : null,
		};
	};
}
