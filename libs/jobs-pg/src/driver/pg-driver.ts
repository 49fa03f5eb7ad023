import {
  assertEnqueueRequest,
  assertEnqueueRequests,
  assertStepRecord,
  checkedIntrospection,
  type ClaimAndRescueResult,
  type ClaimOptions,
  type Clock,
  type EnqueueRequest,
  type EnqueueResult,
  type JobDriver,
  type JobIntrospection,
  type LeaseStore,
  type RescueRequest,
  type StepStore,
} from '@ultimat3/jobs';
import { mapConnectionFailures, pingFailure, settleFailure } from '../backend/connection-failure';
import type { PgExecutor } from '../executor/pg-executor';
import { quoteSchema } from '../schema';
import { claimRescuingRows, claimRows, rescueRows } from './pg-claim';
import { isUuid, pgContext, type PgContext } from './pg-context';
import { batchMemory, enqueueMany, enqueueOne } from './pg-enqueue';
import { coalescingEnqueue } from './pg-enqueue-coalescer';
import { pgIntrospection } from './pg-introspect';
import { pgWorkerRegistry } from './pg-counters';
import { pgLeases } from './pg-leases';
import { pgPurgeTargets } from './pg-purge';
import { toJobRow, type JobRecord } from './pg-rows';
import { ackRow, ackRows, heartbeatRow, nackRow, recordProgressRow } from './pg-settle';
import { queueStats } from './pg-stats';
import { SQL_PING } from '../sql/ping.sql';
import { pgSteps } from './pg-steps';
import { statementsFor } from './statements';
import { PgLowWater } from './pg-low-water';
import { YoungTable } from './pg-young-table';

/** Options of {@link postgresJobDriver}. */
export interface PostgresJobDriverOptions {
  /** Runs every statement: {@link pgPoolExecutor} over a `pg.Pool`, or {@link typeormExecutor}. */
  readonly executor: PgExecutor;
  /**
   * The clock every statement compares and stamps with. Absent (the default), each statement reads the database's
   * `now()`, so one clock decides for every process; a test passes a frozen clock to drive time.
   */
  readonly clock?: Clock;
  /** The schema holding the tables `migrate()` created (default: found through `search_path`). */
  readonly schema?: string;
}

/** The Postgres driver: a {@link JobDriver} that always carries the operator surface and the lease store. */
export interface PostgresJobDriver extends JobDriver {
  /** Always `'postgres'`. */
  readonly kind: 'postgres';
  /** The operator surface (list, cancel, requeue, pause, counters, …). */
  readonly introspect: JobIntrospection;
  /** The fleet lease store: keyed concurrency caps and the scheduler's leader election take their leases here. */
  readonly leases: LeaseStore;
  /** The queues' low water, kept from this driver's own claims (see `PgLowWater`); a test may set a bound. */
  readonly lowWater: PgLowWater;
  /** A lower bound (epoch ms) on the run time of every row of `queue` waiting, from the low water this driver's own claims keep; undefined when it knows none. */
  waitingBound(queue: string): number | undefined;
  /** Rescues the slots' lapsed leases and claims, in one round trip (see `JobDriver.claimRescuing`). */
  claimRescuing(options: ClaimOptions, rescue: RescueRequest): Promise<ClaimAndRescueResult>;
}

/**
 * The PostgreSQL job driver over the tables `migrate()` installs. Every operation is one statement (an enqueue or an
 * acquire that met a concurrent write runs again), every state transition names the state and claim it expects, and
 * values only ever travel as parameters. It passes `backendConformance`. The executor stays the caller's: `close()`
 * ends nothing it did not open.
 *
 * Over a {@link PgExecutor.shared} executor (a pool), concurrent `enqueue()` calls are coalesced: a lone call is sent
 * at once, and the calls arriving while enqueue statements are in flight go together as one batch statement, each
 * answered as its own (see {@link coalescingEnqueue}). Over an executor bound to a caller's connection or transaction,
 * every `enqueue()` is its own statement, in call order.
 */
export function postgresJobDriver(options: PostgresJobDriverOptions): PostgresJobDriver {
  if (options.schema !== undefined) quoteSchema(options.schema); // refuse a bad name at construction
  const ctx = pgContext(options.executor, statementsFor(options.schema), options.clock);
  const memory = batchMemory(); // the enqueues' memory of meeting stored rows, this driver's own
  // a database out of reach is X_DRIVER_UNAVAILABLE to the caller, never a raw pg error
  const enqueue = mapConnectionFailures(
    options.executor.shared
      ? coalescingEnqueue(ctx, undefined, memory)
      : (request: EnqueueRequest) => enqueueOne(ctx, request, memory),
  );
  const enqueueBatch = mapConnectionFailures((requests: readonly EnqueueRequest[]) =>
    enqueueMany(ctx, requests, memory),
  );
  const steps = pgSteps(ctx);
  // a young x_jobs gets its first statistics once this driver has seen 1,000 rows (see YoungTable)
  const young = new YoungTable(options.executor, ctx.sql);

  return {
    kind: 'postgres',
    ...countedWrites(ctx, young, enqueue, enqueueBatch),
    rescue: (rescueOptions) => rescueRows(ctx, rescueOptions),
    ack: (jobId, ackOptions) => ackRow(ctx, jobId, ackOptions),
    // the database out of reach fails the whole batch, coded: the worker does not resend it ack by ack into the outage
    ackMany: (items) =>
      ackRows(ctx, items).catch((error: unknown) => {
        throw settleFailure(error);
      }),
    nack: (jobId, nackOptions) => nackRow(ctx, jobId, nackOptions),
    heartbeat: (jobId, claim, visibilityTimeoutMs) =>
      heartbeatRow(ctx, jobId, claim, visibilityTimeoutMs),
    recordProgress: (jobId, claim, progress) => recordProgressRow(ctx, jobId, claim, progress),
    stats: () => queueStats(ctx),
    async ping() {
      await ctx.executor.query(SQL_PING, []).catch((error: unknown) => {
        throw pingFailure(error);
      });
    },
    async get(jobId) {
      if (!isUuid(jobId)) return undefined;
      const { rows } = await ctx.executor.query<JobRecord>(ctx.sql.get, [jobId]);
      return rows[0] && toJobRow(rows[0]);
    },
    steps: checkedSteps(steps),
    introspect: checkedIntrospection(pgIntrospection(ctx)),
    leases: pgLeases(ctx),
    workerRegistry: pgWorkerRegistry(ctx),
    purgeTargets: (policy) => pgPurgeTargets(ctx, policy),
    waitingBound: (queue) => ctx.lowWater.bound(queue),
    lowWater: ctx.lowWater,
    close: () => young.settled(),
  };
}

/**
 * The driver's enqueue and claim members: each sends its statement, then tells the young table how many rows it saw;
 * an enqueue whose run time may hide below its queue's low water lowers it, stamped with the time its rows were
 * committed by (read after the answer): a claim sent before then, whose snapshot may lack them, keeps the lowered bound
 * when it answers later (`PgLowWater.learn`).
 */
function countedWrites(
  ctx: PgContext,
  young: YoungTable,
  enqueue: (request: EnqueueRequest) => Promise<EnqueueResult>,
  enqueueBatch: (requests: readonly EnqueueRequest[]) => Promise<EnqueueResult[]>,
): Pick<PostgresJobDriver, 'enqueue' | 'enqueueMany' | 'claim' | 'claimRescuing'> {
  return {
    // the value contract before any statement: refused alike on every driver, never a raw 22021 or a silent merge
    async enqueue(request) {
      assertEnqueueRequest(request);
      const result = await enqueue(request);
      young.saw(1);
      // read once the row is committed: a claim sent before then may not see it, and its bound must keep it
      const now = ctx.nowMs();
      if (!PgLowWater.mayHide(request.runAt, now)) return result;
      ctx.lowWater.lower(request.queue, request.runAt, now);
      return result;
    },
    async enqueueMany(requests) {
      assertEnqueueRequests(requests);
      if (requests.length === 0) return [];
      const results = await enqueueBatch(requests);
      young.saw(requests.length);
      const now = ctx.nowMs(); // once the rows are committed, as for enqueue()
      if (!requests.some((r) => PgLowWater.mayHide(r.runAt, now))) return results;
      for (const r of requests) ctx.lowWater.lower(r.queue, r.runAt, now);
      return results;
    },
    async claim(claimOptions) {
      const claimed = await claimRows(ctx, claimOptions);
      young.saw(claimed.length);
      return claimed;
    },
    async claimRescuing(claimOptions, rescue) {
      const result = await claimRescuingRows(ctx, claimOptions, rescue);
      young.saw(result.claimed.length);
      return result;
    },
  };
}

/** `steps` with each record checked against the value contract before it is saved. */
function checkedSteps(steps: StepStore): StepStore {
  return {
    load: (jobId) => steps.load(jobId),
    async save(jobId, claim, step) {
      assertStepRecord(step);
      return steps.save(jobId, claim, step);
    },
  };
}
