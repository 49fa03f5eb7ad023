import {
  boundInFlight,
  checkCounterQuery,
  counterSince,
  type CounterBucket,
  type CounterTotals,
  type JobIntrospection,
  type WorkerInfo,
  type WorkerRegistry,
} from '@ultimat3/jobs';
import { iso, isUuid, type PgContext } from './pg-context';

/** How many buckets one `SQL_COUNTERS_ROLLUP` folds at most; `rollupCounters()` repeats while a call folds this many. */
const ROLLUP_BATCH = 5_000;

interface CountsRecord {
  readonly name: string;
  readonly done: number;
  readonly retried: number;
  readonly failed: number;
  readonly dead: number;
  readonly cancelled: number;
  readonly duration_ms: number;
}

interface BucketRecord extends CountsRecord {
  readonly bucket_ms: number;
  readonly bucket_start: number;
}

interface WorkerRecord {
  readonly id: string;
  readonly host: string;
  readonly pid: number | null;
  readonly queues: readonly string[] | string;
  readonly slots: Readonly<Record<string, number>> | string;
  readonly in_flight: readonly string[] | string;
  readonly started_at: number;
  readonly heartbeat_at: number;
  readonly expires_at: number;
}

const totalsOf = (r: CountsRecord): CounterTotals => ({
  job: r.name,
  done: Number(r.done),
  retried: Number(r.retried),
  failed: Number(r.failed),
  dead: Number(r.dead),
  cancelled: Number(r.cancelled),
  durationMs: Number(r.duration_ms),
});

/** A text or uuid array as an executor may hand it over: parsed already, or in its `{a,b}` text form. */
function arrayOf(value: readonly string[] | string): string[] {
  if (typeof value !== 'string') return [...value];
  const inner = value.replace(/^\{|\}$/g, '');
  return inner === '' ? [] : inner.split(',').map((s) => s.replace(/^"|"$/g, ''));
}

function toWorkerInfo(r: WorkerRecord): WorkerInfo {
  const slots =
    typeof r.slots === 'string' ? (JSON.parse(r.slots) as Record<string, number>) : r.slots;
  return {
    id: r.id,
    host: r.host,
    pid: r.pid,
    startedAt: Number(r.started_at),
    slots: { ...slots },
    queues: arrayOf(r.queues),
    inFlight: arrayOf(r.in_flight),
    heartbeatAt: Number(r.heartbeat_at),
    expiresAt: Number(r.expires_at),
  };
}

/** The operator surface's counter and worker reads over `x_job_counters` and `x_workers`. */
export function pgCounterIntrospection(
  ctx: PgContext,
): Pick<JobIntrospection, 'workers' | 'counters' | 'counterTotals' | 'rollupCounters'> {
  return {
    async workers() {
      const { rows } = await ctx.executor.query<WorkerRecord>(ctx.sql.workers, [ctx.now()]);
      return rows.map(toWorkerInfo);
    },
    async counters(query) {
      const { job, sinceMs } = checkCounterQuery(query);
      const { rows } = await ctx.executor.query<BucketRecord>(ctx.sql.counters, [job, sinceMs]);
      return rows.map((r): CounterBucket => ({
        ...totalsOf(r),
        bucketMs: Number(r.bucket_ms),
        bucketStart: Number(r.bucket_start),
      }));
    },
    async counterTotals(sinceMs) {
      const since = counterSince(sinceMs, 'counterTotals()');
      const { rows } = await ctx.executor.query<CountsRecord>(ctx.sql.counterTotals, [since]);
      return rows.map(totalsOf);
    },
    async rollupCounters() {
      let total = 0;
      for (;;) {
        const { rows } = await ctx.executor.query<{ folded: number }>(ctx.sql.countersRollup, [
          ctx.now(),
          ROLLUP_BATCH,
        ]);
        const folded = Number(rows[0]?.folded ?? 0);
        total += folded;
        if (folded < ROLLUP_BATCH) return total;
      }
    },
  };
}

/** Worker rows in `x_workers` (see `SQL_WORKER_BEAT`, `SQL_WORKER_LEAVE`). */
export function pgWorkerRegistry(ctx: PgContext): WorkerRegistry {
  return {
    // `SQL_CLAIM` upserts the row too when a claim carries the beat (`ClaimOptions.presence`)
    claimCarriesBeat: true,
    async beat(beat, visibilityTimeoutMs) {
      await ctx.executor.query(ctx.sql.workerBeat, [
        ctx.now(),
        beat.id,
        beat.host,
        beat.pid,
        Object.keys(beat.slots).sort(),
        JSON.stringify(beat.slots),
        boundInFlight(beat.inFlight.filter(isUuid)),
        iso(beat.startedAt),
        visibilityTimeoutMs,
      ]);
    },
    async leave(workerId) {
      await ctx.executor.query(ctx.sql.workerLeave, [workerId]);
    },
  };
}
