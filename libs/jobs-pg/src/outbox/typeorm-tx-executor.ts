import type { PgExecutor } from '../executor/pg-executor';
import { typeormExecutor, type TypeormQueryRunnerLike } from '../executor/typeorm-executor';

/** The part of a TypeORM `QueryRunner` that says whether it can carry a staged row. Structural: no `typeorm` import. */
interface TxQueryRunnerLike extends TypeormQueryRunnerLike {
  readonly isTransactionActive: boolean;
  readonly isReleased: boolean;
}

const isRunner = (value: unknown): value is TxQueryRunnerLike =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Partial<TxQueryRunnerLike>).query === 'function' &&
  typeof (value as Partial<TxQueryRunnerLike>).release === 'function' &&
  typeof (value as Partial<TxQueryRunnerLike>).isTransactionActive === 'boolean';

/** The query runner behind `tx`: a TypeORM `QueryRunner`, or an `EntityManager` bound to one. */
function queryRunnerOf(tx: unknown): TxQueryRunnerLike | undefined {
  if (isRunner(tx)) return tx;
  if (typeof tx === 'object' && tx !== null && 'queryRunner' in tx) {
    const runner = (tx as { readonly queryRunner?: unknown }).queryRunner;
    if (isRunner(runner)) return runner;
  }
  return undefined;
}

/**
 * The default `txExecutor` of `postgresOutboxStore`: a TypeORM transaction — the `EntityManager` that
 * `dataSource.transaction(async (manager) => …)` or `OutboxInterceptor` hands out, or a `QueryRunner` — becomes an
 * executor on ITS connection. Anything else, or a transaction no longer open (committed, rolled back, released),
 * answers `undefined`, which the store refuses with `X_OUTBOX_NO_TX` rather than staging on another connection.
 */
export function typeormTxExecutor(tx: unknown): PgExecutor | undefined {
  const runner = queryRunnerOf(tx);
  if (runner === undefined || runner.isReleased || !runner.isTransactionActive) return undefined;
  return typeormExecutor(runner);
}
