import { currentOutboxTx } from '../../outbox/ambient-tx';
import type { OutboxEntityManager } from './typeorm-like';

const isEntityManager = (value: unknown): value is OutboxEntityManager =>
  typeof value === 'object' &&
  value !== null &&
  'queryRunner' in value &&
  typeof (value as { getRepository?: unknown }).getRepository === 'function';

/**
 * The `EntityManager` of the transaction `OutboxInterceptor` opened around the current request — write business rows
 * through it (`currentEntityManager<EntityManager>()?.getRepository(Post).save(post)`) and they commit or roll back
 * with every job the request enqueued. `undefined` outside such a request (a worker, a CLI): pass `{ tx: manager }`
 * there instead. The type argument is TypeORM's `EntityManager` (default: the structural {@link OutboxEntityManager},
 * so this package's types never need `typeorm` installed).
 */
export function currentEntityManager<Manager extends OutboxEntityManager = OutboxEntityManager>():
  Manager | undefined {
  const tx = currentOutboxTx();
  // the ambient transaction is the manager OutboxInterceptor opened: a TypeORM EntityManager
  return isEntityManager(tx) ? (tx as Manager) : undefined;
}
