import {
  type ClaimedJob,
  type JobsLogger,
  type WakeHandOff,
  unstartedHandBack,
} from '@ultimat3/jobs';
import type { RedisContext } from './redis-context';
import { handedRows, type HandedRows } from './redis-hand-off-reply';
import { nackRow } from './redis-settle';

/** Logs a failure of `workerId`'s hand-off as a warning: `event`, with the worker and the error's message. */
export function warnHandOff(
  logger: JobsLogger | undefined,
  workerId: string,
  event: string,
  error: unknown,
): void {
  logger?.log('warn', event, {
    workerId,
    error: error instanceof Error ? error.message : String(error),
  });
}

/**
 * What becomes of the rows handed to one worker: given to it ({@link WakeHandOff.takeClaimed}) as its own claim's rows
 * are, buried first when their stored input is not JSON text, or handed back (a stop) for the next claim.
 */
export class HandOffDelivery {
  private readonly workerId: string;

  constructor(
    private readonly ctx: RedisContext,
    private readonly target: WakeHandOff,
    private readonly logger?: JobsLogger,
  ) {
    this.workerId = target.workerId;
  }

  /**
   * Gives rows claimed for this worker to it; buries (dead, fenced) rows whose stored input is not JSON text first.
   * Rows read from the entries alone, with none to bury, are given at once: undefined, no promise, and the worker
   * starts them in the turn the pop was answered in.
   */
  deliver(entries: readonly unknown[]): Promise<void> | undefined {
    const read = handedRows(this.ctx, this.workerId, entries);
    return read instanceof Promise ? read.then(this.given) : this.given(read);
  }

  /** Hands `rows` back unstarted (nack `handBack`), one after the other; a failure is logged, never thrown. */
  async handBack(rows: readonly ClaimedJob[]): Promise<void> {
    for (const row of rows) {
      await nackRow(this.ctx, row.id, unstartedHandBack(row)).catch((error: unknown) =>
        warnHandOff(this.logger, this.workerId, 'jobs.hand-off.hand-back-failed', error),
      );
    }
  }

  private readonly given = ({ rows, unreadable }: HandedRows): Promise<void> | undefined => {
    if (unreadable.length > 0) return this.buryThenGive(rows, unreadable);
    if (rows.length > 0) this.target.takeClaimed(rows);
    return undefined;
  };

  /**
   * Buries (dead, fenced) rows whose stored input is not JSON text, then gives the others to the worker. A burial that
   * fails (Redis out of reach, a script error) is logged `jobs.hand-off.bury-failed` and leaves its row leased for the
   * rescue: it neither stops the next burial nor keeps the good rows from the worker.
   */
  private async buryThenGive(
    rows: readonly ClaimedJob[],
    unreadable: readonly ClaimedJob[],
  ): Promise<void> {
    for (const row of unreadable) {
      await nackRow(this.ctx, row.id, {
        workerId: this.workerId,
        claim: row.claim,
        kind: 'dead',
        error: `X_JOB_INPUT_INVALID: the stored input of job ${row.name} is not JSON text`,
      }).catch((error: unknown) =>
        warnHandOff(this.logger, this.workerId, 'jobs.hand-off.bury-failed', error),
      );
    }
    if (rows.length > 0) this.target.takeClaimed(rows);
  }
}
