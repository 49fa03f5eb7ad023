import type { PgExecutor, PgQueryResult } from './pg-executor';
import { guardPoolClients } from './pool-client-guard';

/** The structured result TypeORM answers when `query()` is called with `useStructuredResult: true`. */
interface TypeormQueryResult {
  readonly records?: unknown[];
  readonly affected?: number | null;
}

/**
 * The part of a TypeORM `QueryRunner` the adapter calls. Structural, so this package never imports `typeorm` at
 * run time; a real `QueryRunner` satisfies it.
 */
export interface TypeormQueryRunnerLike {
  /** Runs one statement with its parameters, as `QueryRunner.query` does. */
  query(
    query: string,
    parameters: unknown[] | undefined,
    useStructuredResult: true,
  ): Promise<unknown>;
  /** Hands the runner's connection back to the pool. */
  release(): Promise<void>;
}

/** The part of a TypeORM `DataSource` the adapter calls. */
export interface TypeormDataSourceLike {
  /** A query runner on the DataSource's pool. */
  createQueryRunner(): TypeormQueryRunnerLike;
  /** TypeORM's driver: on PostgreSQL, its `pg.Pool` (`master`) and, when replicated, the replicas' (`slaves`). */
  readonly driver?: object;
}

/** Guards TypeORM's PostgreSQL pools: `master`, and the replicas' `slaves` when replicated (other drivers: none). */
function guardPools(driver: object | undefined): void {
  const pools = driver as { readonly master?: unknown; readonly slaves?: unknown } | undefined;
  guardPoolClients(pools?.master);
  if (Array.isArray(pools?.slaves)) for (const replica of pools.slaves) guardPoolClients(replica);
}

const isDataSource = (
  source: TypeormDataSourceLike | TypeormQueryRunnerLike,
): source is TypeormDataSourceLike =>
  typeof (source as Partial<TypeormDataSourceLike>).createQueryRunner === 'function';

/**
 * A {@link PgExecutor} over TypeORM. Every statement asks for the STRUCTURED result
 * (`queryRunner.query(text, values, true)`): TypeORM's plain `query()` answers `[rows, count]` for an UPDATE or a
 * DELETE and bare rows otherwise, so a fenced `update … returning` would read as two "rows".
 *
 * - a `QueryRunner`: every statement runs on it — inside its transaction when one is open; the runner stays the
 *   caller's to release.
 * - a `DataSource`: each statement takes a query runner (a pooled connection) and releases it afterwards; the
 *   executor is {@link PgExecutor.shared}. Its pools are guarded ({@link guardPoolClients}): a connection whose
 *   server ends it in the instant TypeORM takes it fails its statement instead of ending the process.
 */
export function typeormExecutor(
  source: TypeormDataSourceLike | TypeormQueryRunnerLike,
): PgExecutor {
  const run = async <R>(
    runner: TypeormQueryRunnerLike,
    text: string,
    values: readonly unknown[],
  ): Promise<PgQueryResult<R>> => {
    const result = (await runner.query(text, [...values], true)) as TypeormQueryResult;
    const rows = (result.records ?? []) as R[];
    return { rows, rowCount: result.affected ?? rows.length };
  };

  if (!isDataSource(source)) return { query: (text, values) => run(source, text, values) };
  return {
    shared: true,
    async query<R>(text: string, values: readonly unknown[]): Promise<PgQueryResult<R>> {
      // each time: a DataSource initialised after the executor was made has its pools only now (a no-op once guarded)
      guardPools(source.driver);
      const runner = source.createQueryRunner();
      try {
        return await run<R>(runner, text, values);
      } finally {
        await runner.release();
      }
    },
  };
}
