import { frozenClock } from '@ultimat3/jobs/testing';
import type { JobRow } from '@ultimat3/jobs';
import { postgresJobDriver } from '../driver/pg-driver';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { JOBS_MIGRATIONS } from './all-migrations';
import { EVERY_STATE, populateJobsSql } from '../../test/populate-jobs';

const LIVE_INDEX = 'x_jobs_name_tenant_idempotency_live_idx';

const POPULATE = populateJobsSql({ tenants: true });

interface Stored {
  readonly id: string;
  readonly name: string;
  readonly queue: string;
  readonly tenant_id: string | null;
  readonly idempotency_key: string;
}

describe('migration 0017: the live-key index leads with the idempotency key', () => {
  // the schema as migrations 1 … 16 left it, so 0017 is applied to a populated table here
  const db = pgJobsSpec({ migrate: false });
  const clock = frozenClock(Date.UTC(2026, 0, 1, 0, 30));
  const m0017 = JOBS_MIGRATIONS.find((m) => m.id === 17);
  const pagesBefore: (readonly JobRow[])[] = [];

  const driver = (): ReturnType<typeof postgresJobDriver> =>
    postgresJobDriver({ executor: db.executor, clock });
  const storedIn = async (state: string, tenant: 'with' | 'without'): Promise<Stored> => {
    const { rows } = await db.pool.query<Stored>(
      `select id, name, queue, tenant_id, idempotency_key from x_jobs
       where state = $1 and (tenant_id is null) = $2 order by id limit 1`,
      [state, tenant === 'without'],
    );
    if (rows[0] === undefined) throw new Error(`no ${state} row ${tenant} a tenant`);
    return rows[0];
  };
  /** Every page of 200 of queue m-a, newest first, through the `before` cursor. */
  const pages = async (): Promise<(readonly JobRow[])[]> => {
    const out: (readonly JobRow[])[] = [];
    for (let before: string | undefined; ;) {
      const page = await driver().introspect.list({ queue: 'm-a', limit: 200, before });
      if (page.length === 0) return out;
      out.push(page);
      before = page[page.length - 1]?.id;
    }
  };

  beforeAll(async () => {
    for (const migration of JOBS_MIGRATIONS.filter((m) => m.id < 17))
      await db.pool.query(migration.sql);
    await db.pool.query(POPULATE, [4_000, 'k', EVERY_STATE]);
    pagesBefore.push(...(await pages()));
    await db.pool.query(m0017?.sql ?? 'select 1/0');
  });

  it('rebuilds the index over a populated table under its name; list pages and prepared statements are unchanged', async () => {
    const { rows: defs } = await db.pool.query<{ indexdef: string }>(
      `select indexdef from pg_indexes where tablename = 'x_jobs' and indexname = $1`,
      [LIVE_INDEX],
    );
    expect(defs.map((r) => r.indexdef)).toEqual([
      `CREATE UNIQUE INDEX ${LIVE_INDEX} ON public.x_jobs USING btree (idempotency_key, name, COALESCE(tenant_id, ''::text)) WHERE (state = ANY (ARRAY['ready'::text, 'delayed'::text, 'running'::text, 'suspended'::text]))`,
    ]);
    const { rows: temporary } = await db.pool.query(
      `select 1 from pg_indexes where indexname = 'x_jobs_key_name_tenant_live_idx'`,
    );
    expect(temporary).toEqual([]);
    // the pool's connections prepared the list statements before the migration and run them again after it
    expect(pagesBefore.length).toBeGreaterThan(3);
    expect(await pages()).toEqual(pagesBefore);
  });

  it('dedupes to a stored live key, per tenant, and not to a finished one: one by one and in a batch', async () => {
    const live = await storedIn('ready', 'without');
    const tenanted = await storedIn('ready', 'with');
    const done = await storedIn('done', 'without');
    const one = driver();
    const of = (row: Stored, tenantId: string | null): ReturnType<typeof request> =>
      request({ name: row.name, queue: row.queue, idempotencyKey: row.idempotency_key, tenantId });

    const held = await one.enqueue(of(live, null));
    expect(held).toMatchObject({ id: live.id, deduped: true });
    expect(await one.enqueue(of(tenanted, 't1'))).toMatchObject({ id: tenanted.id, deduped: true });
    // the same key under another tenant, or once its holder finished, is free
    expect((await one.enqueue(of(live, 't2'))).deduped).toBe(false);
    expect((await one.enqueue(of(done, null))).deduped).toBe(false);

    const fresh = request({ name: 'm.odd', queue: 'm-a', idempotencyKey: 'k-batch-fresh' });
    const results = await one.enqueueMany([
      of(tenanted, 't1'),
      fresh,
      request({ name: 'm.odd', queue: 'm-a', idempotencyKey: 'k-batch-fresh' }),
      of(live, null),
    ]);
    expect(results.map((r) => [r.id, r.deduped])).toEqual([
      [tenanted.id, true],
      [fresh.id, false],
      [fresh.id, true],
      [live.id, true],
    ]);
  });

  it('tells apart keys differing only in case, accent or composition, and dedupes each', async () => {
    const one = driver();
    const keys = ['clé', 'cle', 'CLÉ', 'cle\u0301', 'straße', 'strasse'];
    const first = await one.enqueueMany(keys.map((idempotencyKey) => request({ idempotencyKey })));
    expect(first.map((r) => r.deduped)).toEqual(keys.map(() => false));
    const again = await one.enqueueMany(keys.map((idempotencyKey) => request({ idempotencyKey })));
    expect(again.map((r) => [r.id, r.deduped])).toEqual(first.map((r) => [r.id, true]));
  });

  it('is the index a live key violates and the one a key probe reads', async () => {
    // a row stored before the migration: the rebuilt index holds it
    const live = await storedIn('delayed', 'without');
    const copy = `insert into x_jobs (id, run_id, name, queue, input, idempotency_key, tenant_id, state, attempt,
        max_attempts, priority, run_at, created_at, updated_at)
      select gen_random_uuid(), gen_random_uuid(), name, queue, input, idempotency_key, tenant_id, 'ready', 0, 3, 0,
        run_at, created_at, updated_at
      from x_jobs where id = $1`;
    await expect(db.pool.query(copy, [live.id])).rejects.toMatchObject({
      code: '23505',
      constraint: LIVE_INDEX,
    });

    const client = await db.pool.connect();
    try {
      await client.query('begin');
      await client.query('set local enable_seqscan = off');
      await client.query('set local enable_bitmapscan = off');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        `explain select id from x_jobs where name = $1::text and coalesce(tenant_id, '') = ''
           and idempotency_key = $2::text and state in ('ready', 'delayed', 'running', 'suspended')`,
        [live.name, live.idempotency_key],
      );
      await client.query('rollback');
      expect(rows.map((r) => r['QUERY PLAN']).join('\n')).toContain(
        `Index Scan using ${LIVE_INDEX}`,
      );
    } finally {
      client.release();
    }
  });
});
