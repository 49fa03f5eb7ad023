import type { Pool, PoolClient } from 'pg';
import type { EnqueueRequest, OutboxStore } from '@ultimat3/jobs';
import { pgPoolExecutor } from '../src/executor/pg-pool-executor';

/** The outbox store's `txExecutor` for the `pg` client a test stages with. */
export const pgClientTx = (tx: unknown) => pgPoolExecutor(tx as PoolClient);

/** Stages `requests` in ONE transaction of their own on `pool`, as an app's request would. */
export async function stageInTx(
  pool: Pool,
  store: Pick<OutboxStore, 'stage'>,
  requests: readonly EnqueueRequest[],
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    for (const request of requests) await store.stage(request, client);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
}
