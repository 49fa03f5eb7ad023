import { createHash } from 'node:crypto';
import type { PgExecutor, PgQueryResult } from './pg-executor';
import { guardPoolClients } from './pool-client-guard';

/**
 * The part of a `pg.Pool`, `pg.PoolClient` or `pg.Client` the adapter calls. Structural, so this file imports
 * nothing from `pg` at run time.
 */
export interface PgQueryable {
  /** Runs one parameterised statement (`pg`'s query-config form). */
  query(config: { text: string; values: unknown[]; name?: string }): Promise<{
    rows: unknown[];
    rowCount: number | null;
  }>;
}

/** A connection checked out of a pool: queried, then handed back, or destroyed when `release` is given a failure. */
interface PgCheckedOut extends PgQueryable {
  release(failure?: Error | boolean): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
}

/** The part of a `pg.Pool` the adapter checks connections out of. */
interface PgCheckout {
  connect(): Promise<PgCheckedOut>;
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

/**
 * Whether a statement's failure leaves its connection as good as before: an error the server answered for the
 * statement alone — bad data (22), a constraint (23: the unique violations the enqueue's fast paths expect), a
 * serialization failure or deadlock (40), a bad or stale name (42), a lock not available (55P03), a cancelled
 * statement (57014), a raised exception (P0). Anything else — a lost connection (no SQLSTATE), a shut-down server (57P),
 * an exhausted resource (53), an internal error (XX), a prepared statement whose plan no longer fits its table
 * (0A000, "cached plan must not change result type", after a migration) — ends the connection, and the pool opens a
 * fresh one, whose statements are prepared afresh.
 */
export function keepsConnection(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(22|23|40|42|P0)[0-9A-Z]{3}$|^55P03$|^57014$/.test(code);
}

/**
 * One statement on a connection checked out of `pool`. Not `pool.query()`: that destroys the connection on ANY error,
 * so every unique violation the enqueue's fast paths expect (a deduped key, a batch meeting a stored row) cost a new
 * connection — its authentication and every statement prepared again, ~20 ms — where the connection was fine.
 */
async function onCheckedOut(
  pool: PgCheckout,
  config: { text: string; values: unknown[]; name?: string },
): ReturnType<PgQueryable['query']> {
  const connection = await pool.connect();
  let lost: Error | undefined;
  // the connection dying mid-statement emits an error besides failing the statement: heard here, not thrown
  const onLost = (error: Error): void => {
    lost = error;
  };
  connection.on('error', onLost);
  let failure: Error | boolean | undefined;
  try {
    return await connection.query(config);
  } catch (error) {
    if (!keepsConnection(error)) failure = error instanceof Error ? error : true;
    throw error;
  } finally {
    connection.off('error', onLost);
    connection.release(lost ?? failure);
  }
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
 * A {@link PgExecutor} over a `pg.Pool` (a connection per statement, checked out and returned — kept through a failure
 * that concerns the statement alone, see {@link keepsConnection}) or a single `pg.Client` / `PoolClient` (every
 * statement on that connection — inside its transaction, if it has one). Over a pool the executor is
 * {@link PgExecutor.shared}. The executor does not own the client: ending the pool is the caller's. A statement
 * without values (the install script, several statements in one text) always goes through the simple protocol,
 * unprepared. A pool is guarded ({@link guardPoolClients}): a connection whose server ends it in the instant it is
 * handed out fails its statement instead of ending the process.
 */
export function pgPoolExecutor(
  client: PgQueryable,
  options: PgPoolExecutorOptions = {},
): PgExecutor {
  const prepare = options.prepare ?? true;
  const checkout = typeof (client as Partial<PgCheckout>).connect === 'function' && isPool(client);
  if (checkout) guardPoolClients(client);
  return {
    shared: options.shared ?? isPool(client),
    async query<R>(text: string, values: readonly unknown[]): Promise<PgQueryResult<R>> {
      const config =
        prepare && values.length > 0
          ? { name: statementName(text), text, values: [...values] }
          : { text, values: [...values] };
      const result = checkout
        ? await onCheckedOut(client as PgQueryable & PgCheckout, config)
        : await client.query(config);
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    },
  };
}
