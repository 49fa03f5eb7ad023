import type { PoolClient } from 'pg';
import { JOB_TABLES } from '../test/test-database';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { SQL_CLAIM_WAITING } from './sql/claim-waiting.sql';
import { SQL_CLAIM_WOKEN } from './sql/claim-woken.sql';
import { SQL_CLAIM } from './sql/claim.sql';

const QUEUE = 'plan-q';
const NAME = 'plan.job';
const LIMIT = 10;
const AHEAD = 100;

/** One node of `explain (analyze, format json)`: the fields read here, and its children. */
interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly 'Actual Rows'?: number;
  readonly Plans?: readonly PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/**
 * The woken claim's plans (`SQL_CLAIM_WAITING`, and `SQL_CLAIM_WOKEN` for one slot) do not follow the table's
 * statistics into reading a whole backlog: whatever ANALYZE last saw, the waiting scan is the ordered range scan of
 * `x_jobs_claim_name_idx` that stops at `lim + ahead` rows, with no sort under the row locks — in the generic plan a
 * worker's connection settles on and in a custom one.
 */
describe('the woken claim plan (PostgreSQL)', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });

  /** `count` rows of NAME in `state`, due a minute ago and 1 ms apart, in one statement. */
  async function fill(state: string, count: number): Promise<void> {
    await db.pool.query(
      `insert into x_jobs (id, run_id, name, queue, input, idempotency_key, state, attempt, max_attempts, run_at,
         created_at, updated_at, finished_at)
       select gen_random_uuid(), gen_random_uuid(), $1::text, $2::text, '{}', $3::text || ':' || g, $3::text,
         case when $3::text = 'done' then 1 else 0 end, 3,
         now() - interval '1 minute' + g * interval '1 millisecond', now(), now(),
         case when $3::text = 'done' then now() end
       from generate_series(1, $4::int) g`,
      [NAME, QUEUE, state, count],
    );
  }

  /** Each statement a woken claim may run, with its parameters for a claim of NAME from QUEUE with no low water. */
  const WOKEN = {
    SQL_CLAIM_WAITING: {
      text: SQL_CLAIM_WAITING,
      args: `null, 'w', array['${QUEUE}'], array['${NAME}'], array[${LIMIT}], array[${AHEAD}], array[null]::float8[],
        array[]::text[], 30000, false`,
    },
    SQL_CLAIM_WOKEN: {
      text: SQL_CLAIM_WOKEN,
      args: `null, 'w', '${QUEUE}', '${NAME}', ${LIMIT}, ${AHEAD}, null, array[]::text[], 30000, false`,
    },
  };

  /** The claim's plan, executed and rolled back, under `mode` (`plan_cache_mode`) as a prepared statement. */
  async function claimPlan(
    client: PoolClient,
    mode: string,
    statement: keyof typeof WOKEN,
  ): Promise<PlanNode> {
    await client.query('begin');
    try {
      await client.query(`set local plan_cache_mode = ${mode}`);
      await client.query(`prepare woken_claim as ${WOKEN[statement].text}`);
      const result = await client.query<{ 'QUERY PLAN': readonly { Plan: PlanNode }[] }>(
        `explain (analyze, format json) execute woken_claim(${WOKEN[statement].args})`,
      );
      return result.rows[0]!['QUERY PLAN'][0]!.Plan;
    } finally {
      await client.query('rollback');
      await client.query('deallocate all');
    }
  }

  /** `SQL_CLAIM`'s plan for a slot serving NAME (no rescue, no beat), executed and rolled back: a custom plan. */
  async function fullClaimPlan(client: PoolClient): Promise<PlanNode> {
    await client.query('begin');
    try {
      const result = await client.query<{ 'QUERY PLAN': readonly { Plan: PlanNode }[] }>(
        `explain (analyze, format json) ${SQL_CLAIM}`,
        [
          ...[null, 'w', [QUEUE], [LIMIT], 30_000, [], [], [AHEAD], null, null, false],
          ...[[QUEUE], [NAME], ...Array.from({ length: 7 }, () => null), false],
        ],
      );
      return result.rows[0]!['QUERY PLAN'][0]!.Plan;
    } finally {
      await client.query('rollback');
    }
  }

  /** The scan of x_jobs under the row locks that locked rows, and whether a sort sits between it and the locks. */
  function waitingScan(plan: PlanNode): {
    index: string | undefined;
    read: number;
    sorted: boolean;
  } {
    const locks = nodes(plan).filter(
      (node) => node['Node Type'] === 'LockRows' && (node['Actual Rows'] ?? 0) > 0,
    );
    expect(locks).toHaveLength(1);
    const lock = locks[0] as PlanNode;
    const below = nodes(lock).slice(1);
    const scan = below.find((node) => node['Relation Name'] === 'x_jobs');
    return {
      index: scan?.['Index Name'],
      read: scan?.['Actual Rows'] ?? Number.NaN,
      sorted: below.some((node) => node['Node Type'] === 'Sort'),
    };
  }

  it.each([
    ['SQL_CLAIM_WAITING', 'force_generic_plan'],
    ['SQL_CLAIM_WAITING', 'force_custom_plan'],
    ['SQL_CLAIM_WOKEN', 'force_generic_plan'],
    ['SQL_CLAIM_WOKEN', 'force_custom_plan'],
  ] as const)(
    '%s reads only the rows it locks when the statistics say nothing waits (%s)',
    async (statement, mode) => {
      // what ANALYZE sees in a queue between bursts: finished rows, none waiting
      await fill('done', 5_000);
      await db.pool.query('vacuum analyze x_jobs');
      // then a burst the statistics have not seen
      await fill('ready', 1_000);
      const client = await db.pool.connect();
      try {
        const plan = await claimPlan(client, mode, statement);
        const scan = waitingScan(plan);
        expect(scan).toEqual({
          index: 'x_jobs_claim_name_idx',
          read: LIMIT + AHEAD,
          sorted: false,
        });
        const claimed = nodes(plan).find((node) => node['Node Type'] === 'ModifyTable');
        expect(claimed?.['Actual Rows']).toBe(LIMIT + AHEAD);
      } finally {
        client.release();
      }
    },
  );

  it('SQL_CLAIM reads only the rows it locks for a slot of one name when the statistics say nothing waits', async () => {
    await fill('done', 5_000);
    await db.pool.query('vacuum analyze x_jobs');
    await fill('ready', 1_000);
    const client = await db.pool.connect();
    try {
      const scan = waitingScan(await fullClaimPlan(client));
      expect(scan).toEqual({ index: 'x_jobs_claim_name_idx', read: LIMIT + AHEAD, sorted: false });
    } finally {
      client.release();
    }
  });
});
