import type { EntityManager } from 'typeorm';
import { currentOutboxTx } from '../../outbox/ambient-tx';

const isEntityManager = (value: unknown): value is EntityManager =>
  typeof value === 'object' &&
  value !== null &&
  'queryRunner' in value &&
  typeof (value as { getRepository?: unknown }).getRepository === 'function';

/**
 * The `EntityManager` of the transaction `OutboxInterceptor` opened around the current request — write business rows
 * through it (`currentEntityManager()?.getRepository(Post).save(post)`) and they commit or roll back with every job
 * the request enqueued. `undefined` outside such a request (a worker, a CLI): pass `{ tx: manager }` there instead.
 */
export function currentEntityManager(): EntityManager | undefined {
  const tx = currentOutboxTx();
  return isEntityManager(tx) ? tx : undefined;
}
