import type { BackfillInput } from '../declare/backfill-definition';
import type { RunArgs } from '../declare/run-args';
import type { ResolvedBackfillRuntime } from './backfill-runtime';
import type { ResolvedBackfill } from './resolved';

/** Where a pass stands once it looked at the ledger: its row, or the completed run that makes it a no-op. */
export interface OpenedPass {
  /** The ledger row this pass writes (null: no ledger, or skipped). */
  readonly ledgerId: string | null;
  /** The run of a completed pass that makes this one a no-op (null: sweep). */
  readonly previousRunId: string | null;
}

/**
 * Finds this job's own ledger row (a retry adopts it: `startedAt` is when the pass began), else — unless `force` —
 * the newest completed pass of the name, which makes this pass a no-op, else inserts a new row. Only a completed row
 * blocks: a running row is this pass resuming, a failed one an attempt the queue is retrying. A completed row whose
 * checksum differs from the declaration's is logged `jobs.backfill.checksum-moved` and still blocks.
 */
export async function openPass<T>(
  backfill: ResolvedBackfill<T>,
  runtime: ResolvedBackfillRuntime,
  args: RunArgs<BackfillInput>,
  force: boolean,
  newId: string,
): Promise<OpenedPass> {
  const ledger = runtime.ledger;
  if (ledger === undefined) return { ledgerId: null, previousRunId: null };
  const start = {
    id: newId,
    name: backfill.name,
    checksum: backfill.checksum,
    appVersion: runtime.appVersion,
    jobId: args.jobId,
    runId: args.runId,
    nowMs: backfill.clock.now(),
  };
  const own = await ledger.byJob(args.jobId);
  if (own !== undefined) return { ledgerId: (await ledger.begin(start)).id, previousRunId: null };
  if (!force) {
    const [completed] = await ledger.list({ name: backfill.name, status: 'completed', limit: 1 });
    if (completed !== undefined) {
      if (completed.checksum !== backfill.checksum) {
        runtime.logger.log('warn', 'jobs.backfill.checksum-moved', {
          backfill: backfill.name,
          recorded: completed.checksum,
          declared: backfill.checksum,
          previousRunId: completed.runId,
        });
      }
      return { ledgerId: null, previousRunId: completed.runId ?? completed.id };
    }
  }
  return { ledgerId: (await ledger.begin(start)).id, previousRunId: null };
}
