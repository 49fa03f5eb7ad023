import type { PgExecutor, PgQueryResult } from './pg-executor';

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
 *   executor is {@link PgExecutor.shared}.
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
      const runner = source.createQueryRunner();
      try {
        return await run<R>(runner, text, values);
      } finally {
        await runner.release();
      }
    },
  };
}
