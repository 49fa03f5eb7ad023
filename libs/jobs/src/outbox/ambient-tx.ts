/**
 * The outbox's ambient transaction — a documented piece of ambient state, like the facade in `declare/ambient.ts`.
 *
 * One `AsyncLocalStorage`: `runInOutboxTx(tx, fn)` makes `tx` the transaction `enqueue()` joins for everything `fn`
 * does, awaited or not, and for nothing else. `OutboxInterceptor` runs each request handler inside one, with the
 * request's TypeORM `EntityManager` as `tx`. Outside such a scope it holds nothing: `currentOutboxTx()` is `undefined`
 * between requests, in a worker, in a script.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

interface OutboxTxScope {
  readonly tx: unknown;
}

const storage = new AsyncLocalStorage<OutboxTxScope>();

/** The transaction ambient here (opened by `OutboxInterceptor` or `runInOutboxTx`), if any. */
export function currentOutboxTx(): unknown {
  return storage.getStore()?.tx;
}

/** Runs `fn` with `tx` as the ambient transaction; nested scopes see the innermost one. */
export function runInOutboxTx<T>(tx: unknown, fn: () => T): T {
  return storage.run({ tx }, fn);
}
