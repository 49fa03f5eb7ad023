/** What one statement answered: its rows (decoded: jsonb as JSON, timestamptz as `Date`) and how many it touched. */
export interface PgQueryResult<R> {
  /** The rows answered, decoded. */
  readonly rows: R[];
  /** Rows returned by a SELECT, or written by an INSERT / UPDATE / DELETE (0 when the driver says none). */
  readonly rowCount: number;
}

/**
 * The one seam between this package and a PostgreSQL client: run `text` with `values` as `$1…$n` parameters. The
 * driver never builds SQL from values, so the executor needs no escaping. An empty `values` may carry several
 * statements (the install script is one `do` block). Adapters: {@link pgPoolExecutor} for a `pg.Pool` / `pg.Client`,
 * {@link typeormExecutor} for a TypeORM `DataSource` / `QueryRunner`.
 */
export interface PgExecutor {
  /** Runs `text` with `values` as `$1…$n` parameters and answers its rows. */
  query<R>(text: string, values: readonly unknown[]): Promise<PgQueryResult<R>>;
  /**
   * True when every statement runs on a connection of a shared pool, in a transaction of its own: statements sent at
   * the same time are independent, and any of them may fail without touching another. Then the driver may gather
   * concurrent `enqueue()` calls into one statement (see `postgresJobDriver`). Absent or false — an executor bound to
   * one connection or to a caller's transaction — every statement runs alone, in the order it was asked for.
   */
  readonly shared?: boolean;
}
