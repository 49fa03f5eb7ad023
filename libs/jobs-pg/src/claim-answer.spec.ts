import type { ClaimedJob, ClaimOptions, Clock } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { Pool, type PoolClient } from 'pg';
import { request } from '../test/requests';
import { JOB_TABLES } from '../test/test-database';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { postgresJobDriver, type PostgresJobDriver } from './driver/pg-driver';
import type { PgExecutor } from './executor/pg-executor';
import { pgPoolExecutor } from './executor/pg-pool-executor';
import { SQL_CLAIM_WAITING } from './sql/claim-waiting.sql';
import { SQL_CLAIM_WOKEN } from './sql/claim-woken.sql';

const VT = 30_000;
const START = Date.UTC(2026, 0, 1);

/**
 * What the busy claims (`SQL_CLAIM_WOKEN`, `SQL_CLAIM_WAITING`) answer of each row is what they stored — the claim
 * token each row's fence reads, its lease, its update time (the statement-wide times are converted once a statement)
 * — and the token is distinct per row and fresh per claim (it is hashed from one random uuid a statement and the id).
 */
describe('the busy claims answer what they stored (PostgreSQL)', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });

  /** `executor`, counting each busy claim statement sent through it. */
  function counting(executor: PgExecutor): { executor: PgExecutor; sent: Map<string, number> } {
    const sent = new Map<string, number>();
    return {
      sent,
      executor: {
        shared: executor.shared,
        query(text, values) {
          const name =
            text === SQL_CLAIM_WOKEN ? 'woken' : text === SQL_CLAIM_WAITING ? 'waiting' : '';
          if (name !== '') sent.set(name, (sent.get(name) ?? 0) + 1);
          return executor.query(text, values);
        },
      },
    };
  }

  /** A driver whose queues' low water is known (so a claim of one name per queue is a busy one). */
  function busyDriver(clock: Clock | undefined): {
    driver: PostgresJobDriver;
    sent: Map<string, number>;
  } {
    const counted = counting(db.executor);
    const driver = postgresJobDriver({
      executor: counted.executor,
      ...(clock === undefined ? {} : { clock }),
    });
    const now = clock?.now() ?? Date.now();
    for (const queue of ['pg-q', 'pg-r']) driver.lowWater.learn(queue, now - 60_000, now);
    return { driver, sent: counted.sent };
  }

  const slot = (queue: string): ClaimOptions['slots'][number] => ({
    queue,
    limit: 4,
    names: ['pg.job'],
  });

  /** Each claimed row beside the stored one: every field the answer computes, and the stored row's. */
  async function expectStored(
    driver: PostgresJobDriver,
    claimed: readonly ClaimedJob[],
  ): Promise<void> {
    for (const c of claimed) {
      const row = await driver.get(c.id);
      expect(row).toMatchObject({
        state: 'running',
        claim: c.claim,
        workerId: c.workerId,
        leaseExpiresAt: c.leaseExpiresAt,
        updatedAt: c.updatedAt,
        runAt: c.runAt,
        createdAt: c.createdAt,
        finishedAt: c.finishedAt,
      });
    }
    expect(new Set(claimed.map((c) => c.claim)).size).toBe(claimed.length);
  }

  it.each([
    ['woken', 'a driven clock', [slot('pg-q')]],
    ['woken', "the database's clock", [slot('pg-q')]],
    ['waiting', 'a driven clock', [slot('pg-q'), slot('pg-r')]],
    ['waiting', "the database's clock", [slot('pg-q'), slot('pg-r')]],
  ] as const)(
    'the %s claim with %s: each row as stored, a distinct token per row',
    async (statement, clockName, slots) => {
      const clock = clockName === 'a driven clock' ? frozenClock(START) : undefined;
      const { driver, sent } = busyDriver(clock);
      const runAt = (clock?.now() ?? Date.now()) - 1_000;
      await driver.enqueueMany([
        ...Array.from({ length: 4 }, () => request({ runAt })),
        request({ queue: 'pg-r', runAt }),
      ]);
      const claimed = await driver.claim({
        workerId: 'w',
        slots: [...slots],
        visibilityTimeoutMs: VT,
      });
      expect(sent.get(statement)).toBe(1);
      expect(claimed).toHaveLength(slots.length === 1 ? 4 : 5);
      await expectStored(driver, claimed);
      const first = claimed[0] as ClaimedJob;
      expect(first.leaseExpiresAt - first.updatedAt).toBe(VT);
      if (clock !== undefined) expect(first.updatedAt).toBe(START);
    },
  );

  it('a row claimed again carries a fresh token, on the custom plans and on the generic one', async () => {
    // a connection of its own, so every claim runs the one statement prepared on it
    const pool = new Pool({ connectionString: db.url, max: 1 });
    pool.on('error', () => undefined);
    const client: PoolClient = await pool.connect();
    try {
      const driver = postgresJobDriver({
        executor: pgPoolExecutor(client, { shared: true }),
        clock: frozenClock(START),
      });
      driver.lowWater.learn('pg-q', START - 60_000, START);
      await driver.enqueueMany([
        request({ runAt: START - 1_000 }),
        request({ runAt: START - 1_000 }),
      ]);
      const options: ClaimOptions = {
        workerId: 'w',
        slots: [slot('pg-q')],
        visibilityTimeoutMs: VT,
      };
      const seen = new Set<string>();
      for (let i = 0; i < 8; i++) {
        const claimed = await driver.claim(options);
        expect(claimed).toHaveLength(2);
        await expectStored(driver, claimed);
        for (const c of claimed) {
          expect(seen.has(c.claim)).toBe(false);
          seen.add(c.claim);
        }
        // handed back as it was, so the same rows are claimed again
        await client.query(
          `update x_jobs set state = 'ready', worker_id = null, claim = null, lease_expires_at = null`,
        );
      }
      const { rows } = await client.query<{ statement: string; generic_plans: string }>(
        'select statement, generic_plans from pg_prepared_statements',
      );
      const woken = rows.find((r) => r.statement.trim() === SQL_CLAIM_WOKEN.trim());
      // past the 5 custom plans a prepared statement starts with, the claims ran on the generic plan
      expect(Number(woken?.generic_plans)).toBeGreaterThan(0);
    } finally {
      client.release();
      await pool.end();
    }
  });
});
