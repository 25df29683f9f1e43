/**
 * What an AI agent using the node as a tool is told of each Comms Unified operation: its short name,
 * then each field, its format and what comes back (nodes/shared/runtime/toolDescriptions.ts says
 * where n8n shows it and passes it to the model).
 */
import { E164, REAL_SEND, type ToolDescriptions } from '../shared/runtime/toolDescriptions';

const CAP = "Refused before sending if it would take the run's spend above the Spending Cap.";

export const unifiedToolDescriptions: ToolDescriptions = {
	voice: {
		makeCall: `Make an AI phone call: To: the person, ${E164}; Message: what the AI voice says. 7p a minute. ${CAP} ${REAL_SEND} Returns call_id, status and billing (cost in pence)`,
	},
	sms: {
		send: `Send an SMS: To: the recipient, ${E164}; Message: the text (each 160 characters is one SMS, 3p; longer than 10 SMS, 1,600 characters, is refused unless the node's Max Segments allows more). ${CAP} ${REAL_SEND} Returns message_id, status and billing (cost in pence, credits left)`,
		sendAndWait: `Send an SMS and wait for response: To: ${E164}; Message: the question (a link to the answer page is added and charged with it). The person approves, declines or types a reply. ${CAP} ${REAL_SEND} Returns approved or text, respondedAt, or timedOut`,
	},
	email: {
		send: `Send an email: To: one address (someone@example.com); Subject; HTML: the body as HTML. 0.15p. ${CAP} ${REAL_SEND} Returns message_id, status and billing`,
	},
	ai: {
		chat: `Chat with an AI model: Messages, each a Role ("system", "user" or "assistant") and Content, at least one "user". 15p. ${CAP} Sends nothing to anyone. Returns the reply and billing`,
	},
};
