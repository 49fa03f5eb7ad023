import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { frozenClock, outboxRequest } from '@ultimat3/jobs/testing';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresOutboxStore } from './pg-outbox-store';

const db = pgJobsSpec({ emptyBeforeEach: ['x_outbox'] });

describe('postgresOutboxStore guards', () => {
  it('stamps published_at with the store clock, as it stamps the claim', async () => {
    const clock = frozenClock(Date.UTC(2031, 5, 1));
    const store = postgresOutboxStore({ executor: db.executor, clock });
    const request = outboxRequest();
    await store.stage(request);
    const [record] = await store.claim({ claimant: 'relay-a', limit: 1, leaseMs: 30_000 });
    expect(record?.claimedAt).toBe(clock.now());
    await clock.advance(2_000);
    expect(await store.markPublished([request.id], 'relay-a')).toBe(1);
    const { rows } = await db.pool.query<{ published_at: Date }>(
      'select published_at from x_outbox where id = $1',
      [request.id],
    );
    expect(rows[0]?.published_at.getTime()).toBe(clock.now());
  });
});

describe('postgresOutboxStore over a TypeORM query runner', () => {
  let dataSource: DataSource;
  beforeAll(async () => {
    dataSource = new DataSource({ type: 'postgres', url: db.url });
    await dataSource.initialize();
  });
  afterAll(async () => {
    await dataSource?.destroy();
  });

  it('stages on a runner only while its transaction is open: never on its bare connection', async () => {
    const store = postgresOutboxStore({ executor: db.executor });
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      // connected, no transaction: a stage here would commit at once, apart from the caller's writes
      await expect(store.stage(outboxRequest(), runner)).rejects.toMatchObject({
        code: 'X_OUTBOX_NO_TX',
      });
      await runner.startTransaction();
      const kept = outboxRequest();
      await store.stage(kept, runner);
      await runner.commitTransaction();
      await expect(store.stage(outboxRequest(), runner.manager)).rejects.toMatchObject({
        code: 'X_OUTBOX_NO_TX',
      });
      const { rows } = await db.pool.query<{ id: string }>('select id from x_outbox');
      expect(rows.map((r) => r.id)).toEqual([kept.id]);
    } finally {
      await runner.release();
    }
  });
});
