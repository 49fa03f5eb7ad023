import type { PoolClient } from 'pg';
import { claimOf, type ClaimedJob } from '@ultimat3/jobs';
import { frozenClock, type FrozenClock } from '@ultimat3/jobs/testing';
import { request } from '../test/requests';
import { JOB_TABLES } from '../test/test-database';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { postgresJobDriver } from './driver/pg-driver';
import { pgPoolExecutor } from './executor/pg-pool-executor';

const QUEUE = 'pg-q';
const START = Date.UTC(2026, 0, 1);
const VT = 1_000;
const slots = [{ queue: QUEUE }];

type PgDriver = ReturnType<typeof postgresJobDriver>;

/**
 * An ack and a rescue of the same lapsed lease, interleaved deterministically: one of them is held open in a
 * transaction while the other is sent (River #1302: a rescue that matched only the id moved a completed row back to
 * retryable). Whichever commits first wins whole; the other changes nothing — no completed row made retryable or
 * buried, no acked row counted done after a rescue, no attempt burned twice.
 */
describe('an ack racing a rescue of the same lapsed lease (PostgreSQL)', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });
  let clock: FrozenClock;
  let driver: PgDriver;
  let held: PoolClient | undefined;

  beforeEach(() => {
    clock = frozenClock(START);
    driver = postgresJobDriver({ executor: db.executor, clock });
  });

  afterEach(async () => {
    await held?.query('rollback');
    held?.release();
    held = undefined;
  });

  /** A driver whose every statement runs in one open transaction, committed by `commit()`. */
  async function inTransaction(): Promise<{ driver: PgDriver; commit: () => Promise<void> }> {
    const client = await db.pool.connect();
    held = client;
    await client.query('begin');
    return {
      driver: postgresJobDriver({ executor: pgPoolExecutor(client), clock }),
      async commit() {
        await client.query('commit');
        client.release();
        held = undefined;
      },
    };
  }

  /** The options of a one-row claim of the queue by `workerId`. */
  const oneRow = (workerId: string, visibilityTimeoutMs = VT) => ({
    workerId,
    slots: [{ queue: QUEUE, limit: 1 }],
    visibilityTimeoutMs,
  });

  /** A row claimed by worker `a` whose lease has just lapsed. */
  async function lapsed(maxAttempts: number): Promise<ClaimedJob> {
    await driver.enqueue(request({ maxAttempts, runAt: START }));
    const [row] = await driver.claim(oneRow('a'));
    await clock.advance(VT);
    return row!;
  }

  /** Resolves once a statement of this database waits on a row lock (the one just sent, behind the held one). */
  async function waitingOnLock(): Promise<void> {
    for (;;) {
      const { rows } = await db.pool.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity
         where datname = current_database() and wait_event_type = 'Lock'`,
      );
      if (rows[0]!.n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** Sends `row`'s stale ack behind `holder`'s lock, commits the holder, and answers what the ack answered. */
  async function staleAckAfter(
    row: ClaimedJob,
    holder: { commit: () => Promise<void> },
  ): Promise<boolean> {
    const ack = driver.ack(row.id, claimOf(row));
    await waitingOnLock();
    await holder.commit();
    return ack;
  }

  /** The `done` count the ack statements added for pg.job across every bucket. */
  async function doneCounted(): Promise<number> {
    const { rows } = await db.pool.query<{ n: number }>(
      `select coalesce(sum(done), 0)::int as n from x_job_counters where name = 'pg.job'`,
    );
    return rows[0]!.n;
  }

  it.each([3, 1])(
    'an ack holding the row wins: the rescue skips it unblocked, the row ends done (maxAttempts %i)',
    async (maxAttempts) => {
      const row = await lapsed(maxAttempts);
      const acking = await inTransaction();
      expect(await acking.driver.ack(row.id, claimOf(row))).toBe(true);
      // the held ack's row is skipped, not waited for: both complete while the ack is still uncommitted
      expect(await driver.rescue({ slots, visibilityTimeoutMs: VT })).toEqual({ buried: [] });
      const raced = await driver.claimRescuing(oneRow('b'), {});
      expect(raced).toEqual({ claimed: [], rescued: { buried: [] } });
      await acking.commit();
      expect(await driver.get(row.id)).toMatchObject({ state: 'done', attempt: 1, claim: null });
      expect(await doneCounted()).toBe(1);
      // nothing left to rescue or claim once the ack committed
      expect(await driver.rescue({ slots, visibilityTimeoutMs: VT })).toEqual({ buried: [] });
      expect(await driver.claim(oneRow('b'))).toEqual([]);
    },
  );

  it('a rescue holding the row wins: the ack waits for it, then is refused, and the row is claimable again', async () => {
    const row = await lapsed(3);
    const rescuing = await inTransaction();
    expect(await rescuing.driver.rescue({ slots, visibilityTimeoutMs: VT })).toEqual({
      buried: [],
    });
    expect(await staleAckAfter(row, rescuing)).toBe(false);
    expect(await driver.get(row.id)).toMatchObject({ state: 'ready', attempt: 1, claim: null });
    expect(await doneCounted()).toBe(0);
    const [again] = await driver.claim(oneRow('b'));
    expect(again).toMatchObject({ id: row.id, attempt: 2, workerId: 'b' });
  });

  it('a rescue burying a final attempt wins: the ack waits, is refused, and the row stays dead, not done', async () => {
    const row = await lapsed(1);
    const rescuing = await inTransaction();
    const { buried } = await rescuing.driver.rescue({ slots, visibilityTimeoutMs: VT });
    expect(buried.map((r) => r.id)).toEqual([row.id]);
    expect(await staleAckAfter(row, rescuing)).toBe(false);
    expect(await driver.get(row.id)).toMatchObject({
      state: 'dead',
      lastError: 'LEASE_LAPSED_FINAL_ATTEMPT',
      claim: null,
    });
    expect(await doneCounted()).toBe(0);
  });

  it("a worker's claim re-taking the row wins: the stale ack waits, is refused, and the new lease stands", async () => {
    const row = await lapsed(3);
    const claiming = await inTransaction();
    const { claimed } = await claiming.driver.claimRescuing(oneRow('b', 30_000), {});
    expect(claimed).toMatchObject([{ id: row.id, attempt: 2, workerId: 'b' }]);
    expect(await staleAckAfter(row, claiming)).toBe(false);
    expect(await driver.get(row.id)).toMatchObject({
      state: 'running',
      attempt: 2,
      workerId: 'b',
      claim: claimed[0]!.claim,
    });
    expect(await doneCounted()).toBe(0);
    expect(await driver.ack(row.id, claimOf(claimed[0]!))).toBe(true);
  });
});
