// Only the webhook part of `npm run bench`: in the real n8n 2.41, the median time from request to
// execution start of the Comms Unified Trigger (replay protection at its default) beside n8n's
// Webhook node with Header Auth and with none. `npm run build` first, then `node bench/webhook.ts`.
// Prints the figures; writes nothing.

import { webhookBench } from './n8n/bench.ts';

webhookBench()
	.then(({ webhook }) => {
		const { verified, headerAuth, plain } = webhook;
		console.log(JSON.stringify(webhook, null, '\t'));
		console.log(
			`request to execution start (median): Comms Unified Trigger ${verified.medianRequestToStartMs} ms; ` +
				`Webhook node with Header Auth ${headerAuth.medianRequestToStartMs} ms, with none ${plain.medianRequestToStartMs} ms; ` +
				`ratio ${(Number(verified.medianRequestToStartMs) / Number(headerAuth.medianRequestToStartMs)).toFixed(2)}`,
		);
		process.exit(0);
	})
	.catch((error: unknown) => {
		console.error(error);
		process.exit(1);
	});
