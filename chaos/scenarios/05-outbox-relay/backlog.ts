/**
 * Scenario 5's backlog: outbox rows staged the way an app stages them — transactions of 1 to 3 rows on 4
 * connections at once — with every 5th transaction (by the run's seed) rolled back after its stage. It remembers which
 * rows committed and which rolled back: the spec's ground truth of what must, and must not, become a job.
 */
import type { Pool } from 'pg';
import { uuidv7, type EnqueueRequest, type OutboxStore } from '@ultimat3/jobs';
import type { ChaosRandom } from '../../harness/schedule';
import { stageInTx } from '../../../libs/jobs-pg/test/outbox-tx';

/** The job every staged row is. */
export const RELAYED_JOB = 'chaos.relayed';
/** Its queue. */
export const RELAYED_QUEUE = 'relayed';

/** A staged transaction the backlog rolls back on purpose. */
class RolledBack extends Error {}

/** One row's request: its own ids and a key of its own (`row:<i>`). */
function request(i: number): EnqueueRequest {
  const now = Date.now();
  return {
    ...{
      id: uuidv7(now),
      runId: uuidv7(now),
      name: RELAYED_JOB,
      queue: RELAYED_QUEUE,
      input: { i },
    },
    ...{ idempotencyKey: `row:${i}`, tenantId: null, enqueuedBy: null, runAt: now, maxAttempts: 1 },
    ...{ priority: 0, onConflict: 'dedupe' as const, concurrencyKey: null, traceparent: null },
  };
}

/** The rows staged so far, committed or rolled back. */
export class Backlog {
  /** Ids of committed rows: each must become exactly one job. */
  readonly committed = new Set<string>();
  /** Ids of rows whose transaction rolled back: none may become a job. */
  readonly rolledBack = new Set<string>();
  #next = 0;

  constructor(
    private readonly pool: Pool,
    private readonly store: Pick<OutboxStore, 'stage'>,
    private readonly random: ChaosRandom,
  ) {}

  /** Stages `rows` more rows, 4 transactions at a time. */
  async stage(rows: number): Promise<void> {
    const end = this.#next + rows;
    const lane = async (): Promise<void> => {
      while (this.#next < end) {
        const size = Math.min(1 + this.random.int(3), end - this.#next);
        const batch = Array.from({ length: size }, () => request(this.#next++));
        if (this.random.int(5) === 0) await this.#rollBack(batch);
        else {
          await stageInTx(this.pool, this.store, batch);
          for (const r of batch) this.committed.add(r.id);
        }
      }
    };
    await Promise.all(Array.from({ length: 4 }, lane));
  }

  /** Stages `batch` in a transaction that throws after the stage, so it rolls back. */
  async #rollBack(batch: readonly EnqueueRequest[]): Promise<void> {
    const failing = {
      stage: (r: EnqueueRequest, tx?: unknown) =>
        this.store.stage(r, tx).then(() => Promise.reject(new RolledBack())),
    };
    await stageInTx(this.pool, failing, batch).catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
    for (const r of batch) this.rolledBack.add(r.id);
  }
}
