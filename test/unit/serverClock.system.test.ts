/**
 * The system clock: waits go through n8n-workflow's `sleep` (no timers of our own in node
 * code), a stopped execution stops a wait at once, and no delay can overflow the runtime's
 * timer (a delay past 2^31 - 1 ms would otherwise fire at once and spin).
 */
import {
	CancelledError,
	clampTimerMs,
	MAX_TIMER_MS,
	sleep,
	systemClock,
} from '../../nodes/shared/transport/serverClock';

describe('systemClock', () => {
	it('stops a ten-minute wait as soon as the execution is cancelled', async () => {
		const controller = new AbortController();
		const waiting = sleep(systemClock, 10 * 60_000, controller.signal);
		setImmediate(() => controller.abort());
		await expect(waiting).rejects.toBeInstanceOf(CancelledError);
	});

	it('refuses to start waiting for an execution already cancelled', async () => {
		const controller = new AbortController();
		controller.abort();
		await expect(sleep(systemClock, 1, controller.signal)).rejects.toThrow(
			'The execution was cancelled',
		);
	});

	it('fires a short timer, and never one that was cancelled', async () => {
		const fired: string[] = [];
		const cancel = systemClock.setTimer(() => fired.push('cancelled'), 5);
		cancel();
		await new Promise<void>((resolve) => systemClock.setTimer(() => resolve(), 10));
		fired.push('done');
		expect(fired).toEqual(['done']);
	});

	it('reads a monotonic clock', () => {
		const readings = Array.from({ length: 1000 }, () => systemClock.now());
		expect(readings.every((value, i) => i === 0 || value >= readings[i - 1])).toBe(true);
	});

	it.each([
		[99999999 * 1000, MAX_TIMER_MS],
		[Infinity, MAX_TIMER_MS],
		[-5, 0],
		[Number.NaN, 0],
		[1500, 1500],
	])('clamps a delay of %p ms to %p ms', (input, expected) => {
		expect(clampTimerMs(input)).toBe(expected);
	});

	it('does not fire a timer armed past the runtime limit', async () => {
		let fired = false;
		const cancel = systemClock.setTimer(() => (fired = true), 99999999 * 1000);
		await new Promise((resolve) => setTimeout(resolve, 30));
		cancel();
		expect(fired).toBe(false);
	});
});
