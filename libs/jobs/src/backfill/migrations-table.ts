import { InvariantError } from '../errors/runtime-errors';

/** The part of a TypeORM `DataSource` {@link readAppliedMigrations} uses (structural: core never imports `typeorm`). */
export interface MigrationsSourceLike {
  /** Runs raw SQL, answering the rows (here `select name, timestamp` from the migrations table). */
  query(sql: string): Promise<unknown>;
  /**
   * The DataSource's options: `migrationsTableName` (default `migrations`) and `schema`, which TypeORM keeps the
   * migrations table in when it is set (and the name carries none).
   */
  readonly options: { readonly migrationsTableName?: string; readonly schema?: string };
}

const TABLE = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/;

/** The migrations table as TypeORM names it: `migrationsTableName` in the DataSource's `schema`, when it declares one. */
function migrationsTableOf(options: MigrationsSourceLike['options']): string {
  const table = options.migrationsTableName ?? 'migrations';
  const schema = options.schema;
  return schema === undefined || schema === '' || table.includes('.')
    ? table
    : `${schema}.${table}`;
}

/**
 * The migrations applied to the app's database, read from its TypeORM migrations table (`migrationsTableName`,
 * default `migrations`, in the DataSource's `schema` when it declares one — where TypeORM writes it): each one's name
 * and its timestamp, so `requires` may name either. A database with no such table has applied none.
 */
export async function readAppliedMigrations(dataSource: MigrationsSourceLike): Promise<string[]> {
  const table = migrationsTableOf(dataSource.options);
  if (!TABLE.test(table)) {
    throw new InvariantError(
      `migrationsTableName ${JSON.stringify(table)} is not a plain identifier.`,
    );
  }
  const quoted = table
    .split('.')
    .map((part) => `"${part}"`)
    .join('.');
  let rows: unknown;
  try {
    rows = await dataSource.query(`select name, timestamp from ${quoted}`);
  } catch (error) {
    // 42P01: undefined_table — the app has never run a migration
    if ((error as { code?: unknown }).code === '42P01') return [];
    throw error;
  }
  const applied: string[] = [];
  for (const row of rows as { name?: unknown; timestamp?: unknown }[]) {
    if (typeof row.name === 'string') applied.push(row.name);
    if (row.timestamp !== undefined && row.timestamp !== null) applied.push(String(row.timestamp));
  }
  return applied;
}
