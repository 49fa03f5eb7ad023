import type { AckOptions } from '../driver/job-driver';
import type { ExecuteJobOptions } from './attempt-options';
import { Attempt } from './attempt';
import type { JobExecution } from './outcome';
import { RunAbort } from './run-abort';

export type { ExecuteJobOptions } from './attempt-options';

/** An attempt run through {@link executeJob}: its ack and its answered settle go to the caller's options. */
class OptionsAttempt extends Attempt {
  constructor(
    private readonly options: ExecuteJobOptions,
    abort: RunAbort,
  ) {
    super(options, options.claimed, options.job, abort);
  }

  protected override sendAck(jobId: string, ack: AckOptions): Promise<boolean> {
    const send = this.options.ack;
    return send === undefined ? super.sendAck(jobId, ack) : send(jobId, ack);
  }

  protected override settled(landed: boolean): void {
    this.options.onSettle?.(landed);
  }
}

/**
 * Runs one claimed attempt to its outcome and settles the row, fenced on its claim: completed (ack), suspended
 * (parked, uncounted), interrupted (drain, uncounted), retried, dead-lettered or dropped. Never throws for a body's
 * failure: the outcome carries it. The attempt itself, top to bottom, is {@link Attempt}; a caller's `signal` is
 * followed until it ends.
 */
export function executeJob(o: ExecuteJobOptions): Promise<JobExecution> {
  if (o.abort !== undefined) return new OptionsAttempt(o, o.abort).run();
  if (o.signal === undefined) return new OptionsAttempt(o, new RunAbort()).run();
  const { run, dispose } = RunAbort.following(o.signal);
  return new OptionsAttempt(o, run).run().finally(dispose);
}
