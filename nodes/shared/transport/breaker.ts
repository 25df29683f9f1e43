/**
 * The circuit breaker: after enough requests of one key time out unanswered, the key's next
 * requests fail at once for a while instead of each waiting out the timeout (see retry.ts).
 */
import { TimeoutBreaker } from '../retry';

/** Keys whose server accepts requests and never answers: their requests fail at once for a while. */
export const breaker = new TimeoutBreaker();
