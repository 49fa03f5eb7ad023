import type { ExecuteJobOptions } from './attempt-options';
import { Attempt } from './attempt';
import type { JobExecution } from './outcome';

export type { ExecuteJobOptions } from './attempt-options';

/**
 * Runs one claimed attempt to its outcome and settles the row, fenced on its claim: completed (ack), suspended
 * (parked, uncounted), interrupted (drain, uncounted), retried, dead-lettered or dropped. Never throws for a body's
 * failure: the outcome carries it. The attempt itself, top to bottom, is {@link Attempt}.
 */
export function executeJob(o: ExecuteJobOptions): Promise<JobExecution> {
  return new Attempt(o).run();
}
