import { createHash } from 'node:crypto';
import type { PgExecutor, PgQueryResult } from './pg-executor';

/**
 * The part of a `pg.Pool`, `pg.PoolClient` or `pg.Client` the adapter calls. Structural, so this file imports
 * nothing from `pg` at run time.
 */
export interface PgQueryable {
  query(config: { text: string; values: unknown[]; name?: string }): Promise<{
    rows: unknown[];
    rowCount: number | null;
  }>;
}

/** Options of {@link pgPoolExecutor}. */
export interface PgPoolExecutorOptions {
  /**
   * Run statements with parameters as named prepared statements, parsed and planned once per connection (default
   * true). Planning is most of a small statement's server time: 1.6 ms of a 2.3 ms ack, measured on a 2-core machine.
   * Turn it off behind a proxy that cannot carry prepared statements (PgBouncer in transaction mode before 1.21, or
   * with `max_prepared_statements = 0`). A migration that changes a table's columns while workers run makes their
   * `returning j.*` statements fail with "cached plan must not change result type" until their connections are
   * recycled: restart the workers after such a migration, or turn this off for it.
   */
  readonly prepare?: boolean;
  /**
   * Whether the client is a shared pool ({@link PgExecutor.shared}): each statement on a connection of its own, in a
   * transaction of its own. Default: true for a `pg.Pool` (told by its connection counters), false for a `pg.Client`
   * or a checked-out `PoolClient`, which may be inside the caller's `BEGIN`.
   */
  readonly shared?: boolean;
}

/** Whether `client` looks like a `pg.Pool`: only a pool counts its connections. */
function isPool(client: PgQueryable): boolean {
  const counters = client as Partial<Record<'totalCount' | 'idleCount' | 'waitingCount', unknown>>;
  return (
    typeof counters.totalCount === 'number' &&
    typeof counters.idleCount === 'number' &&
    typeof counters.waitingCount === 'number'
  );
}

/** The statement name of `text`: derived from the text, so every connection and process agrees on it. */
const names = new Map<string, string>();
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `x_jobs_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * A {@link PgExecutor} over a `pg.Pool` (a connection per statement, checked out and returned by the pool) or a
 * single `pg.Client` / `PoolClient` (every statement on that connection — inside its transaction, if it has one).
 * Over a pool the executor is {@link PgExecutor.shared}. The executor does not own the client: ending the pool is the
 * caller's. A statement without values (the install
 * script, several statements in one text) always goes through the simple protocol, unprepared.
 */
export function pgPoolExecutor(
  client: PgQueryable,
  options: PgPoolExecutorOptions = {},
): PgExecutor {
  const prepare = options.prepare ?? true;
  return {
    shared: options.shared ?? isPool(client),
    async query<R>(text: string, values: readonly unknown[]): Promise<PgQueryResult<R>> {
      const config =
        prepare && values.length > 0
          ? { name: statementName(text), text, values: [...values] }
          : { text, values: [...values] };
      const result = await client.query(config);
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    },
  };
}
