import {
  assertEnqueueRequests,
  InvariantError,
  JobDuplicateError,
  type EnqueueRequest,
  type EnqueueResult,
  type JobDriver,
  type TaskFireRequest,
  type TaskFireResult,
} from '@ultimat3/jobs';
import { iso } from '../driver/pg-context';
import { columnsOf } from '../driver/pg-enqueue';
import type { PgExecutor } from '../executor/pg-executor';

/** One row `SQL_SCHEDULER_FIRE` answers. */
interface FireRecord {
  readonly fired: boolean;
  readonly refused: boolean;
  readonly ord: number | null;
  readonly id: string | null;
  readonly run_id: string | null;
  readonly outcome: 'created' | 'id' | 'key' | null;
  readonly holder_state: string | null;
}

/** What a fire needs: the executor, its statement, the `$now` parameter, and a driver for the rare re-run. */
export interface FireContext {
  readonly executor: PgExecutor;
  readonly sql: string;
  readonly now: () => string | null;
  readonly driver: Pick<JobDriver, 'enqueueMany'>;
}

/** The statement's parameters: the fire, then one array per column of the requests (as `SQL_ENQUEUE_MANY`). */
function fireValues(ctx: FireContext, request: TaskFireRequest): unknown[] {
  const column = <T>(pick: (r: EnqueueRequest) => T): T[] => request.requests.map(pick);
  return [
    ctx.now(),
    request.task,
    iso(request.occurrenceMs),
    iso(request.watermarkMs),
    iso(request.previousWatermarkMs),
    ...columnsOf(request.requests),
    column((r) => r.onConflict === 'error'),
  ];
}

function duplicate(request: EnqueueRequest, record: FireRecord): JobDuplicateError {
  const tenant = request.tenantId ? ` for tenant "${request.tenantId}"` : '';
  return new JobDuplicateError(
    `Job "${request.name}" already has a live run (job ${record.id ?? 'in this fire'}, ${record.holder_state ?? 'ready'}) under idempotency key "${request.idempotencyKey}"${tenant}; the occurrence did not fire.`,
    "Enqueue a task's jobs with onConflict: 'dedupe' (the default).",
    { job: request.name, id: record.id, runId: record.run_id, state: record.holder_state },
  );
}

/**
 * Runs `SQL_SCHEDULER_FIRE`: the watermark move, the rows and the fire record in one statement. A request no driver
 * can store exactly is refused first (`X_VALUE_INVALID`, nothing written). A strict request
 * that met a live key refused it (nothing written): that throws `X_JOB_DUPLICATE`, as `enqueueMany` would. A request
 * that met a row committed after the statement's snapshot is enqueued again through the driver — the watermark has
 * moved, and that row holds its id or key, so the re-run answers it.
 */
export async function fireOccurrence(
  ctx: FireContext,
  request: TaskFireRequest,
): Promise<TaskFireResult> {
  // refused before the statement, as `enqueueMany` and the memory and Redis fires do: not stored, nor a raw error
  assertEnqueueRequests(request.requests);
  const { rows } = await ctx.executor.query<FireRecord>(ctx.sql, fireValues(ctx, request));
  const first = rows[0];
  if (first === undefined) throw new InvariantError('jobs-pg: a scheduler fire answered no row.');
  if (first.refused) {
    rows.forEach((record, i) => {
      const req = request.requests[i];
      if (req?.onConflict === 'error' && record.outcome === 'key') throw duplicate(req, record);
    });
    throw new InvariantError('jobs-pg: a scheduler fire was refused with no strict request.');
  }
  if (!first.fired) return { fired: false, results: [] };
  const answered = rows.filter((r) => r.ord !== null);
  if (answered.length !== request.requests.length) {
    throw new InvariantError(
      `jobs-pg: a scheduler fire answered ${answered.length} of ${request.requests.length}.`,
    );
  }
  const results: (EnqueueResult | null)[] = answered.map((record) =>
    record.outcome === null || record.id === null || record.run_id === null
      ? null
      : { id: record.id, runId: record.run_id, deduped: record.outcome !== 'created' },
  );
  const pending = results.flatMap((r, i) => (r === null ? [i] : []));
  if (pending.length > 0) {
    const again = await ctx.driver.enqueueMany(
      pending.map((i) => request.requests[i] as EnqueueRequest),
    );
    pending.forEach((index, at) => {
      results[index] = again[at] ?? null;
    });
  }
  return { fired: true, results: results as EnqueueResult[] };
}
