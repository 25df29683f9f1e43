/**
 * What an AI agent is told about each Comms Account operation when the node is used as a tool
 * (nodes/shared/tool.ts says how n8n builds the tool's description from these).
 */
import { E164, REAL_SEND, type ToolActions } from '../shared/tool';

/** The text a manual Tool Description starts from. */
export const ACCOUNT_TOOL_DESCRIPTION =
	"Send SMS and place phone calls from the business's own phone numbers, and read SMS and call history, through the Comms Account API. Phone numbers are in E.164 form (+447700900123). Sending an SMS or placing a call reaches a real person and costs money.";

const FROM_NUMBER =
	'Phone Number, the account number to send from (its phoneDocId, such as 7Jk2mQ9xTzR4pLw8vN3a; usually fixed by the workflow, or found with Get many numbers)';

export const accountToolActions: ToolActions = {
	number: {
		getAll:
			"List the account's own phone numbers with each one's phoneDocId (the ID other operations ask for as Phone Number), label, number and whether it can send SMS. Free, and changes nothing. Action: Get many numbers",
	},
	call: {
		create: `Place one outbound phone call from an account number. Needs: ${FROM_NUMBER}; To, the person to call, ${E164}; Mode, "manual" (Agent Phone, an E.164 number of your own, rings first, then the customer is connected) or "ai" (an AI voice agent talks to the customer; Customer Name and Call Purpose tell it who and why). Returns callId and status. ${REAL_SEND} Action: Place a call`,
		get: 'Look up one call by its callId (from Place a call or Get many calls): status, duration, and recording or transcript details. Needs Mode ("manual" or "ai", as the call was placed) and, for AI calls, Phone Number (phoneDocId). Free, and changes nothing. Action: Get a call',
		getAll:
			'Read outbound call history, most recent first, with status, duration and recording details; filter by Phone Number (phoneDocId), peer (the other party, E.164), since (an ISO 8601 time) or status. Free, and changes nothing. Action: Get many calls',
	},
	sms: {
		send: `Send one SMS text message to a mobile phone. Needs: ${FROM_NUMBER}; To, the recipient, ${E164}; Message, the text to send, at most 1600 characters (every 160 characters is one SMS segment, each billed). Returns the sent SMS: messageId, status "sent", from, to, segmentsUsed. A wrong value comes back as an error naming the field and nothing is sent. ${REAL_SEND} Action: Send an SMS`,
		sendAndWait: `Send one SMS that asks a person a question and carries a link to a page where they answer (Approve or Decline, or a free-text reply), then pause until they answer or the wait limit passes. Needs: ${FROM_NUMBER}; To, ${E164}; Message, the question (the link is added after it, so keep it under about 1400 characters). Returns approved (true or false) or text, respondedAt, or timedOut: true. ${REAL_SEND} Action: Send an SMS and wait for an answer`,
		get: 'Look up one SMS, sent or received, by its messageId (from Send an SMS or Get many SMS): direction, fromNumber, toNumber, body, status (such as sent, delivered, failed), sentAt, segments. Free, and changes nothing. Action: Get an SMS',
		getAll:
			"Read the account's SMS history, sent and received, with delivery status: use it to find a customer's reply. Filters: Phone Number (phoneDocId), direction (sent or received), peer (the other party, E.164), since (an ISO 8601 time). Free, and changes nothing. Action: Get many SMS",
	},
};
