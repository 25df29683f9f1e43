import { available, billableMinutes, draw, formatPence, formatPounds } from '../../sandbox/billing';
import { Clock } from '../../sandbox/clock';
import { maskKey, redactKeys } from '../../sandbox/http';
import { Lifecycle, LifecycleConflict } from '../../sandbox/lifecycle';
import { segmentsOf } from '../../sandbox/messages';
import { ConcurrencyGate, SlidingWindow } from '../../sandbox/ratelimit';
import { chatAnswer } from '../../sandbox/unified';
import { sign } from '../../sandbox/webhooks';

describe('Lifecycle', () => {
	const steps = [{ status: 'a', seconds: 5 }, { status: 'b', seconds: 10 }, { status: 'c' }];

	it('records each transition at the exact time it was due, however late it is read', () => {
		const lifecycle = new Lifecycle(steps, 1_000);
		lifecycle.sync(5_999);
		expect(lifecycle.status).toBe('a');
		lifecycle.sync(100_000);
		expect(lifecycle.history).toEqual([
			{ status: 'a', atMs: 1_000 },
			{ status: 'b', atMs: 6_000 },
			{ status: 'c', atMs: 16_000 },
		]);
		expect(lifecycle.isFinal).toBe(true);
		expect(lifecycle.endedAtMs).toBe(16_000);
		expect(lifecycle.reachedAt('b')).toBe(6_000);
		expect(lifecycle.reachedAt('z')).toBeNull();
	});

	it('advances now and keeps the later durations', () => {
		const lifecycle = new Lifecycle(steps, 0);
		lifecycle.advance(2_000);
		lifecycle.sync(12_000);
		expect(lifecycle.status).toBe('c');
		expect(lifecycle.endedAtMs).toBe(12_000);
		expect(() => lifecycle.advance(13_000)).toThrow(LifecycleConflict);
	});

	it('changes the remaining path only while the statuses passed still fit', () => {
		const lifecycle = new Lifecycle(steps, 0);
		lifecycle.sync(6_000);
		lifecycle.rescript([{ status: 'a', seconds: 5 }, { status: 'b', seconds: 1 }, { status: 'd' }]);
		lifecycle.sync(7_000);
		expect(lifecycle.status).toBe('d');
		expect(() => lifecycle.rescript(steps)).toThrow(LifecycleConflict);
		expect(() => new Lifecycle([], 0)).toThrow();
	});
});

describe('billing', () => {
	it('draws the subscription bucket first and never goes negative', () => {
		const bucket = { subscription: 2, topUp: 3 };
		expect(draw(bucket, 4)).toBe(4);
		expect(bucket).toEqual({ subscription: 0, topUp: 1 });
		expect(draw(bucket, 5)).toBe(1);
		expect(bucket).toEqual({ subscription: 0, topUp: 0 });
		expect(available(bucket)).toBe(0);
	});

	it('rounds call time up to whole minutes', () => {
		expect([0, 1, 60, 61, 186].map(billableMinutes)).toEqual([0, 1, 1, 2, 4]);
	});

	it('formats pence and pounds, keeping fractions of a penny', () => {
		expect(formatPence(700)).toBe('7p');
		expect(formatPence(15)).toBe('0.15p');
		expect(formatPounds(200_000)).toBe('£20.00');
		expect(formatPounds(199_985)).toBe('£19.9985');
	});

	it('counts SMS segments per 160 characters, at least one', () => {
		expect(['', 'a', 'a'.repeat(160), 'a'.repeat(161)].map(segmentsOf)).toEqual([1, 1, 1, 2]);
	});
});

describe('rate limiting', () => {
	it('slides a 60-second window and says when the next request fits', () => {
		const window = new SlidingWindow();
		expect(window.take('k', 2, 0).allowed).toBe(true);
		expect(window.take('k', 2, 10_000).allowed).toBe(true);
		expect(window.take('k', 2, 20_000)).toEqual({ allowed: false, retryAfterSeconds: 40 });
		expect(window.take('k', 2, 60_001).allowed).toBe(true);
		expect(window.count('k', 60_001)).toBe(2);
		expect(window.take('other', 2, 20_000).allowed).toBe(true);
	});

	it('gives 1 second at least, and waits for enough hits to leave when the limit was lowered', () => {
		const window = new SlidingWindow();
		for (let t = 0; t < 5; t += 1) window.take('k', 10, t * 1000);
		expect(window.take('k', 2, 59_999.5)).toEqual({ allowed: false, retryAfterSeconds: 4 });
	});

	it('caps concurrency and releases once', () => {
		const gate = new ConcurrencyGate();
		const release = gate.acquire('k', 1);
		expect(release).not.toBeNull();
		expect(gate.acquire('k', 1)).toBeNull();
		release?.();
		release?.();
		expect(gate.current('k')).toBe(0);
		expect(gate.snapshot()).toEqual({});
	});
});

describe('clock', () => {
	it('moves with real time plus advances, or only with advances when frozen', () => {
		const clock = new Clock();
		clock.reset(true);
		const frozenAt = clock.now();
		clock.advance(1.5);
		expect(clock.now()).toBe(frozenAt + 1500);
		expect(clock.advancedSeconds).toBe(1.5);
		clock.unfreeze();
		expect(clock.frozen).toBe(false);
		expect(clock.now()).toBeGreaterThanOrEqual(frozenAt + 1500);
		clock.reset(false);
		expect(clock.advancedSeconds).toBe(0);
	});
});

describe('key masking', () => {
	it('shows the first 8 and last 4 characters, and masks short keys entirely', () => {
		expect(maskKey('acc_sbx_unrestricted_4f9c2a7e1b')).toBe('acc_sbx_****7e1b');
		expect(maskKey('acc_short')).toBe('*********');
	});

	it('masks keys anywhere in a structure and every api_key field', () => {
		expect(
			redactKeys({
				api_key: 'whatever-it-is',
				nested: ['Bearer acc_sbx_unrestricted_4f9c2a7e1b', 3],
				note: 'key_test_abcdefgh1234 x',
			}),
		).toEqual({
			api_key: 'whatever****t-is',
			nested: ['Bearer acc_sbx_****7e1b', 3],
			note: 'key_test****1234 x',
		});
	});
});

describe('webhook signature and AI answers', () => {
	it('signs with hex HMAC-SHA256', () => {
		expect(sign('The quick brown fox jumps over the lazy dog', 'key')).toBe(
			'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
		);
		expect(sign(Buffer.from('{}'), 'secret')).toBe(sign('{}', 'secret'));
		expect(sign('{}', 'secret')).not.toBe(sign('{} ', 'secret'));
	});

	it('answers chat deterministically', () => {
		const messages = [{ role: 'user', content: 'Hello there' }];
		expect(chatAnswer(messages, 'model-capable')).toEqual(chatAnswer(messages, 'model-capable'));
		const response = 'Sandbox answer (model-fast) to "Hello there".';
		expect(chatAnswer(messages, 'model-fast')).toEqual({
			response,
			model: 'model-fast',
			tokens_used: Math.ceil('Hello there'.length / 4) + Math.ceil(response.length / 4),
		});
	});
});
