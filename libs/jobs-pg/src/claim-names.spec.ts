import { frozenClock } from '@ultimat3/jobs/testing';
import { JOB_TABLES } from '../test/test-database';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { migrate } from './migrations/migrate';
import { postgresJobDriver } from './driver/pg-driver';
import { SQL_CLAIM } from './sql/claim.sql';

const QUEUE = 'pg-q';
const START = Date.UTC(2026, 0, 1);
const SERVED = 'deploy.old';
const UNSERVED = 'deploy.new';

/** One node of `explain (analyze, buffers, format json)`: the fields read here, and its children. */
interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Index Name'?: string;
  readonly 'Relation Name'?: string;
  readonly 'Index Cond'?: string;
  readonly 'Actual Rows'?: number;
  readonly 'Actual Loops'?: number;
  readonly 'Shared Hit Blocks'?: number;
  readonly 'Shared Read Blocks'?: number;
  readonly Plans?: readonly PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/**
 * Claiming by name on PostgreSQL (`ClaimSlot.names`): one range scan of `x_jobs_claim_name_idx` per served name, so
 * a backlog of a name the worker does not serve is never stepped over, and a claim over several names locks no row
 * it does not take.
 */
describe('claim by name (PostgreSQL)', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });

  /** `count` ready rows of `name`, due `ageMs` before START and 1 ms apart, in one statement. */
  async function fill(name: string, count: number, ageMs: number): Promise<void> {
    await db.pool.query(
      `insert into x_jobs (id, run_id, name, queue, input, idempotency_key, state, max_attempts, run_at,
         created_at, updated_at)
       select gen_random_uuid(), gen_random_uuid(), $1::text, $2::text, '{}', $1::text || ':' || g, 'ready', 3,
         $3::timestamptz + g * interval '1 millisecond', now(), now()
       from generate_series(1, $4::int) g`,
      [name, QUEUE, new Date(START - ageMs), count],
    );
    await db.pool.query('vacuum analyze x_jobs');
  }

  /** The plan of one claim over QUEUE (rolled back), a slot of `limit` serving `names`. */
  async function claimPlan(names: readonly (string | null)[], limit: number): Promise<PlanNode> {
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      const result = await client.query<{ 'QUERY PLAN': readonly { Plan: PlanNode }[] }>(
        `explain (analyze, buffers, format json) ${SQL_CLAIM}`,
        [
          new Date(START),
          'w',
          [QUEUE],
          [limit],
          30_000,
          [],
          [],
          null,
          null,
          null,
          true,
          names.map(() => QUEUE),
          names,
          // $14–$20: no registry beat carried
          ...Array.from({ length: 7 }, () => null),
          // $21: the commit keeps the session's setting (this is the test's own transaction)
          false,
        ],
      );
      return result.rows[0]!['QUERY PLAN'][0]!.Plan;
    } finally {
      await client.query('rollback');
      client.release();
    }
  }

  /** Buffers the scans of `x_jobs_claim_name_idx` touched, and the index conditions they ran with. */
  function claimIndexScans(plan: PlanNode): { buffers: number; conds: string[] } {
    const scans = nodes(plan).filter(
      (node) => node['Index Name'] === 'x_jobs_claim_name_idx' && (node['Actual Loops'] ?? 0) > 0,
    );
    return {
      buffers: scans.reduce(
        (n, node) => n + (node['Shared Hit Blocks'] ?? 0) + (node['Shared Read Blocks'] ?? 0),
        0,
      ),
      conds: scans.map((node) => node['Index Cond'] ?? ''),
    };
  }

  /** Rows the plan's scans of `x_jobs` (any index, or the heap) returned, over all their loops. */
  function jobRowsRead(plan: PlanNode): number {
    return nodes(plan)
      .filter((node) => node['Relation Name'] === 'x_jobs' && /Scan/.test(node['Node Type']))
      .reduce((n, node) => n + (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 0), 0);
  }

  it('migrates the claim index to (queue, name, priority, run_at, id) and drops the one it replaces', async () => {
    await migrate(db.executor, { schema: 'jobs_names' });
    const { rows } = await db.pool.query<{ schema: string; name: string; def: string }>(
      `select schemaname as schema, indexname as name, indexdef as def from pg_indexes
       where tablename = 'x_jobs' and indexname like 'x_jobs_claim%' order by 1`,
    );
    expect(rows.map((r) => [r.schema, r.name])).toEqual([
      ['jobs_names', 'x_jobs_claim_name_idx'],
      ['public', 'x_jobs_claim_name_idx'],
    ]);
    expect(rows[0]?.def).toContain('(queue, name, priority, run_at, id)');
  });

  it('never steps over a backlog of a name it does not serve', async () => {
    // 50,000 rows of the new job, all ahead of the served ones in claim order
    await fill(UNSERVED, 50_000, 3_600_000);
    await fill(SERVED, 100, 60_000);
    const named = claimIndexScans(await claimPlan([SERVED], 10));
    // bounded by (queue, name): the row-value range only the claim index can serve
    expect(named.conds.every((cond) => cond.includes('ROW(queue, name, priority)'))).toBe(true);
    expect(named.buffers).toBeLessThan(20);
    expect(jobRowsRead(await claimPlan([SERVED], 10))).toBeLessThan(50);
    // the same claim taking every name sorts the queue's due rows, whichever scan reads them (PostgreSQL 18 walks the
    // claim index, 15 the heap): the measure can tell the two apart
    expect(jobRowsRead(await claimPlan([null], 10))).toBeGreaterThan(50_000);
  });

  it('locks, over several served names, only the rows it takes', async () => {
    const clock = frozenClock(START);
    const driver = postgresJobDriver({ executor: db.executor, clock });
    await fill(SERVED, 200, 60_000);
    await fill(UNSERVED, 200, 30_000);
    const plan = await claimPlan([SERVED, UNSERVED], 15);
    const locked = nodes(plan)
      .filter((node) => node['Node Type'] === 'LockRows')
      .reduce((n, node) => n + (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1), 0);
    expect(locked).toBe(15);

    const claimed = await driver.claim({
      workerId: 'w',
      visibilityTimeoutMs: 30_000,
      slots: [{ queue: QUEUE, limit: 15, names: [SERVED, UNSERVED] }],
    });
    // the served name's rows are due earlier: all fifteen are its first ones
    expect(claimed.map((row) => row.name)).toEqual(Array(15).fill(SERVED));
    const { rows } = await db.pool.query<{ running: number }>(
      `select count(*)::int as running from x_jobs where state = 'running'`,
    );
    expect(rows[0]?.running).toBe(15);
  });
});
