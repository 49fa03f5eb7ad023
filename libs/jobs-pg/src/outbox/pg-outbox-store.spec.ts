import type { PoolClient } from 'pg';
import { MAX_FREE_TEXT_LENGTH } from '@ultimat3/jobs';
import { frozenClock, outboxRequest, outboxStoreConformance } from '@ultimat3/jobs/testing';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { migrate } from '../migrations/migrate';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresOutboxStore } from './pg-outbox-store';

const db = pgJobsSpec();

/** A `pg` client inside BEGIN is a transaction this store writes on. */
const pgClientTx = (tx: unknown) => pgPoolExecutor(tx as PoolClient);

outboxStoreConformance('postgres', async (clock) => {
  await db.pool.query('delete from x_outbox');
  const store = postgresOutboxStore({ executor: db.executor, txExecutor: pgClientTx, clock });
  const clients: PoolClient[] = [];
  return {
    store,
    async begin() {
      const client = await db.pool.connect();
      clients.push(client);
      await client.query('begin');
      const end = async (verb: 'commit' | 'rollback'): Promise<void> => {
        await client.query(verb);
        client.release();
        clients.splice(clients.indexOf(client), 1);
      };
      return { tx: client, commit: () => end('commit'), rollback: () => end('rollback') };
    },
    async close() {
      for (const client of clients.splice(0)) {
        await client.query('rollback');
        client.release();
      }
    },
  };
});

describe('postgresOutboxStore', () => {
  beforeEach(async () => {
    await db.pool.query('delete from x_outbox');
  });

  it('keeps a published row as the audit trail, stamped with who published it', async () => {
    const store = postgresOutboxStore({ executor: db.executor });
    const request = outboxRequest();
    await store.stage(request);
    const [record] = await store.claim({ claimant: 'relay-a', limit: 10, leaseMs: 30_000 });
    expect(await store.markPublished([record!.id], 'relay-a')).toBe(1);
    expect(await store.retained()).toBe(0);
    const { rows } = await db.pool.query(
      'select id, run_id, name, queue, claimed_by, published_at, tx_id is not null as has_tx from x_outbox',
    );
    expect(rows).toEqual([
      {
        id: request.id,
        run_id: request.runId,
        name: request.name,
        queue: request.queue,
        claimed_by: 'relay-a',
        published_at: expect.any(Date),
        has_tx: true,
      },
    ]);
  });

  it("stores a released batch's failure bounded: 5 MB with NUL and lone surrogates is 8,192 readable characters", async () => {
    const store = postgresOutboxStore({ executor: db.executor });
    const request = outboxRequest();
    await store.stage(request);
    await store.claim({ claimant: 'relay-a', limit: 10, leaseMs: 30_000 });
    const error = `boom \u0000\ud800 ${'z'.repeat(5 * 1024 * 1024)}`;
    expect(await store.release([request.id], 'relay-a', { id: request.id, error })).toBe(1);
    const { rows } = await db.pool.query<{ attempts: number; last_error: string }>(
      'select attempts, last_error from x_outbox',
    );
    expect(rows[0]?.attempts).toBe(1);
    expect(rows[0]?.last_error).toHaveLength(MAX_FREE_TEXT_LENGTH);
    expect(rows[0]?.last_error).toMatch(/^boom \ufffd\ufffd z+… \[truncated \d+ chars\]$/);
  });

  it('refuses a tx its txExecutor cannot write on (X_OUTBOX_NO_TX), staging nothing', async () => {
    const store = postgresOutboxStore({ executor: db.executor });
    for (const tx of [{}, 'tx', { queryRunner: undefined }]) {
      await expect(store.stage(outboxRequest(), tx)).rejects.toMatchObject({
        code: 'X_OUTBOX_NO_TX',
      });
    }
    expect(await store.retained()).toBe(0);
  });

  it.each(['stage', 'stageMany'] as const)(
    '%s notifies x_outbox_wake on commit only when no committed unclaimed row is waiting',
    async (write) => {
      const store = postgresOutboxStore({ executor: db.executor, txExecutor: pgClientTx });
      const listener = await db.pool.connect();
      const heard: string[] = [];
      listener.on('notification', (n) => heard.push(n.channel));
      await listener.query('listen x_outbox_wake');
      const stageInTx = async (count: number, verb: 'commit' | 'rollback'): Promise<void> => {
        const client = await db.pool.connect();
        await client.query('begin');
        const requests = Array.from({ length: count }, () => outboxRequest());
        if (write === 'stageMany') await store.stageMany(requests, client);
        else for (const request of requests) await store.stage(request, client);
        await client.query(verb);
        client.release();
      };
      const notifications = async (): Promise<number> => {
        await listener.query('select 1'); // a round trip: a notification sent before it has arrived
        return heard.length;
      };
      try {
        await stageInTx(2, 'rollback');
        expect(await notifications()).toBe(0);
        await stageInTx(3, 'commit');
        expect(await notifications()).toBe(1);
        await stageInTx(1, 'commit'); // a committed unclaimed row already waits: no second wake
        expect(await notifications()).toBe(1);
        await store.claim({ claimant: 'relay-a', limit: 10, leaseMs: 30_000 });
        await stageInTx(1, 'commit'); // everything waiting is claimed: wake again
        expect(await notifications()).toBe(2);
      } finally {
        await listener.query('unlisten *');
        listener.release();
      }
    },
  );

  it('works in a named schema, and refuses a bad schema name at construction', async () => {
    await migrate(db.executor, { schema: 'outbox_alt' });
    const store = postgresOutboxStore({ executor: db.executor, schema: 'outbox_alt' });
    const request = outboxRequest();
    await store.stage(request);
    const [record] = await store.claim({ claimant: 'relay-a', limit: 1, leaseMs: 1_000 });
    expect(record?.id).toBe(request.id);
    expect(await store.markPublished([request.id], 'relay-a')).toBe(1);
    const { rows } = await db.pool.query<{ n: number }>(
      'select count(*)::int as n from outbox_alt.x_outbox where published_at is not null',
    );
    expect(rows[0]?.n).toBe(1);
    expect(await postgresOutboxStore({ executor: db.executor }).retained()).toBe(0);
    expect(() => postgresOutboxStore({ executor: db.executor, schema: 'Bad-Name' })).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT' }),
    );
  });

  it('backlog(): the oldest row age on the database clock that stamped it, whatever the store clock reads', async () => {
    const store = postgresOutboxStore({ executor: db.executor, clock: frozenClock(0) });
    const [old, young] = [outboxRequest(), outboxRequest()];
    await store.stage(old);
    await store.stage(young);
    await db.pool.query(
      "update x_outbox set staged_at = clock_timestamp() - interval '10 minutes' where id = $1",
      [old.id],
    );
    const backlog = await store.backlog();
    expect(backlog.count).toBe(2);
    expect(backlog.oldestAgeMs).toBeGreaterThanOrEqual(600_000);
    expect(backlog.oldestAgeMs).toBeLessThan(660_000);
    const { rows } = await db.pool.query<{ ms: number }>(
      'select floor(extract(epoch from staged_at) * 1000)::float8 as ms from x_outbox where id = $1',
      [old.id],
    );
    expect(backlog.oldestStagedAt).toBe(rows[0]?.ms);
  });
});
