import { frozenClock } from '@ultimat3/jobs/testing';
import { postgresJobDriver } from '../driver/pg-driver';
import { SQL_STATS } from '../sql/stats.sql';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { JOBS_MIGRATIONS } from './all-migrations';
import { EVERY_STATE, populateJobsSql } from '../../test/populate-jobs';

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Index Name'?: string;
  readonly 'Actual Rows'?: number;
  readonly Plans?: readonly PlanNode[];
}

/** Every node of a plan, depth first. */
function nodesOf(node: PlanNode, out: PlanNode[] = []): PlanNode[] {
  out.push(node);
  for (const child of node.Plans ?? []) nodesOf(child, out);
  return out;
}

const POPULATE = populateJobsSql({ tenants: false });

const indexesOf = async (db: ReturnType<typeof pgJobsSpec>): Promise<Map<string, string>> => {
  const { rows } = await db.pool.query<{ indexname: string; indexdef: string }>(
    `select indexname, indexdef from pg_indexes where tablename = 'x_jobs'`,
  );
  return new Map(rows.map((r) => [r.indexname, r.indexdef]));
};

describe('migration 0014: the claim index carries state; the waiting-count index goes', () => {
  // the schema as migrations 1 … 13 left it, so 0014 is applied to a populated table here
  const db = pgJobsSpec({ migrate: false });
  const clock = frozenClock(Date.UTC(2026, 0, 1, 0, 30));
  const before = JOBS_MIGRATIONS.filter((m) => m.id < 14);
  const m0014 = JOBS_MIGRATIONS.find((m) => m.id === 14);

  beforeAll(async () => {
    for (const migration of before) await db.pool.query(migration.sql);
    await db.pool.query(POPULATE, [4_000, 'a', EVERY_STATE]);
  });

  it('answers the same stats and claims the same rows once applied to a populated table', async () => {
    const driver = postgresJobDriver({ executor: db.executor, clock });
    const old = await indexesOf(db);
    expect(old.has('x_jobs_waiting_count_idx')).toBe(true);
    expect(old.get('x_jobs_claim_name_idx')).not.toContain('INCLUDE');
    const statsBefore = await driver.stats();
    expect(statsBefore.find((s) => s.queue === 'm-a')?.ready).toBeGreaterThan(0);

    await db.pool.query(m0014?.sql ?? 'select 1/0');

    const now = await indexesOf(db);
    expect(now.has('x_jobs_waiting_count_idx')).toBe(false);
    expect(now.has('x_jobs_claim_name_state_idx')).toBe(false);
    expect(now.get('x_jobs_claim_name_idx')).toBe(
      `CREATE INDEX x_jobs_claim_name_idx ON public.x_jobs USING btree (queue, name, priority, run_at, id) INCLUDE (state) WHERE (state = ANY (ARRAY['ready'::text, 'delayed'::text, 'suspended'::text]))`,
    );
    expect(await driver.stats()).toEqual(statsBefore);

    // a row enqueued after it lands in the new index: the claim takes it first (priority -5 beats the stored 0 … 4)
    const { id } = await driver.enqueue(
      request({ queue: 'm-a', name: 'm.odd', priority: -5, runAt: clock.now() }),
    );
    const claimed = await driver.claim({
      workerId: 'w-0014',
      slots: [{ queue: 'm-a', limit: 1, names: ['m.odd'] }],
      visibilityTimeoutMs: 60_000,
    });
    expect(claimed.map((row) => row.id)).toEqual([id]);
  });

  it('holds every column the stats read counts waiting rows by: an index-only scan of it answers them', async () => {
    // what a busy queue table holds: mostly finished rows
    await db.pool.query(POPULATE, [
      20_000,
      'b',
      ['done', 'done', 'ready', 'done', 'delayed', 'dead', 'suspended'],
    ]);
    // the test server commits asynchronously, and vacuum marks a page all-visible only once the commits of its rows
    // are flushed (one synchronous commit flushes every commit before it) and no snapshot (an autovacuum's analyze)
    // is older than them
    await db.pool.query('alter table x_jobs set (autovacuum_enabled = false)');
    await db.pool.query('begin; set local synchronous_commit = on; select txid_current(); commit;');
    await db.pool.query('vacuum analyze x_jobs');
    const client = await db.pool.connect();
    try {
      // the scans the planner could take instead of an index, priced out
      await client.query('begin');
      await client.query('set local enable_seqscan = off');
      await client.query('set local enable_bitmapscan = off');
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `explain (analyze, format json) ${SQL_STATS}`,
        [new Date(clock.now()).toISOString()],
      );
      await client.query('rollback');
      const scans = nodesOf(rows[0]!['QUERY PLAN'][0].Plan).filter(
        (node) => node['Index Name'] === 'x_jobs_claim_name_idx',
      );
      expect(scans.map((node) => node['Node Type'])).toEqual(['Index Only Scan']);
      const { rows: waiting } = await db.pool.query<{ n: number }>(
        `select count(*)::int as n from x_jobs where state in ('ready', 'delayed', 'suspended')`,
      );
      expect(scans[0]?.['Actual Rows']).toBe(waiting[0]?.n);
    } finally {
      client.release();
    }
  });
});
