import { crossTenant, job, t } from '@ultimat3/jobs';
import { frozenClock, runJobs } from '@ultimat3/jobs/testing';
import { until } from '../../../test/until';
import { JOB_TABLES } from '../test/test-database';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { postgresJobDriver } from './driver/pg-driver';

const A = '0190a0a0-0000-7000-8000-0000000000a1';
const B = '0190a0a0-0000-7000-8000-0000000000b2';

const invoice = job({
  name: 'pg-tenant.invoice',
  input: t.object({ orgId: t.uuid }),
  idempotencyKey: ({ orgId }) => `invoice:${orgId}`,
  tenant: ({ orgId }) => orgId,
  run: () => Promise.resolve(),
});

const outcome: { refused?: string; crossed?: string } = {};
const settle = job({
  name: 'pg-tenant.settle',
  input: t.object({ orgId: t.uuid }),
  idempotencyKey: ({ orgId }) => `settle:${orgId}`,
  tenant: ({ orgId }) => orgId,
  retry: { attempts: 1 },
  async run() {
    try {
      await invoice.enqueue({ orgId: B });
    } catch (error) {
      outcome.refused = (error as { code?: string }).code;
    }
    outcome.crossed = (
      await crossTenant('partner settlement', () => invoice.enqueue({ orgId: B }))
    ).id;
  },
});

describe('a cross-tenant enqueue on PostgreSQL', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });

  it('is refused outside crossTenant, and inside it stores its reason on the row (get() and the column)', async () => {
    const clock = frozenClock(Date.now());
    const driver = postgresJobDriver({ executor: db.executor, clock });
    const h = await runJobs({ jobs: [settle, invoice], driver, clock });
    try {
      const { id } = await settle.enqueue({ orgId: A });
      await until(async () => (await driver.get(id))?.state === 'done', 5_000);
      expect(outcome.refused).toBe('X_JOB_TENANT_MISMATCH');
      expect(await driver.get(outcome.crossed ?? '')).toMatchObject({
        tenantId: B,
        crossTenantReason: 'partner settlement',
      });
      const { rows } = await db.pool.query(
        'select tenant_id, cross_tenant_reason from x_jobs where id = $1',
        [outcome.crossed],
      );
      expect(rows).toEqual([{ tenant_id: B, cross_tenant_reason: 'partner settlement' }]);
      expect(h.logger.named('jobs.tenant.crossed')).toHaveLength(1);
    } finally {
      await h.close();
    }
  });
});
