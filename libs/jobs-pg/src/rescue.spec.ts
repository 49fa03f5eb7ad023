import { SQL_CLAIM } from './sql/claim.sql';
import { request } from '../test/requests';
import { JOB_TABLES } from '../test/test-database';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { frozenClock } from '@ultimat3/jobs/testing';
import { postgresJobDriver } from './driver/pg-driver';

const QUEUE = 'pg-q';
const START = Date.UTC(2026, 0, 1);

/** One node of `explain (format json)`: the fields read here, and its children. */
interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Index Name'?: string;
  readonly 'Actual Loops'?: number;
  readonly Plans?: readonly PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/**
 * A claim without rescue (`driver.claim`, not `claimRescuing`) on PostgreSQL: SQL_CLAIM's two rescue arms sit under a one-time filter on `$11`, so
 * the lease index (every dead entry a held snapshot keeps in it) is not even opened.
 */
describe('claim without rescue (PostgreSQL, driven clock)', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });

  /** Lease-index scans of the claim's plan at `rescue`, with how often each ran, for a generic and a custom plan. */
  async function leaseScans(rescue: boolean, mode: 'force_generic_plan' | 'force_custom_plan') {
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      await client.query(`set local plan_cache_mode = ${mode}`);
      await client.query(`prepare rescue_claim as ${SQL_CLAIM}`);
      const params = [
        `'${new Date(START + 60_000).toISOString()}'`,
        `'w'`,
        `array['${QUEUE}']`,
        'array[10]',
        '30000',
        'array[]::text[]',
        'array[]::text[]',
        'null',
        'null',
        'null',
        String(rescue),
        // $12, $13: the slot takes every name
        `array['${QUEUE}']`,
        'array[null]::text[]',
        // $14–$20: no registry beat carried
        'null',
        'null',
        'null',
        'null',
        'null',
        'null',
        'null',
        // $21: the commit keeps the session's setting (this is the test's own transaction)
        'false',
      ];
      const result = await client.query<{ 'QUERY PLAN': readonly { Plan: PlanNode }[] }>(
        `explain (analyze, format json) execute rescue_claim(${params.join(', ')})`,
      );
      return nodes(result.rows[0]!['QUERY PLAN'][0]!.Plan)
        .filter((node) => node['Index Name'] === 'x_jobs_lease_idx')
        .map((node) => node['Actual Loops'] ?? 0);
    } finally {
      await client.query('rollback');
      await client.query('deallocate rescue_claim');
      client.release();
    }
  }

  it.each(['force_generic_plan', 'force_custom_plan'] as const)(
    'reads no entry of the lease index with rescue false (%s)',
    async (mode) => {
      const clock = frozenClock(START);
      const driver = postgresJobDriver({ executor: db.executor, clock });
      await driver.enqueueMany(
        Array.from({ length: 20 }, (_, n) =>
          request({ runAt: START - 1_000, maxAttempts: n % 2 === 0 ? 1 : 3 }),
        ),
      );
      expect(
        await driver.claim({
          workerId: 'dead',
          slots: [{ queue: QUEUE, limit: 20 }],
          visibilityTimeoutMs: 1_000,
        }),
      ).toHaveLength(20);
      // every lease has lapsed at the claim's now (START + 60 s): a rescuing claim walks the lease index
      const rescuing = await leaseScans(true, mode);
      expect(rescuing.length).toBeGreaterThan(0);
      expect(Math.max(...rescuing)).toBeGreaterThan(0);
      const skipping = await leaseScans(false, mode);
      expect(skipping.every((loops) => loops === 0)).toBe(true);
    },
  );
});
