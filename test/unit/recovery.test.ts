/**
 * The pure half of recovering a write whose outcome is unknown: which history record, if any,
 * is the request's (the windows on the API's clock are in serverClock.test.ts); what one
 * execution has claimed; and the gate that keeps a look-up from taking the record of a send
 * still in flight.
 */
import { flush } from '../support/fakeClock';
import {
	callIds,
	matchCreatedCall,
	matchSentSms,
	smsIds,
} from '../../nodes/CommsAccount/api/recoveryMatching';
import { ClaimLedger, LookupGate } from '../../nodes/shared/transport/recovery';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (offsetMs: number) => new Date(T0 + offsetMs).toISOString();
const nothingClaimed = { sinceMs: T0, madeAfterMs: T0, isClaimed: () => false };

describe('matchSentSms', () => {
	const sms = { phoneDocId: 'pd_main', to: '+447700900123', message: 'See you at 3' };
	const record = (id: string, overrides: Record<string, unknown> = {}) => ({
		id: `rec_${id}`,
		messageId: id,
		direction: 'sent',
		fromNumber: '+447700900001',
		toNumber: '+447700900123',
		body: 'See you at 3',
		status: 'sent',
		source: 'account-api',
		segments: 1,
		sentAt: at(1_000),
		...overrides,
	});
	const page = (...messages: unknown[]) => ({ success: true, messages, count: messages.length });

	it('finds the one matching record and gives it in the shape of a send result', () => {
		expect(matchSentSms(page(record('SM1')), sms, nothingClaimed, 200)).toEqual({
			kind: 'found',
			result: {
				success: true,
				messageId: 'SM1',
				status: 'sent',
				from: '+447700900001',
				to: '+447700900123',
				phoneDocId: 'pd_main',
				segmentsUsed: 1,
				sentAt: at(1_000),
			},
			ids: ['sms:SM1', 'sms:rec_SM1'],
		});
	});

	it('is absent when nothing matches', () => {
		expect(matchSentSms(page(), sms, nothingClaimed, 200)).toEqual({ kind: 'absent' });
	});

	it.each([
		['another text', { body: 'See you at 4' }],
		['the same text with different spacing', { body: 'See you at 3 ' }],
		['another recipient', { toNumber: '+447700900999' }],
		['a received message', { direction: 'received' }],
		['a message from the dashboard', { source: 'dashboard' }],
		['a message from before the send', { sentAt: at(-1) }],
	])('does not take %s for it (whatever filters the server applied)', (_what, overrides) => {
		expect(matchSentSms(page(record('SM1', overrides)), sms, nothingClaimed, 200)).toEqual({
			kind: 'absent',
		});
	});

	it('claims are kept an hour, then dropped, so the ledger stays bounded', () => {
		const claims = new ClaimLedger(60 * 60_000);
		claims.claim(['sms:old'], T0);
		claims.claim(['sms:new'], T0 + 30 * 60_000);
		expect(claims.isClaimed(['sms:old'])).toBe(true);
		claims.claim(['sms:newest'], T0 + 61 * 60_000);
		expect(claims.isClaimed(['sms:old'])).toBe(false);
		expect(claims.isClaimed(['sms:new'])).toBe(true);
		expect(claims.size).toBe(2);
	});

	it('skips records other sends have claimed', () => {
		const claims = new ClaimLedger();
		claims.claim(smsIds({ messageId: 'SM1' }), T0);
		const window = {
			sinceMs: T0,
			madeAfterMs: T0,
			isClaimed: (ids: string[]) => claims.isClaimed(ids),
		};
		expect(matchSentSms(page(record('SM1'), record('SM2')), sms, window, 200)).toMatchObject({
			kind: 'found',
			result: { messageId: 'SM2' },
		});
		claims.claim(['sms:SM2'], T0);
		expect(matchSentSms(page(record('SM1'), record('SM2')), sms, window, 200)).toEqual({
			kind: 'absent',
		});
	});

	it('a single match stamped where the clock cannot tell it from an earlier identical SMS is neither taken nor ruled out', () => {
		const window = { sinceMs: T0 - 60_000, madeAfterMs: T0, isClaimed: () => false };
		expect(
			matchSentSms(page(record('SM1', { sentAt: at(-5_000) })), sms, window, 200),
		).toMatchObject({
			kind: 'undecided',
			reason: expect.stringMatching(/not known well enough/),
		});
		expect(matchSentSms(page(record('SM1', { sentAt: at(0) })), sms, window, 200)).toMatchObject({
			kind: 'found',
		});
		expect(matchSentSms(page(record('SM1', { sentAt: at(-61_000) })), sms, window, 200)).toEqual({
			kind: 'absent',
		});
		// One made after the request began is its own, whatever an earlier one is.
		expect(
			matchSentSms(
				page(record('SM1', { sentAt: at(-5_000) }), record('SM2', { sentAt: at(100) })),
				sms,
				window,
				200,
			),
		).toMatchObject({ kind: 'found', result: { messageId: 'SM2' } });
	});

	it('cannot decide between two unclaimed matches', () => {
		expect(
			matchSentSms(page(record('SM1'), record('SM2')), sms, nothingClaimed, 200),
		).toMatchObject({ kind: 'undecided', reason: expect.stringMatching(/2 matching SMS records/) });
	});

	it('cannot decide when a matching record has no readable time', () => {
		expect(
			matchSentSms(
				page(record('SM1', { sentAt: undefined, createdAt: undefined })),
				sms,
				nothingClaimed,
				200,
			),
		).toMatchObject({ kind: 'undecided' });
	});

	it('cannot call it absent from a full page (the rest may hold it), but a match on it is still the one', () => {
		const others = Array.from({ length: 200 }, (_, i) => record(`X${i}`, { body: 'other' }));
		expect(matchSentSms(page(...others), sms, nothingClaimed, 200)).toMatchObject({
			kind: 'undecided',
			reason: expect.stringMatching(/full page/),
		});
	});

	it('cannot read an answer without a messages list', () => {
		expect(matchSentSms({ success: true }, sms, nothingClaimed, 200)).toMatchObject({
			kind: 'undecided',
		});
		expect(matchSentSms('<html>', sms, nothingClaimed, 200)).toMatchObject({ kind: 'undecided' });
	});

	it('takes a record without the optional fields (direction, source) on its text, recipient and time', () => {
		const bare = {
			messageId: 'SM7',
			toNumber: '+447700900123',
			body: 'See you at 3',
			createdAt: at(10),
		};
		expect(matchSentSms(page(bare), sms, nothingClaimed, 200)).toMatchObject({
			kind: 'found',
			result: { messageId: 'SM7' },
		});
	});
});

describe('matchCreatedCall', () => {
	const manual = {
		phoneDocId: 'pd_main',
		to: '+447700900123',
		mode: 'manual' as const,
		agentPhone: '+447700900456',
	};
	const ai = {
		phoneDocId: 'pd_main',
		to: '+447700900123',
		mode: 'ai' as const,
		customerName: 'Sam',
		callPurpose: 'general',
	};
	const manualRecord = (id: string, overrides: Record<string, unknown> = {}) => ({
		id,
		callId: id,
		callSid: `CA${id}`,
		mode: 'manual',
		direction: 'outbound',
		phoneDocId: 'pd_main',
		from: '+447700900001',
		to: '+447700900123',
		agentPhone: '+447700900456',
		status: 'ringing-agent',
		createdAt: at(500),
		...overrides,
	});
	const aiRecord = (sid: string, overrides: Record<string, unknown> = {}) => ({
		id: sid,
		callSid: sid,
		mode: 'ai',
		direction: 'outbound',
		phoneDocId: 'pd_main',
		from: '+447700900001',
		to: '+447700900123',
		customerName: 'Sam',
		callPurpose: 'general',
		status: 'initiated',
		createdAt: at(500),
		voiceName: 'Amy',
		...overrides,
	});
	const page = (...calls: unknown[]) => ({ success: true, calls, count: calls.length });

	it('finds a manual call and gives it in the shape of a creation result', () => {
		expect(matchCreatedCall(page(manualRecord('call_1')), manual, nothingClaimed, 200)).toEqual({
			kind: 'found',
			result: {
				success: true,
				callId: 'call_1',
				callSid: 'CAcall_1',
				status: 'ringing-agent',
				phoneDocId: 'pd_main',
				from: '+447700900001',
				to: '+447700900123',
				agentPhone: '+447700900456',
				createdAt: at(500),
			},
			ids: ['call:call_1', 'call:CAcall_1', 'call:call_1'],
		});
	});

	it('finds an AI call, whose callId is its callSid', () => {
		expect(matchCreatedCall(page(aiRecord('CAai1')), ai, nothingClaimed, 200)).toMatchObject({
			kind: 'found',
			result: { mode: 'ai', callId: 'CAai1', callSid: 'CAai1', voiceUsed: { name: 'Amy' } },
		});
	});

	it.each([
		['another customer', { to: '+447700900999' }],
		['another number', { phoneDocId: 'pd_other' }],
		['another agent phone', { agentPhone: '+447700900457' }],
		['an earlier call', { createdAt: at(-5_000) }],
		['the other mode', { mode: 'ai' }],
	])('does not take %s for it', (_what, overrides) => {
		expect(
			matchCreatedCall(page(manualRecord('call_1', overrides)), manual, nothingClaimed, 200),
		).toEqual({ kind: 'absent' });
	});

	it('does not take an AI call for another customer name or purpose', () => {
		expect(
			matchCreatedCall(page(aiRecord('CA1', { customerName: 'Alex' })), ai, nothingClaimed, 200),
		).toEqual({ kind: 'absent' });
		expect(
			matchCreatedCall(page(aiRecord('CA1', { callPurpose: 'custom' })), ai, nothingClaimed, 200),
		).toEqual({ kind: 'absent' });
	});

	it("a request without an agent phone (the key's default) matches any agent phone", () => {
		expect(
			matchCreatedCall(
				page(manualRecord('call_1')),
				{ ...manual, agentPhone: undefined },
				nothingClaimed,
				200,
			),
		).toMatchObject({ kind: 'found' });
	});

	it('knows a call by any of its identifiers when claimed', () => {
		const claims = new ClaimLedger();
		claims.claim(callIds({ callId: 'call_1', callSid: 'CAcall_1' }), T0);
		const window = {
			sinceMs: T0,
			madeAfterMs: T0,
			isClaimed: (ids: string[]) => claims.isClaimed(ids),
		};
		expect(matchCreatedCall(page(manualRecord('call_1')), manual, window, 200)).toEqual({
			kind: 'absent',
		});
	});

	it('cannot decide between two unclaimed calls', () => {
		expect(
			matchCreatedCall(
				page(manualRecord('call_1'), manualRecord('call_2')),
				manual,
				nothingClaimed,
				200,
			),
		).toMatchObject({ kind: 'undecided' });
	});
});

describe('LookupGate', () => {
	it('lets sends overlap, but a look-up waits for the sends in flight and holds later ones back', async () => {
		const gate = new LookupGate();
		const events: string[] = [];
		const leaveA = await gate.enter('k', 'send');
		const leaveB = await gate.enter('k', 'send');
		const lookUp = gate.enter('k', 'lookUp').then((leave) => {
			events.push('lookUp');
			return leave;
		});
		const later = gate.enter('k', 'send').then((leave) => {
			events.push('later send');
			return leave;
		});
		const otherKey = gate.enter('other', 'send').then((leave) => {
			events.push('other key');
			return leave;
		});
		await flush();
		expect(events).toEqual(['other key']);
		leaveA();
		await flush();
		expect(events).toEqual(['other key']);
		leaveB();
		await flush();
		expect(events).toEqual(['other key', 'lookUp']);
		(await lookUp)();
		await flush();
		expect(events).toEqual(['other key', 'lookUp', 'later send']);
		(await later)();
		(await otherKey)();
	});

	it('runs look-ups of one key one at a time', async () => {
		const gate = new LookupGate();
		const first = await gate.enter('k', 'lookUp');
		let second = false;
		const waiting = gate.enter('k', 'lookUp').then((leave) => {
			second = true;
			return leave;
		});
		await flush();
		expect(second).toBe(false);
		first();
		first(); // leaving twice changes nothing
		(await waiting)();
		expect(second).toBe(true);
	});
});
