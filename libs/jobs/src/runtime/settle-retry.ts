import type { ClaimedJob } from '../driver/job-row';
import { JobsError } from '../errors/jobs-error';
import { logError, withErrorStack } from '../util/log-format';
import type { AttemptEnv } from './attempt-options';

/** The first wait before a settle the driver threw on is sent again; each later wait doubles. */
export const SETTLE_RETRY_FIRST_MS = 100;
/** The longest wait between two sends of one settle. */
export const SETTLE_RETRY_MAX_MS = 2_000;

/** A coded error of ours other than the database out of reach: sending the settle again cannot help. */
const isFinal = (error: unknown): boolean =>
  error instanceof JobsError && error.code !== 'X_DRIVER_UNAVAILABLE';

/**
 * Sends a settle again after the driver THREW on it (a dropped connection, a failover, a timeout) — as opposed to
 * answering false, which is final: the row is another claim's. Every settle is fenced on the claim, so sending it
 * again is safe whatever the first send did: if it landed before the error, the repeat answers false only because
 * the row already moved, and if another worker re-took the row meanwhile, the repeat answers false and the run is
 * `lost`. Without this, one connection blip after a body completed left its row running until the lease lapsed —
 * a counted attempt spent on a job that had succeeded, and on a final attempt a burial as dead.
 *
 * Waits {@link SETTLE_RETRY_FIRST_MS}, doubling to {@link SETTLE_RETRY_MAX_MS}, for as long as the run's lease could
 * still be its own (the visibility timeout from the first failure; the heartbeat keeps renewing it meanwhile). A
 * coded error of ours (a `JobsError`) is not a blip and is thrown at once, as is the last error once the window is
 * spent — except `X_DRIVER_UNAVAILABLE`, the database out of reach, which is the blip itself (a driver answers a
 * failed batch of acks so, for the worker's batcher to fail the batch at once rather than resend it ack by ack).
 */
export async function resendSettle(
  o: Pick<AttemptEnv, 'clock' | 'logger' | 'visibilityTimeoutMs'>,
  claimed: ClaimedJob,
  first: unknown,
  settle: string,
  send: () => Promise<boolean>,
): Promise<boolean> {
  const giveUpAt = o.clock.now() + (o.visibilityTimeoutMs ?? 30_000);
  let error = first;
  let wait = SETTLE_RETRY_FIRST_MS;
  for (let tries = 1; ; tries++) {
    if (isFinal(error) || o.clock.now() + wait > giveUpAt) throw error;
    o.logger.log(
      'warn',
      'jobs.settle.retrying',
      withErrorStack(
        {
          job: claimed.name,
          jobId: claimed.id,
          attempt: claimed.attempt,
          settle,
          tries,
          retryInMs: wait,
          error: logError(error),
        },
        error,
      ),
    );
    await new Promise<void>((resolve) => o.clock.setTimeout(resolve, wait));
    try {
      return await send();
    } catch (next) {
      error = next;
      wait = Math.min(wait * 2, SETTLE_RETRY_MAX_MS);
    }
  }
}
