import { MAX_TIMER_MS } from '../../nodes/shared/transport/serverClock';
import { FakeClock } from './fakeClock';

/**
 * A fake clock whose timers behave like Node.js's: a delay longer than 2^31 - 1 ms does not
 * wait, it fires after 1 ms (Node prints a TimeoutOverflowWarning). It counts every timer
 * armed, so a test can tell a limiter that waits from one that re-arms in a loop.
 */
export class NodeLikeClock extends FakeClock {
	armed = 0;

	setTimer(fn: () => void, ms: number): () => void {
		this.armed++;
		return super.setTimer(fn, ms > MAX_TIMER_MS || !Number.isFinite(ms) ? 1 : ms);
	}
}
