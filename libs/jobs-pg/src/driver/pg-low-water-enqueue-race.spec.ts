import { uuidv7, type EnqueueRequest } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import type { PgExecutor, PgQueryResult } from '../executor/pg-executor';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { postgresJobDriver, type PostgresJobDriver } from './pg-driver';
import { statementsFor } from './statements';

const VT = 30_000;
const QUEUE = 'pg-q';
const START = Date.UTC(2026, 0, 1);

/** A gate a statement waits at until the test opens it. */
interface Gate {
  readonly reached: Promise<void>;
  open(): void;
}

function gate(): Gate & { arrive(): Promise<void> } {
  let arrived!: () => void;
  let opened!: () => void;
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  const open = new Promise<void>((resolve) => (opened = resolve));
  return {
    reached,
    open: () => opened(),
    arrive: () => {
      arrived();
      return open;
    },
  };
}

/**
 * An executor (bound to no caller's transaction) that can hold one statement of a given text before it is sent, or
 * its answer after the server gave it.
 */
function gated(executor: PgExecutor) {
  const before = new Map<string, Gate & { arrive(): Promise<void> }>();
  const after = new Map<string, Gate & { arrive(): Promise<void> }>();
  return {
    holdBefore(text: string): Gate {
      const g = gate();
      before.set(text, g);
      return g;
    },
    holdAnswer(text: string): Gate {
      const g = gate();
      after.set(text, g);
      return g;
    },
    async query<R>(text: string, values: readonly unknown[]): Promise<PgQueryResult<R>> {
      const b = before.get(text);
      if (b !== undefined) {
        before.delete(text);
        await b.arrive();
      }
      const result = await executor.query<R>(text, values);
      const a = after.get(text);
      if (a !== undefined) {
        after.delete(text);
        await a.arrive();
      }
      return result;
    },
  };
}

/**
 * The driver lowers its queue's low water for a row it enqueues in the past, so that its own claims see the row even
 * when a claim whose snapshot predates the enqueue's commit answers after it (`PgLowWater.learn`).
 */
describe('the low water and an enqueue racing a claim (PostgreSQL, driven clock)', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });
  const sql = statementsFor();

  const at = (runAt: number): EnqueueRequest => request({ id: uuidv7(runAt), runAt });
  const claim = (driver: PostgresJobDriver) =>
    driver.claim({ workerId: 'w', slots: [{ queue: QUEUE, limit: 1 }], visibilityTimeoutMs: VT });

  it('keeps a row enqueued in the past visible to its next claim when a claim sent while the enqueue ran answers after it', async () => {
    const clock = frozenClock(START);
    const executor = gated(db.executor);
    const driver = postgresJobDriver({ executor, clock });
    const early = at(START - 3_600_000);

    // the enqueue is called, then held before its statement reaches the server
    const insertHeld = executor.holdBefore(sql.enqueueInsert);
    const enqueued = driver.enqueue(early);
    await insertHeld.reached;

    // meanwhile a claim is sent: its snapshot has no such row; its answer is held after the server gave it
    await clock.advance(1);
    const claimHeld = executor.holdAnswer(sql.claim);
    const first = claim(driver);
    await claimHeld.reached;

    // the enqueue commits and answers first, then the claim's answer arrives
    insertHeld.open();
    expect(await enqueued).toEqual({ id: early.id, runId: early.runId, deduped: false });
    claimHeld.open();
    expect(await first).toEqual([]);

    // the next claim, within the refresh, starts its scan at the bound: the row must not be below it
    expect(driver.lowWater.bound(QUEUE)).toBeLessThanOrEqual(early.runAt);
    expect((await claim(driver)).map((row) => row.id)).toEqual([early.id]);
  });
});
