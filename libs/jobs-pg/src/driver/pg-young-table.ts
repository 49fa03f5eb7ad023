import { setImmediate as nextTurn } from 'node:timers/promises';
import type { PgExecutor } from '../executor/pg-executor';

/** Rows the driver enqueues or claims between two looks at the table's statistics, and the count they must reach. */
export const YOUNG_TABLE_ROWS = 1_000;

/** The two statements a {@link YoungTable} sends, as the driver's schema places them. */
export interface YoungTableStatements {
  readonly jobsStatsYoung: string;
  readonly jobsAnalyze: string;
}

/**
 * Gives a young `x_jobs` its first statistics early, instead of at autovacuum's next visit.
 *
 * Why: PostgreSQL runs a prepared statement on its cached generic plan after five executions and keeps that plan until
 * the table's statistics change. A claim planned while `x_jobs` was empty, or held a few hundred rows, reaches the
 * rows it takes by a sequential scan of the whole table, and keeps doing so as the table grows:
 * `scripts/bench/young-table-plans.mjs` reads 284–287 buffers a claim of 9 rows at 3,000 rows (168–173 by the primary
 * key), 1,650 at 30,000 (429–433), and the scan grows with every row kept. Autovacuum's ANALYZE comes at its next
 * visit (`autovacuum_naptime`, 1 min by default) and, on a table that held a few hundred rows then, gives statistics
 * the planner still answers with a sequential scan. Every plan made after an ANALYZE that counted 1,000 rows reaches them by the primary key.
 *
 * How: over a {@link PgExecutor.shared} executor (its own connection, never a caller's transaction), each time the
 * driver has enqueued or claimed {@link YOUNG_TABLE_ROWS} more rows it asks whether the statistics count fewer rows
 * than that (`SQL_JOBS_STATS_YOUNG`, one catalog row) and, if so, analyses the table (`SQL_JOBS_ANALYZE`, which never
 * waits for a lock). The ANALYZE invalidates every session's cached plans of `x_jobs`, so each is planned again on the
 * new statistics. Once a look finds the statistics grown, it never looks again. Both run in the background, from the
 * next turn of the event loop: an enqueue or a claim never waits for them, nor for a connection they hold, and their
 * failure (a role not allowed to analyse, a lost connection) costs only the early plan — the driver looks again after
 * the next {@link YOUNG_TABLE_ROWS} rows. `settled()` answers once the look in flight, if any, has ended (the driver's
 * `close()` awaits it).
 */
export class YoungTable {
  private seen = 0;
  private grown = false;
  private looking: Promise<void> | undefined;

  constructor(
    private readonly executor: PgExecutor,
    private readonly sql: YoungTableStatements,
    private readonly rows = YOUNG_TABLE_ROWS,
  ) {}

  /** Counts `count` rows the driver enqueued or claimed; starts a look once they reach the threshold. */
  saw(count: number): void {
    if (this.grown || count <= 0 || this.executor.shared !== true) return;
    this.seen += count;
    if (this.seen < this.rows || this.looking !== undefined) return;
    this.seen = 0;
    // on the next turn of the event loop, not this one: the call that crossed the count answers its caller first, and a
    // caller that sends its next statement at once (a bulk producer's next batch, a busy worker's next claim) takes the
    // pool's idle connection before the look does — where the look took it, that statement waited for a connection of
    // its own to be opened (~30 ms on a 2-core VM, once a process)
    this.looking = nextTurn()
      .then(() => this.look())
      .catch(() => undefined)
      .finally(() => {
        this.looking = undefined;
      });
  }

  /** Resolves once the look in flight, if any, has ended; never rejects. */
  settled(): Promise<void> {
    return this.looking ?? Promise.resolve();
  }

  private async look(): Promise<void> {
    const { rows } = await this.executor.query<{ young: boolean }>(this.sql.jobsStatsYoung, [
      this.rows,
    ]);
    if (rows[0]?.young !== true) {
      this.grown = true;
      return;
    }
    await this.executor.query(this.sql.jobsAnalyze, []);
  }
}
