import type { PoolClient } from 'pg';
import { frozenClock, outboxRequest } from '@ultimat3/jobs/testing';
import type { PgExecutor } from '../executor/pg-executor';
import { pgClientTx } from '../../test/outbox-tx';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { PgOutboxQueries } from './pg-outbox-queries';
import { outboxStatementsFor } from './statements';

const db = pgJobsSpec({ emptyBeforeEach: ['x_outbox'] });

/** The spec database's executor, recording every statement sent through it. */
function recording(): { executor: PgExecutor; sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    executor: {
      query: (text, values) => {
        sent.push(text);
        return db.executor.query(text, values);
      },
    },
  };
}

describe('PgOutboxQueries', () => {
  it('sends nothing for ids that are not uuids', async () => {
    const { executor, sent } = recording();
    const queries = new PgOutboxQueries(outboxStatementsFor(), executor, pgClientTx, undefined);
    expect(await queries.markPublished(['nope'], 'relay-a')).toBe(0);
    expect(await queries.release(['nope'], 'relay-a', undefined)).toBe(0);
    expect(await queries.restore(['nope'])).toBe(0);
    expect(await queries.quarantine('nope', 'relay-a', 'boom')).toEqual([]);
    await queries.stageMany([], undefined);
    expect(sent).toEqual([]);
  });

  it('stamps the claim with the store clock, and stages many in one statement on the caller tx', async () => {
    const { executor, sent } = recording();
    const clock = frozenClock(Date.UTC(2030, 0, 1));
    const queries = new PgOutboxQueries(outboxStatementsFor(), executor, pgClientTx, clock);
    const requests = [outboxRequest(), outboxRequest()];
    const client: PoolClient = await db.pool.connect();
    try {
      await client.query('begin');
      await queries.stageMany(requests, client);
      await client.query('commit');
    } finally {
      client.release();
    }
    expect(sent).toEqual([]); // the staging went through the caller's connection
    const claimed = await queries.claim({ claimant: 'relay-a', limit: 10, leaseMs: 30_000 });
    expect(claimed.map((r) => [r.id, r.claimedBy, r.claimedAt])).toEqual(
      requests.map((r) => [r.id, 'relay-a', Date.UTC(2030, 0, 1)]),
    );
    expect(claimed[0]?.txKey).toBe(claimed[1]?.txKey);
    expect(await queries.backlog()).toMatchObject({ count: 2 });
    expect(await queries.markPublished([requests[0]!.id], 'relay-a')).toBe(1);
    expect(await queries.retained()).toBe(1);
  });

  it('refuses a tx it cannot write on (X_OUTBOX_NO_TX) and stages on the pool without one', async () => {
    const queries = new PgOutboxQueries(
      outboxStatementsFor(),
      db.executor,
      () => undefined,
      undefined,
    );
    const request = outboxRequest();
    await expect(queries.stage(request, {})).rejects.toMatchObject({ code: 'X_OUTBOX_NO_TX' });
    await expect(queries.stageMany([request], {})).rejects.toMatchObject({
      code: 'X_OUTBOX_NO_TX',
    });
    await queries.stage(request, undefined);
    expect(await queries.retained()).toBe(1);
  });

  it('quarantines a row with those held behind it, lists and restores them', async () => {
    const queries = new PgOutboxQueries(outboxStatementsFor(), db.executor, pgClientTx, undefined);
    const requests = [outboxRequest(), outboxRequest()];
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      for (const request of requests) await queries.stage(request, client);
      await client.query('commit');
    } finally {
      client.release();
    }
    const [first, second] = requests.map((r) => r.id);
    await queries.claim({ claimant: 'relay-a', limit: 10, leaseMs: 30_000 });
    expect(await queries.release([first!, second!], 'relay-a', { id: first!, error: 'x' })).toBe(2);
    await queries.claim({ claimant: 'relay-a', limit: 10, leaseMs: 30_000 });
    expect(await queries.quarantine(first!, 'relay-a', 'down')).toEqual([first, second]);
    const listed = await queries.quarantined(undefined);
    expect(listed.map((q) => [q.id, q.code, q.attempts, q.error])).toEqual([
      [first, 'X_OUTBOX_QUARANTINED', 2, 'down'],
      [second, 'X_OUTBOX_HELD_BEHIND', 0, expect.stringContaining(first!)],
    ]);
    await expect(queries.quarantined(0)).rejects.toMatchObject({ code: 'X_INVARIANT' });
    expect(await queries.restore([first!, second!])).toBe(2);
    expect(await queries.retained()).toBe(2);
  });
});
