/**
 * What an AI agent is told about each Comms Unified operation when the node is used as a tool
 * (nodes/shared/tool.ts says how n8n builds the tool's description from these).
 */
import { E164, REAL_SEND, type ToolActions } from '../shared/tool';

/** The text a manual Tool Description starts from. */
export const UNIFIED_TOOL_DESCRIPTION =
	'Make AI voice calls, send SMS and email, and chat with an AI model through the Comms Unified API, paid from prepaid credits. Phone numbers are in E.164 form (+447700900123). Calls, SMS and email reach a real person and cost money; the workflow sets a spending cap, and an item above it is refused before anything is sent.';

const CAP =
	"Refused with an error, before sending, when it would take this workflow run's spend above the Spending Cap.";

export const unifiedToolActions: ToolActions = {
	voice: {
		makeCall: `Phone a person and have an AI voice read them a message. Needs: To, ${E164}; Message, what the voice says. Optional: Voice, From (your own E.164 caller number). Returns call_id, status "initiated", to, from, and a billing block (cost in pence). Costs 7p a minute. ${CAP} ${REAL_SEND} Action: Make an AI phone call`,
	},
	sms: {
		send: `Send one SMS text message to a mobile phone. Needs: To, the recipient, ${E164}; Message, the text (every 160 characters is one SMS, 3p each). Optional: From, your own E.164 SMS number. Returns message_id, status "sent", to, from, and a billing block (cost in pence, credits left). A wrong value comes back as an error naming the field and nothing is sent. ${CAP} ${REAL_SEND} Action: Send an SMS`,
		sendAndWait: `Send one SMS that asks a person a question and carries a link to a page where they answer (Approve or Decline, or a free-text reply), then pause until they answer or the wait limit passes. Needs: To, ${E164}; Message, the question (the link is added after it and counts towards the 160-character segments, 3p each). Returns approved (true or false) or text, respondedAt, or timedOut: true. ${CAP} ${REAL_SEND} Action: Send an SMS and wait for an answer`,
	},
	email: {
		send: `Send one email. Needs: To, one email address (someone@example.com); Subject; HTML, the body as HTML. Optional: Sender Name. Returns message_id, status "sent", to, subject, and a billing block (0.15p). ${CAP} ${REAL_SEND} Action: Send an email`,
	},
	ai: {
		chat: `Ask the provider's AI model for a reply to a conversation. Needs: Messages, each with a Role ("system", "user" or "assistant") and Content, at least one from "user"; optional Model. Returns the model's reply and a billing block (15p a request). ${CAP} Sends nothing to anyone. Action: Chat with an AI model`,
	},
};
