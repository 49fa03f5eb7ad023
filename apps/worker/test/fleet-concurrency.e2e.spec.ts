import { directJobsFacade, jobLeaseKey, setJobsFacade } from '@ultimat3/jobs';
import { postgresJobDriver } from '@ultimat3/jobs-pg';
import { createTestDatabase, type TestDatabase } from '../../../libs/jobs-pg/test/test-database';
import { PROBE_TABLES, probeCapped, probeKeyed } from './support/probe-jobs';
import { spawnProbeWorker, until, type WorkerProcess } from './support/worker-process';

/** The visibility timeout of every worker here: also the TTL of the fleet lease a run holds. */
const VISIBILITY_MS = 2_000;
const RUNS = 500;

/**
 * Fleet-wide concurrency on PostgreSQL across FOUR worker processes: caps enforced by `x_job_leases` rows every
 * process sees, renewed by the heartbeat and reclaimed by TTL after a SIGKILL.
 */
describe('four worker processes on one PostgreSQL: fleet concurrency', () => {
  let db: TestDatabase;
  let uninstall: () => void;
  let workers: WorkerProcess[] = [];

  beforeAll(async () => {
    db = await createTestDatabase({ migrate: false }); // four processes migrate at once at boot
    await db.pool.query(PROBE_TABLES);
    workers = Array.from({ length: 4 }, () =>
      spawnProbeWorker(db.url, {
        PROBE_VISIBILITY_MS: String(VISIBILITY_MS),
        PROBE_CONCURRENCY: '2',
      }),
    );
    await Promise.all(workers.map((w) => w.ready));
    uninstall = setJobsFacade(
      directJobsFacade({ driver: postgresJobDriver({ executor: db.executor }) }),
    );
  }, 60_000);

  afterAll(async () => {
    uninstall?.();
    const live = workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
    for (const w of live) w.child.kill('SIGTERM');
    const exits = await Promise.all(live.map((w) => w.exited));
    await db?.drop();
    expect(exits.every((e) => e.code === 0)).toBe(true);
  }, 60_000);

  const state = async (id: string) => {
    const { rows } = await db.pool.query<{ state: string; last_error: string | null }>(
      'select state, last_error from x_jobs where id = $1',
      [id],
    );
    return rows[0];
  };
  const settled = (id: string, expected: string) =>
    until(`job ${id} ${expected}`, async () => {
      const row = await state(id);
      return row?.state === expected ? row : undefined;
    });
  const startedOn = (n: number) =>
    until(`run ${n} to start`, async () => {
      const { rows } = await db.pool.query<{ pid: number }>(
        `select pid from probe_runs where kind = 'keyed' and n = $1`,
        [n],
      );
      return rows[0]?.pid;
    });

  it(`concurrency: 2 — ${RUNS} runs, never more than 2 in flight at once, all done`, async () => {
    for (let from = 0; from < RUNS; from += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, i) => probeCapped.enqueue({ n: from + i })));
    }
    await until(
      `${RUNS} capped runs done`,
      async () => {
        const { rows } = await db.pool.query<{ n: number }>(
          `select count(*)::int as n from x_jobs where name = 'probe.capped' and state = 'done'`,
        );
        return rows[0]?.n === RUNS ? true : undefined;
      },
      50_000,
    );
    const { rows } = await db.pool.query<{
      runs: number;
      jobs: number;
      pids: number;
      max: number;
    }>(`
      select count(*)::int as runs, count(distinct s.job_id)::int as jobs, count(distinct s.pid)::int as pids,
        max((select count(*) from probe_runs o
             where o.kind = 'capped' and o.started_at <= s.started_at and o.ended_at > s.started_at))::int as max
      from probe_runs s where s.kind = 'capped'`);
    const probe = rows[0]!;
    expect(probe).toMatchObject({ runs: RUNS, jobs: RUNS });
    expect(probe.max).toBeLessThanOrEqual(2);
    expect(probe.max).toBe(2); // the cap was reached, not merely respected by luck
    expect(probe.pids).toBeGreaterThan(1);
  }, 60_000);

  it("{ key, limit: 1, whenBusy: 'fail' } refuses a second run of a held key, body never run; it runs once freed", async () => {
    const first = await probeKeyed.enqueue({ account: 'acct-1', n: 1 });
    await startedOn(1);
    const second = await probeKeyed.enqueue({ account: 'acct-1', n: 2 });
    const refused = await settled(second.id, 'failed');
    expect(refused.last_error).toContain('X_JOB_KEY_BUSY');
    expect(await state(first.id)).toMatchObject({ state: 'running' });

    await db.pool.query('insert into probe_release (n) values (1), (3)');
    await settled(first.id, 'done');
    const third = await probeKeyed.enqueue({ account: 'acct-1', n: 3 });
    await settled(third.id, 'done');
    const { rows } = await db.pool.query<{ n: number }>(
      `select n from probe_runs where kind = 'keyed' and n in (1, 2, 3) order by n`,
    );
    expect(rows.map((r) => r.n)).toEqual([1, 3]);
  });

  it('SIGKILL the holder: the key frees after the lease TTL with no cleanup call', async () => {
    const key = jobLeaseKey(probeKeyed.name, 'acct-2');
    const held = await probeKeyed.enqueue({ account: 'acct-2', n: 10 });
    const pid = await startedOn(10);
    const holder = workers.find((w) => w.pid === pid)!;
    holder.child.kill('SIGKILL');
    await holder.exited;

    // nobody cleans up after a SIGKILL: the dead process's slot row is still there, live for at most one TTL
    const { rows } = await db.pool.query<{ holder: string; left_ms: number }>(
      `select holder, (extract(epoch from (expires_at - now())) * 1000)::float8 as left_ms
       from x_job_leases where key = $1`,
      [key],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.holder).toBe(held.id);
    expect(rows[0]!.left_ms).toBeLessThanOrEqual(VISIBILITY_MS);
    const live = async (): Promise<number> => {
      const { rows: held } = await db.pool.query<{ n: number }>(
        'select count(*)::int as n from x_job_leases where key = $1 and expires_at > now()',
        [key],
      );
      return held[0]?.n ?? 0;
    };
    await until('the key to free', async () => ((await live()) === 0 ? true : undefined), 10_000);

    // the survivors take the key: a new run for it runs, with no cleanup call made
    await db.pool.query('insert into probe_release (n) values (10), (11)');
    const next = await probeKeyed.enqueue({ account: 'acct-2', n: 11 });
    await settled(next.id, 'done');
    // the killed run's final attempt lapsed: buried by a survivor's rescue (idle claims rescue at most once a second,
    // so it may come after the next run's claim), never run twice at once
    const buried = await until(
      `job ${held.id} buried`,
      async () => {
        const now = (await state(held.id))?.state;
        return now === 'dead' || now === 'done' ? now : undefined;
      },
      10_000,
    );
    expect(buried).toMatch(/^(dead|done)$/);
  });
});
