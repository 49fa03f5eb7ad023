import {
  MAX_TASK_FIRES,
  type Clock,
  type SchedulerState,
  type TaskFireRecord,
} from '@ultimat3/jobs';
import { iso } from '../driver/pg-context';
import { postgresJobDriver } from '../driver/pg-driver';
import { toMs, type PgTime } from '../driver/pg-rows';
import type { PgExecutor } from '../executor/pg-executor';
import { quoteSchema } from '../schema';
import { fireOccurrence } from './pg-fire';
import { schedulerStatementsFor } from './statements';

/** Options of {@link postgresSchedulerState}. */
export interface PostgresSchedulerStateOptions {
  /** Runs every statement; the same executor as the job driver, so fires land in the driver's `x_jobs`. */
  readonly executor: PgExecutor;
  /**
   * Stamps `firedAt`, arms and pauses. Absent (the default), the database's `now()` does — the same clock the
   * driver's statements read. A test passes the frozen clock it drives the scheduler with.
   */
  readonly clock?: Clock;
  /** The schema holding the tables `migrate()` created (default: found through `search_path`). */
  readonly schema?: string;
}

interface WatermarkRecord {
  readonly task: string;
  readonly watermark: PgTime;
}

interface FireRecordRow {
  readonly task: string;
  readonly last_fired_occurrence: PgTime;
  readonly last_fired_at: PgTime;
}

/**
 * The scheduler's durable state in `x_scheduler_state` (watermark and last fire per task) and `x_task_pauses`. Every
 * member is ONE statement; `fire` moves the watermark (compare-and-set), inserts the occurrence's jobs with the
 * dedupe rules of `enqueueMany`, and records the fire together (`SQL_SCHEDULER_FIRE`), so a crash or a second leader
 * can never fire one occurrence twice. It passes `schedulerStateConformance`.
 */
export function postgresSchedulerState(options: PostgresSchedulerStateOptions): SchedulerState {
  if (options.schema !== undefined) quoteSchema(options.schema); // refuse a bad name at construction
  const { executor, clock } = options;
  const sql = schedulerStatementsFor(options.schema);
  const now = (): string | null => (clock ? iso(clock.now()) : null);
  const driver = postgresJobDriver(options);

  return {
    async load(tasks) {
      const found = new Map<string, number>();
      if (tasks.length === 0) return found;
      const { rows } = await executor.query<WatermarkRecord>(sql.load, [[...tasks]]);
      for (const row of rows) found.set(row.task, toMs(row.watermark));
      return found;
    },

    fire: (request) => fireOccurrence({ executor, sql: sql.fire, now, driver }, request),

    async skipTo(task, watermarkMs, previousWatermarkMs) {
      if (previousWatermarkMs === undefined) {
        const { rows } = await executor.query(sql.arm, [now(), task, iso(watermarkMs)]);
        return rows.length > 0;
      }
      const { rowCount } = await executor.query(sql.skip, [
        now(),
        task,
        iso(watermarkMs),
        iso(previousWatermarkMs),
      ]);
      return rowCount > 0;
    },

    async taskFires() {
      const { rows } = await executor.query<FireRecordRow>(sql.fires, [MAX_TASK_FIRES]);
      return rows.map((row): TaskFireRecord => ({
        task: row.task,
        occurrenceMs: toMs(row.last_fired_occurrence),
        firedAt: toMs(row.last_fired_at),
      }));
    },

    async pauseTask(task) {
      await executor.query(sql.pause, [now(), task]);
    },

    async resumeTask(task) {
      await executor.query(sql.resume, [task]);
    },

    async pausedTasks() {
      const { rows } = await executor.query<{ task: string }>(sql.paused, []);
      return rows.map((row) => row.task);
    },
  };
}
