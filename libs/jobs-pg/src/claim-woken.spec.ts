import { uuidv7, type ClaimedJob, type ClaimOptions, type EnqueueRequest } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { Pool, type PoolClient } from 'pg';
import { request } from '../test/requests';
import { JOB_TABLES } from '../test/test-database';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { postgresJobDriver } from './driver/pg-driver';
import { pgPoolExecutor } from './executor/pg-pool-executor';
import type { PgExecutor } from './executor/pg-executor';
import { SQL_CLAIM_WOKEN } from './sql/claim-woken.sql';

const VT = 30_000;
const START = Date.UTC(2026, 0, 1);

/**
 * The one-slot claim (`SQL_CLAIM_WOKEN`): it hands out exactly what `SQL_CLAIM` hands out for the same slot, claim
 * after claim; two workers claiming at once take every row exactly once; and the plan cache settles on its generic
 * plan over a table with statistics.
 */
describe('the one-slot woken claim (PostgreSQL, driven clock)', () => {
  const a = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });
  const b = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });

  /** `executor`, counting the woken claims sent through it. */
  function counting(executor: PgExecutor): { executor: PgExecutor; woken: () => number } {
    let woken = 0;
    return {
      woken: () => woken,
      executor: {
        shared: executor.shared,
        query(text, values) {
          if (text === SQL_CLAIM_WOKEN) woken++;
          return executor.query(text, values);
        },
      },
    };
  }

  /** What a claim answered, in id order (each answers its rows in the order its update met them). */
  const shape = (claimed: readonly ClaimedJob[]): unknown[] =>
    [...claimed]
      .sort((x, y) => (x.id < y.id ? -1 : 1))
      .map((c) => [
        c.id,
        c.queue,
        c.state,
        c.attempt,
        c.workerId,
        c.leaseExpiresAt,
        c.runAt,
        c.input,
      ]);

  it('hands out exactly the rows SQL_CLAIM hands out for one slot, claim after claim', async () => {
    const clock = frozenClock(START);
    const full = postgresJobDriver({ executor: a.executor, clock });
    const counted = counting(b.executor);
    const woken = postgresJobDriver({ executor: counted.executor, clock });
    const row = (n: number, over: Partial<EnqueueRequest>): EnqueueRequest =>
      request({ id: uuidv7(START - 100_000 + n), runAt: START - 50_000 + n * 7, ...over });
    const rows = [
      ...Array.from({ length: 12 }, (_, n) => row(n, { priority: n % 3 })),
      ...Array.from({ length: 6 }, (_, n) => row(20 + n, { maxAttempts: 1 })), // their claim is their final attempt
      ...Array.from({ length: 4 }, (_, n) =>
        row(50 + n, { priority: -2, maxAttempts: 1 + (n % 2) }),
      ),
      row(30, { priority: -1, tenantId: 'capped' }),
      row(31, { tenantId: 'free' }),
      row(32, { runAt: START + 1 }), // not due
      row(33, { runAt: START - 70_000 }), // below the low water: the hint hides it
      row(34, { name: 'pg.other' }), // a name the slot does not serve
      row(35, { queue: 'pg-r' }), // another queue
      row(36, { queue: 'pg-paused' }),
    ];
    await Promise.all([full.enqueueMany(rows), woken.enqueueMany(rows)]);
    await Promise.all([
      full.introspect?.pauseQueue('pg-paused'),
      woken.introspect?.pauseQueue('pg-paused'),
    ]);
    // both drivers start their scans at the same bound, as if a claim sent after the enqueues had computed it
    for (const driver of [full, woken]) {
      driver.lowWater.learn('pg-q', START - 60_000, START + 1);
      driver.lowWater.learn('pg-paused', START - 60_000, START + 1);
    }
    const options = (queue: string, limit: number, ahead: number): ClaimOptions => ({
      workerId: 'w',
      slots: [{ queue, limit, ...(ahead > 0 ? { ahead } : {}), names: ['pg.job'] }],
      visibilityTimeoutMs: VT,
      excludeTenants: ['capped'],
    });
    let taken = 0;
    for (const [queue, limit, ahead] of [
      ['pg-paused', 5, 0],
      ['pg-q', 1, 0],
      ['pg-q', 1, 4], // the -2 priority rows first: those on their final attempt only within the limit
      ['pg-q', 2, 3],
      ['pg-q', 0, 4],
      ['pg-q', 3, 1],
      ['pg-q', 5, 10],
      ['pg-q', 5, 10],
    ] as const) {
      const expected = (await full.claimRescuing(options(queue, limit, ahead), {})).claimed;
      const got = await woken.claim(options(queue, limit, ahead));
      expect(shape(got)).toEqual(shape(expected));
      taken += got.length;
      await clock.advance(1);
    }
    expect(counted.woken()).toBe(8);
    // every due, uncapped row of the served name and queue above the low water — the one due at START + 1 once the
    // clock passed it — and nothing else
    expect(taken).toBe(12 + 6 + 4 + 1 + 1);
  });

  it('two workers claiming at once take every row exactly once', async () => {
    const seed = postgresJobDriver({ executor: a.executor });
    await seed.enqueueMany(Array.from({ length: 300 }, () => request()));
    const workers = ['w1', 'w2'].map((workerId) => {
      const counted = counting(a.executor);
      return { workerId, counted, driver: postgresJobDriver({ executor: counted.executor }) };
    });
    const claims = (workerId: string): ClaimOptions => ({
      workerId,
      slots: [{ queue: 'pg-q', limit: 3, ahead: 4, names: ['pg.job'] }],
      visibilityTimeoutMs: VT,
    });
    // both claim at once, round after round (a round's claims race each other; the next waits for both), so neither
    // can drain the backlog before the other's first claim returns, however loaded the machine
    const taken: string[][] = [[], []];
    const done = [false, false];
    while (!done.every(Boolean)) {
      const rounds = await Promise.all(workers.map((w) => w.driver.claim(claims(w.workerId))));
      rounds.forEach((claimed, i) => {
        // the first claim of each driver computes the queue's low water (SQL_CLAIM) and may take none of a backlog
        // the other drained meanwhile: a worker is done only once a woken claim came back empty
        if (claimed.length === 0 && workers[i]!.counted.woken() > 0) done[i] = true;
        taken[i]!.push(...claimed.map((c) => c.id));
      });
    }
    const [one, two] = taken;
    const all = [...(one ?? []), ...(two ?? [])];
    expect(new Set(all).size).toBe(all.length);
    expect(all).toHaveLength(300);
    // both took part, through the woken claim
    expect(one?.length).toBeGreaterThan(0);
    expect(two?.length).toBeGreaterThan(0);
    expect(workers.every((w) => w.counted.woken() > 1)).toBe(true);
  });

  it('settles on its generic plan after 5 custom ones over a table with statistics', async () => {
    // 200,000 finished rows of one name and queue, analyzed: the statistics a busy queue's table has
    await a.executor.query(
      `insert into x_jobs (id, run_id, name, queue, input, idempotency_key, state, attempt, max_attempts, run_at,
         created_at, updated_at, finished_at)
       select gen_random_uuid(), gen_random_uuid(), 'pg.job', 'pg-q', '{}', 'seed:' || g, 'done', 1, 3, now(), now(),
         now(), now()
       from generate_series(1, 200000) g`,
      [],
    );
    await a.executor.query('analyze x_jobs', []);
    // a connection of its own: no statement prepared on it before
    const pool = new Pool({ connectionString: a.url, max: 1 });
    pool.on('error', () => undefined);
    const client: PoolClient = await pool.connect();
    try {
      const driver = postgresJobDriver({ executor: pgPoolExecutor(client, { shared: true }) });
      for (let i = 0; i < 8; i++) {
        await driver.enqueueMany([request(), request()]);
        expect(
          await driver.claim({
            workerId: 'w',
            slots: [{ queue: 'pg-q', limit: 1, ahead: i % 3, names: ['pg.job'] }],
            visibilityTimeoutMs: VT,
          }),
        ).not.toHaveLength(0);
      }
      const { rows } = await client.query<{
        statement: string;
        generic_plans: string;
        custom_plans: string;
      }>('select statement, generic_plans, custom_plans from pg_prepared_statements');
      const woken = rows.find((r) => r.statement.trim() === SQL_CLAIM_WOKEN.trim());
      // the first claim computed the low water (SQL_CLAIM); of the others 5 custom plans, then the generic one kept
      expect(
        woken && { generic: Number(woken.generic_plans), custom: Number(woken.custom_plans) },
      ).toEqual({ generic: 2, custom: 5 });
    } finally {
      client.release();
      await pool.end();
    }
  });
});
