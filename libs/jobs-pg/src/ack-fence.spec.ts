import { randomUUID } from 'node:crypto';
import { claimOf, type AckManyItem, type ClaimedJob } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { Pool } from 'pg';
import { request } from '../test/requests';
import { JOB_TABLES } from '../test/test-database';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import type { PgExecutor } from './executor/pg-executor';
import { pgPoolExecutor } from './executor/pg-pool-executor';
import { postgresJobDriver } from './driver/pg-driver';
import { SQL_ACK } from './sql/ack.sql';

/**
 * `SQL_ACK` fences each row on its own claim by looking its id up in a jsonb object (id → claim). The worker sends it
 * prepared, so after five executions PostgreSQL may run it on a generic plan: the fence must hold the same on both
 * plan shapes, whatever the batch holds.
 */
describe('PostgreSQL ack fence: each row on its own claim, on the custom and the generic plan', () => {
  const pools: Pool[] = [];
  const db = pgJobsSpec({
    emptyBeforeEach: JOB_TABLES,
    beforeDrop: async () => {
      await Promise.all(pools.map((pool) => pool.end()));
    },
  });
  const clock = frozenClock(Date.now());

  /** A driver over one connection whose every prepared statement runs on the plan `mode` names. */
  function driverPlanned(mode: 'force_custom_plan' | 'force_generic_plan') {
    const pool = new Pool({
      connectionString: db.url,
      max: 1,
      options: `-c plan_cache_mode=${mode}`,
    });
    pools.push(pool);
    return postgresJobDriver({ executor: pgPoolExecutor(pool), clock });
  }

  it.each(['force_custom_plan', 'force_generic_plan'] as const)(
    '%s: a batch with claims swapped or stale lands only the items naming their own claim',
    async (mode) => {
      const driver = driverPlanned(mode);
      // enough statements for the generic plan to be the one in use, whatever the mode
      for (let round = 0; round < 7; round++) {
        await driver.enqueueMany(Array.from({ length: 6 }, () => request({ runAt: clock.now() })));
        const rows: readonly ClaimedJob[] = await driver.claim({
          workerId: 'w',
          slots: [{ queue: 'pg-q', limit: 6 }],
          visibilityTimeoutMs: 30_000,
        });
        expect(rows).toHaveLength(6);
        const row = (i: number): ClaimedJob => rows[i] as ClaimedJob;
        const items: AckManyItem[] = [
          { jobId: row(0).id, ...claimOf(row(0)), claim: row(1).claim }, // another item's claim
          { jobId: row(1).id, ...claimOf(row(1)), claim: row(0).claim }, // and the other way round
          { jobId: row(2).id, ...claimOf(row(2)) },
          { jobId: row(3).id, ...claimOf(row(3)), claim: row(3).claim.toUpperCase() }, // its own, upper case
          { jobId: row(4).id, ...claimOf(row(4)), claim: randomUUID() }, // a stale claim
          { jobId: row(5).id.toUpperCase(), ...claimOf(row(5)) }, // its own, the id in upper case
        ];
        expect(await driver.ackMany!(items)).toEqual([false, false, true, true, false, true]);
        const states = await Promise.all(rows.map(async (r) => (await driver.get(r.id))?.state));
        expect(states).toEqual(['running', 'running', 'done', 'done', 'running', 'done']);
        // the rows left running settle with their own claims, the settled ones do not settle twice
        expect(await driver.ackMany!(rows.map((r) => ({ jobId: r.id, ...claimOf(r) })))).toEqual([
          true,
          true,
          false,
          false,
          true,
          false,
        ]);
      }
    },
  );

  it.each(['force_custom_plan', 'force_generic_plan'] as const)(
    '%s: a batch of one (SQL_ACK_ONE) lands only with its own claim and worker',
    async (mode) => {
      const driver = driverPlanned(mode);
      for (let round = 0; round < 7; round++) {
        await driver.enqueue(request({ runAt: clock.now() }));
        const [row] = await driver.claim({
          workerId: 'w',
          slots: [{ queue: 'pg-q', limit: 1 }],
          visibilityTimeoutMs: 30_000,
        });
        if (row === undefined) throw new Error('nothing claimed');
        const own = { jobId: row.id, ...claimOf(row) };
        expect(await driver.ackMany!([{ ...own, claim: randomUUID() }])).toEqual([false]);
        expect(await driver.ackMany!([{ ...own, workerId: 'other' }])).toEqual([false]);
        expect(await driver.ack(row.id, { ...claimOf(row), claim: randomUUID() })).toBe(false);
        expect((await driver.get(row.id))?.state).toBe('running');
        const upper = {
          jobId: row.id.toUpperCase(),
          ...claimOf(row),
          claim: row.claim.toUpperCase(),
        };
        expect(await driver.ackMany!([upper])).toEqual([true]);
        expect((await driver.get(row.id))?.state).toBe('done');
        expect(await driver.ack(row.id, claimOf(row))).toBe(false);
      }
    },
  );

  it("sends a batch's ids as a binary uuid[], which lands each row and answers the ones that did not land", async () => {
    const sent: unknown[][] = [];
    const executor: PgExecutor = {
      shared: true,
      query(text, values) {
        if (text === SQL_ACK) sent.push([...values]);
        return db.executor.query(text, values);
      },
    };
    const driver = postgresJobDriver({ executor, clock });
    await driver.enqueueMany(Array.from({ length: 3 }, () => request({ runAt: clock.now() })));
    const rows = await driver.claim({
      workerId: 'w',
      slots: [{ queue: 'pg-q', limit: 3 }],
      visibilityTimeoutMs: 30_000,
    });
    expect(rows).toHaveLength(3);
    const items = rows.map((r, i) => ({
      jobId: i === 2 ? r.id.toUpperCase() : r.id,
      ...claimOf(r),
      claim: i === 1 ? randomUUID() : r.claim,
    }));
    expect(await driver.ackMany!(items)).toEqual([true, false, true]);
    const ids = sent[0]?.[1];
    expect(Buffer.isBuffer(ids)).toBe(true);
    // one dimension of 3 elements, each its 4-byte length and its 16 bytes, in the order of the batch
    const bytes = ids as Buffer;
    expect(bytes.readInt32BE(12)).toBe(3);
    expect([0, 1, 2].map((i) => bytes.subarray(24 + i * 20, 40 + i * 20).toString('hex'))).toEqual(
      rows.map((r) => r.id.replaceAll('-', '')),
    );
  });
});
