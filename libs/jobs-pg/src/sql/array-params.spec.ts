import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { postgresJobDriver } from '../driver/pg-driver';

/** Strings an array literal would have to quote or escape, if anyone built one by hand. */
const AWKWARD = [
  'plain',
  '',
  'with,comma',
  '{braces}',
  '"double" quotes',
  "single ' quote",
  'back\\slash',
  'NULL',
  'white space ',
  'ünïcødé ✓',
  'new\nline',
];

describe('array parameters', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });

  it('round-trips a text[] element for element, nulls included', async () => {
    const values = [...AWKWARD, null];
    const { rows } = await db.executor.query<{ a: (string | null)[]; n: number }>(
      'select $1::text[] as a, cardinality($1::text[]) as n',
      [values],
    );
    expect(rows[0]).toEqual({ a: values, n: values.length });
  });

  it('claims from queues whose names need quoting in an array literal, one claim for all of them', async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    const queues = AWKWARD.filter((q) => q !== '');
    const requests = queues.map((queue) => request({ queue }));
    await driver.enqueueMany(requests);
    const claimed = await driver.claim({
      workerId: 'w',
      slots: queues.map((queue) => ({ queue, limit: 5 })),
      visibilityTimeoutMs: 30_000,
    });
    expect(claimed.map((r) => r.queue).sort()).toEqual([...queues].sort());
  });

  it('carries awkward names, keys and tenants through enqueueMany’s arrays unchanged', async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    const requests = AWKWARD.map((text) =>
      request({ name: `job ${text}`, idempotencyKey: text, tenantId: text, traceparent: text }),
    );
    await driver.enqueueMany(requests);
    for (const r of requests) {
      expect(await driver.get(r.id)).toMatchObject({
        name: r.name,
        idempotencyKey: r.idempotencyKey,
        tenantId: r.tenantId,
        traceparent: r.traceparent,
      });
    }
  });
});
