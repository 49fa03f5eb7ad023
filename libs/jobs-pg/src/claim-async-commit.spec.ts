import type { ClaimOptions } from '@ultimat3/jobs';
import { Pool, type PoolClient } from 'pg';
import { request } from '../test/requests';
import { JOB_TABLES } from '../test/test-database';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import type { PgExecutor } from './executor/pg-executor';
import { pgPoolExecutor } from './executor/pg-pool-executor';
import { postgresJobDriver } from './driver/pg-driver';
import { SQL_CLAIM } from './sql/claim.sql';
import { SQL_CLAIM_WAITING } from './sql/claim-waiting.sql';
import { SQL_CLAIM_WOKEN } from './sql/claim-woken.sql';

const VT = 30_000;

/**
 * A worker's claim over a shared pool commits without waiting for its WAL flush: the claim statement sets
 * `synchronous_commit` to `off` for its own transaction (see docs/design.md, "The claim"). Observed from inside the
 * claim's transaction — a test client holds it open around the claim and reads the setting the commit would use — for
 * both claim statements; and never over an executor bound to a caller's transaction, whose commit stays as durable as
 * the caller asked; and never past the claim's own transaction on a pooled connection.
 */
describe('the claim commits asynchronously, and only its own transaction (PostgreSQL)', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });

  const busy: ClaimOptions = {
    workerId: 'w',
    slots: [
      { queue: 'pg-q', limit: 2, ahead: 3, names: ['pg.job'] },
      { queue: 'pg-r', limit: 1, names: ['pg.job'] },
    ],
    visibilityTimeoutMs: VT,
  };
  /** `busy` for its first queue only: the one-slot claim (`SQL_CLAIM_WOKEN`). */
  const oneSlot: ClaimOptions = { ...busy, slots: busy.slots.slice(0, 1) };

  /**
   * An executor on one client inside an open transaction, claiming to be `shared` or not, recording which claim
   * statement ran; `setting()` reads `synchronous_commit` in that same transaction.
   */
  function inTransaction(client: PoolClient, shared: boolean) {
    const ran: string[] = [];
    const executor: PgExecutor = {
      shared,
      async query<R>(text: string, values: readonly unknown[]) {
        if (text === SQL_CLAIM) ran.push('claim');
        else if (text === SQL_CLAIM_WAITING) ran.push('waiting');
        else if (text === SQL_CLAIM_WOKEN) ran.push('woken');
        const result = await client.query(text, values as unknown[]);
        return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
      },
    };
    const setting = async (): Promise<string> =>
      ((await client.query('show synchronous_commit')).rows[0] as { synchronous_commit: string })
        .synchronous_commit;
    return { executor, ran, setting };
  }

  /**
   * Four claims (`SQL_CLAIM`, `SQL_CLAIM_WAITING`, `SQL_CLAIM_WOKEN`, `SQL_CLAIM` rescuing), each in a transaction of its own held open
   * on one client: the setting the transaction's commit would use, read after each claim, then rolled back.
   */
  /**
   * Runs `body` on one pooled client whose session asks for durable commits (the test server runs with
   * synchronous_commit off for speed; a production server gives durable ones), inside a transaction `body` may end
   * and reopen; whatever it leaves open is rolled back before the client goes back to the pool.
   */
  async function onDurableClient<T>(body: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await db.pool.connect();
    try {
      await client.query('set synchronous_commit = on');
      await client.query('begin');
      return await body(client);
    } finally {
      // a failed expectation leaves its transaction open: end it before the client goes back to the pool
      await client.query('rollback');
      await client.query('reset synchronous_commit');
      client.release();
    }
  }

  async function settingsAfterClaims(shared: boolean): Promise<string[]> {
    return onDurableClient(async (client) => {
      const t = inTransaction(client, shared);
      const driver = postgresJobDriver({ executor: t.executor });
      const seen = [`before: ${await t.setting()}`];
      // the first claim computes the queue's low water (SQL_CLAIM), the next runs the busy shape (SQL_CLAIM_WAITING)
      const first = await driver.claim(busy);
      seen.push(`${t.ran.at(-1)} (${first.length} rows): ${await t.setting()}`);
      await client.query('rollback');
      await client.query('begin');
      const second = await driver.claim(busy);
      seen.push(`${t.ran.at(-1)} (${second.length} rows): ${await t.setting()}`);
      await client.query('rollback');
      await client.query('begin');
      const third = await driver.claim(oneSlot);
      seen.push(`${t.ran.at(-1)} (${third.length} rows): ${await t.setting()}`);
      await client.query('rollback');
      await client.query('begin');
      const rescued = await driver.claimRescuing(busy, {});
      seen.push(`${t.ran.at(-1)} rescuing (${rescued.claimed.length} rows): ${await t.setting()}`);
      await client.query('rollback');
      return seen;
    });
  }

  it('sets synchronous_commit off in the claim transaction over a shared executor, through each statement', async () => {
    const seed = postgresJobDriver({ executor: db.executor });
    await seed.enqueueMany(Array.from({ length: 6 }, () => request()));
    expect(await settingsAfterClaims(true)).toEqual([
      'before: on',
      'claim (5 rows): off',
      'waiting (5 rows): off',
      'woken (5 rows): off',
      'claim rescuing (5 rows): off',
    ]);
  });

  it('keeps a claim that buries a lapsed final attempt durable: the worker announces the burial once', async () => {
    const seed = postgresJobDriver({ executor: db.executor });
    const last = request({ maxAttempts: 1 });
    await seed.enqueue(last);
    // a worker that died holding it on its final attempt, its lease lapsed at once
    const [held] = await seed.claim({ ...busy, workerId: 'dead', visibilityTimeoutMs: 1 });
    expect(held?.id).toBe(last.id);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await seed.enqueueMany(Array.from({ length: 2 }, () => request()));
    await onDurableClient(async (client) => {
      const t = inTransaction(client, true);
      const driver = postgresJobDriver({ executor: t.executor });
      const pass = await driver.claimRescuing(busy, {});
      expect(pass.rescued.buried.map((row) => row.id)).toEqual([last.id]);
      expect(pass.claimed).toHaveLength(2);
      expect(await t.setting()).toBe('on');
    });
  });

  it('leaves the setting alone in a caller transaction (an executor that is not shared)', async () => {
    const seed = postgresJobDriver({ executor: db.executor });
    await seed.enqueueMany(Array.from({ length: 6 }, () => request()));
    expect(await settingsAfterClaims(false)).toEqual([
      'before: on',
      'claim (5 rows): on',
      'waiting (5 rows): on',
      'woken (5 rows): on',
      'claim rescuing (5 rows): on',
    ]);
  });

  it('over a pool, the setting ends with the claim: the next statement on the connection commits durably', async () => {
    // durable commits by default on this pool's one connection, as a production server gives them
    const one = new Pool({ connectionString: db.url, max: 1, options: '-c synchronous_commit=on' });
    one.on('error', () => undefined);
    try {
      const executor = pgPoolExecutor(one);
      expect(executor.shared).toBe(true);
      const driver = postgresJobDriver({ executor });
      await driver.enqueueMany(Array.from({ length: 4 }, () => request()));
      const claimed = [...(await driver.claim(busy)), ...(await driver.claim(busy))];
      expect(claimed).toHaveLength(4);
      // and after the one-slot claim (SQL_CLAIM_WOKEN) too
      await driver.enqueueMany(Array.from({ length: 4 }, () => request()));
      expect(await driver.claim(oneSlot)).toHaveLength(4);
      const { rows } = await executor.query<{ synchronous_commit: string }>(
        'select current_setting($1) as synchronous_commit',
        ['synchronous_commit'],
      );
      expect(rows[0]?.synchronous_commit).toBe('on');
      // the rows are claimed for good: another connection sees them running under this worker
      const { rows: running } = await db.executor.query<{ n: string }>(
        "select count(*) as n from x_jobs where state = 'running' and worker_id = 'w'",
        [],
      );
      expect(Number(running[0]?.n)).toBe(8);
    } finally {
      await one.end();
    }
  });
});
