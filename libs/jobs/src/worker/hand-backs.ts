import { unstartedHandBack, type JobDriver } from '../driver/job-driver';
import type { ClaimedJob } from '../driver/job-row';
import type { JobsLogger } from '../util/logger';

/**
 * Rows a worker claimed and gives back without running them, uncounted: held rows that went stale or that a drain
 * lets go, and rows a per-process cap refused. The settles under way are kept in `pending` for the drain to wait on.
 */
export class HandBacks {
  /** The hand-backs not yet answered; each leaves once it is. */
  readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly driver: JobDriver,
    private readonly logger: JobsLogger,
    /** Told the queue of each row {@link HandBacks.release} put back, once it landed: it waits there again. */
    private readonly landed: (queue: string) => void = () => undefined,
  ) {}

  /**
   * Hands back rows claimed but never started, keeping their run time (so their place in the claim order) and their
   * last error.
   */
  release(rows: readonly ClaimedJob[]): void {
    for (const row of rows) {
      this.track(
        this.driver.nack(row.id, unstartedHandBack(row)).then(
          () => this.landed(row.queue),
          (error: unknown) =>
            this.logger.log('error', 'jobs.worker.release-failed', {
              jobId: row.id,
              error: String(error),
            }),
        ),
      );
    }
  }

  /** A cap refused the row: back to the queue due at `runAt`; `onLanded` hears once the hand-back landed. */
  defer(claimed: ClaimedJob, cap: string, runAt: number, onLanded: (runAt: number) => void): void {
    this.track(
      this.driver
        .nack(claimed.id, {
          workerId: claimed.workerId,
          claim: claimed.claim,
          kind: 'handBack',
          error: null,
          runAt,
        })
        .then(
          () => {
            this.logger.log('debug', 'jobs.limits.deferred', {
              jobId: claimed.id,
              queue: claimed.queue,
              cap,
            });
            onLanded(runAt);
          },
          (error: unknown) =>
            this.logger.log('error', 'jobs.limits.hand-back-failed', {
              jobId: claimed.id,
              error: String(error),
            }),
        ),
    );
  }

  private track(settle: Promise<void>): void {
    const tracked = settle.finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }
}
