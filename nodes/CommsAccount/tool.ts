/**
 * What an AI agent using the node as a tool is told of each Comms Account operation: its short name,
 * then each field, its format and what comes back (nodes/shared/runtime/toolDescriptions.ts says
 * where n8n shows it and passes it to the model).
 */
import { E164, REAL_SEND, type ToolDescriptions } from '../shared/runtime/toolDescriptions';

const FROM = 'Phone Number: the phoneDocId to send from (see Get many numbers)';

export const accountToolDescriptions: ToolDescriptions = {
	number: {
		getAll:
			"Get many numbers: the account's phone numbers with the phoneDocId other operations need, label, number and whether each can send SMS. Free, changes nothing",
	},
	call: {
		create: `Place a call: ${FROM}; To: the person, ${E164}; Mode: "manual" (Agent Phone rings first) or "ai" (an AI voice talks to them). ${REAL_SEND} Returns callId and status`,
		get: 'Get a call: by Call ID, with Mode ("manual" or "ai") and, for AI calls, Phone Number. Returns status, duration and recording details. Free, changes nothing',
		getAll:
			'Get many calls: call history, newest first, with status, duration and recordings; filters peer (E.164), since (ISO 8601), status. Free, changes nothing',
	},
	sms: {
		send: `Send an SMS: ${FROM}; To: the recipient, ${E164}; Message: the text, up to 1600 characters (each 160 is one paid segment). ${REAL_SEND} Returns the sent SMS: messageId, status, segmentsUsed`,
		sendAndWait: `Send an SMS and wait for response: ${FROM}; To: ${E164}; Message: the question (a link to the answer page is added). The person approves, declines or types a reply. ${REAL_SEND} Returns approved or text, respondedAt, or timedOut`,
		get: 'Get an SMS: by Message ID, sent or received. Returns direction, fromNumber, toNumber, body, status (sent, delivered, failed), sentAt. Free, changes nothing',
		getAll:
			'Get many SMS: sent and received SMS history with delivery status, to find a reply; filters direction (sent, received), peer (E.164), since (ISO 8601). Free, changes nothing',
	},
};
