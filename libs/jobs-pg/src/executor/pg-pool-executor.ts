import type { PgExecutor, PgQueryResult } from './pg-executor';

/**
 * The part of a `pg.Pool`, `pg.PoolClient` or `pg.Client` the adapter calls. Structural, so this file imports
 * nothing from `pg` at run time.
 */
export interface PgQueryable {
  query(config: { text: string; values: unknown[] }): Promise<{
    rows: unknown[];
    rowCount: number | null;
  }>;
}

/**
 * A {@link PgExecutor} over a `pg.Pool` (a connection per statement, checked out and returned by the pool) or a
 * single `pg.Client` / `PoolClient` (every statement on that connection — inside its transaction, if it has one).
 * The executor does not own the client: ending the pool is the caller's.
 */
export function pgPoolExecutor(client: PgQueryable): PgExecutor {
  return {
    async query<R>(text: string, values: readonly unknown[]): Promise<PgQueryResult<R>> {
      const result = await client.query({ text, values: [...values] });
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    },
  };
}
