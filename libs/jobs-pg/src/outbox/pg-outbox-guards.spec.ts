import 'reflect-metadata';
import type { PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { frozenClock, outboxRequest } from '@ultimat3/jobs/testing';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresOutboxStore } from './pg-outbox-store';

const db = pgJobsSpec({ emptyBeforeEach: ['x_outbox'] });

/** A `pg` client inside BEGIN is a transaction this store writes on. */
const pgClientTx = (tx: unknown) => pgPoolExecutor(tx as PoolClient);

describe('postgresOutboxStore guards', () => {
  it('stageMany notifies x_outbox_wake on commit only when no committed unclaimed row is waiting', async () => {
    const store = postgresOutboxStore({ executor: db.executor, txExecutor: pgClientTx });
    const listener = await db.pool.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.channel));
    await listener.query('listen x_outbox_wake');
    const stageManyInTx = async (count: number, verb: 'commit' | 'rollback'): Promise<void> => {
      const client = await db.pool.connect();
      await client.query('begin');
      await store.stageMany(
        Array.from({ length: count }, () => outboxRequest()),
        client,
      );
      await client.query(verb);
      client.release();
    };
    const notifications = async (): Promise<number> => {
      await listener.query('select 1'); // a round trip: a notification sent before it has arrived
      return heard.length;
    };
    try {
      await stageManyInTx(2, 'rollback');
      expect(await notifications()).toBe(0);
      await stageManyInTx(3, 'commit');
      expect(await notifications()).toBe(1);
      await stageManyInTx(2, 'commit'); // a committed unclaimed row already waits: no second wake
      expect(await notifications()).toBe(1);
      // everything waiting is claimed (a relay mid-pass, or one that died holding its lease): wake again
      await store.claim({ claimant: 'relay-a', limit: 10, leaseMs: 30_000 });
      await stageManyInTx(1, 'commit');
      expect(await notifications()).toBe(2);
    } finally {
      await listener.query('unlisten *');
      listener.release();
    }
  });

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
