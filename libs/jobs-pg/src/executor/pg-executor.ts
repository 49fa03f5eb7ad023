/** What one statement answered: its rows (decoded: jsonb as JSON, timestamptz as `Date`) and how many it touched. */
export interface PgQueryResult<R> {
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
  query<R>(text: string, values: readonly unknown[]): Promise<PgQueryResult<R>>;
}
