/**
 * Signed webhook delivery. The body is serialised once; the signature is the hex
 * HMAC-SHA256 of exactly those bytes with the webhook secret, sent in `x-signature`.
 * Every attempt is kept in a deliveries log. There are no retries.
 */
import { createHmac } from 'node:crypto';
import { request } from 'undici';

export const SIGNATURE_HEADER = 'x-signature';
const EVENT_HEADER = 'x-webhook-event';
const DELIVERY_ID_HEADER = 'x-webhook-id';
const DELIVERY_TIMEOUT_MS = 5_000;

export interface WebhookEvent {
	event: string;
	timestamp: string;
	data: Record<string, unknown>;
}

export interface WebhookDelivery {
	id: string;
	event: string;
	url: string;
	/** The exact body sent (and signed). */
	body: string;
	signature: string;
	headers: Record<string, string>;
	attemptedAt: string;
	/** HTTP status the receiver answered with; null when the delivery failed to connect. */
	responseStatus: number | null;
	error: string | null;
}

export function sign(body: string | Buffer, secret: string): string {
	return createHmac('sha256', secret).update(body).digest('hex');
}

export class WebhookDispatcher {
	private log: WebhookDelivery[] = [];
	private readonly pending = new Set<Promise<WebhookDelivery>>();
	private counter = 0;

	constructor(
		private readonly secret: string,
		private readonly now: () => string,
		private readonly writeLog: (line: string) => void,
	) {}

	deliveries(): WebhookDelivery[] {
		return this.log.map((d) => ({ ...d, headers: { ...d.headers } }));
	}

	/** Sends the event; the returned promise settles when the receiver has answered. */
	deliver(url: string, event: WebhookEvent): Promise<WebhookDelivery> {
		this.counter += 1;
		const body = JSON.stringify(event);
		const signature = sign(body, this.secret);
		const id = `whd_${String(this.counter).padStart(6, '0')}`;
		const delivery: WebhookDelivery = {
			id,
			event: event.event,
			url,
			body,
			signature,
			headers: {
				'content-type': 'application/json',
				'user-agent': 'comms-sandbox-webhooks',
				[SIGNATURE_HEADER]: signature,
				[EVENT_HEADER]: event.event,
				[DELIVERY_ID_HEADER]: id,
			},
			attemptedAt: this.now(),
			responseStatus: null,
			error: null,
		};
		this.log.push(delivery);
		const sending = this.send(delivery).finally(() => this.pending.delete(sending));
		this.pending.add(sending);
		return sending;
	}

	/** Waits until every delivery started so far has finished. */
	async flush(): Promise<void> {
		while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
	}

	clear(): void {
		this.log = [];
		this.counter = 0;
	}

	private async send(delivery: WebhookDelivery): Promise<WebhookDelivery> {
		try {
			const response = await request(delivery.url, {
				method: 'POST',
				headers: delivery.headers,
				body: delivery.body,
				headersTimeout: DELIVERY_TIMEOUT_MS,
				bodyTimeout: DELIVERY_TIMEOUT_MS,
			});
			await response.body.dump();
			delivery.responseStatus = response.statusCode;
		} catch (error) {
			delivery.error = (error as Error).message;
		}
		this.writeLog(
			`webhook ${delivery.event} -> ${delivery.url}: ${delivery.responseStatus ?? delivery.error}`,
		);
		return delivery;
	}
}
