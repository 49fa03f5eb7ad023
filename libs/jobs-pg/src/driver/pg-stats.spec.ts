import { SQL_STATS } from '../sql/stats.sql';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { postgresJobDriver } from './pg-driver';

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly Plans?: readonly PlanNode[];
}

function scansOf(node: PlanNode, out: string[] = []): string[] {
  if (node['Relation Name'] === 'x_jobs') out.push(node['Node Type']);
  for (const child of node.Plans ?? []) scansOf(child, out);
  return out;
}

describe('postgres stats over a table of finished rows', () => {
  const db = pgJobsSpec();
  beforeAll(async () => {
    // 150,000 done rows (~40 MB of heap) in two queues, written in one statement: what a busy week leaves behind
    await db.pool.query(`
      insert into x_jobs (id, run_id, name, queue, input, idempotency_key, state, attempt, max_attempts, run_at,
        created_at, updated_at, finished_at)
      select gen_random_uuid(), gen_random_uuid(), 'old.job', case when g % 3 = 0 then 'b' else 'a' end,
        jsonb_build_object('n', g, 'pad', repeat('x', 100)), 'k' || g, 'done', 1, 3, now(), now(), now(), now()
      from generate_series(1, 150000) g`);
    const driver = postgresJobDriver({ executor: db.executor });
    for (let i = 0; i < 3; i++) await driver.enqueue(request({ queue: 'a' }));
    await driver.enqueue(request({ queue: 'b', runAt: Date.now() + 60_000 }));
    await db.pool.query('vacuum analyze x_jobs');
  });

  it('reads live states exactly and estimates done rows from a bounded sample', async () => {
    const stats = await postgresJobDriver({ executor: db.executor }).stats();
    const a = stats.find((s) => s.queue === 'a');
    const b = stats.find((s) => s.queue === 'b');
    expect(a).toMatchObject({ ready: 3, delayed: 0, running: 0, dead: 0, failed: 0 });
    expect(b).toMatchObject({ ready: 0, delayed: 1 });
    // 100,000 and 50,000 done rows, estimated from ~1,000 of ~5,000 pages
    expect(a?.done).toBeGreaterThan(80_000);
    expect(a?.done).toBeLessThan(120_000);
    expect(b?.done).toBeGreaterThan(40_000);
    expect(b?.done).toBeLessThan(60_000);
  });

  it('never scans the whole table: live states through the partial indexes, finished ones through a sample', async () => {
    const { rows } = await db.pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `explain (format json) ${SQL_STATS}`,
      [null],
    );
    const scans = scansOf(rows[0]!['QUERY PLAN'][0].Plan);
    expect(scans).toContain('Sample Scan');
    expect(scans).not.toContain('Seq Scan');
  });
});
