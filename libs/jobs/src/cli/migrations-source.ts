import { readAppliedMigrations } from '../backfill/migrations-table';
import { JobsError } from '../errors/jobs-error';
import { loadDriverPeer, type PeerPackageLoader } from '../nest/backends.peer';
import { CliUsageError } from './exit-codes';

/** A connection that answers SQL: the PostgreSQL backend's executor. */
export interface SqlExecutor {
  query<R>(text: string, values: readonly unknown[]): Promise<{ readonly rows: R[] }>;
}

/** Where `x db backfill` reads the app's applied TypeORM migrations from, to check a backfill's `requires`. */
export interface MigrationsSource {
  /** Whether a gated backfill declares `requires` (nothing is read otherwise). */
  readonly needed: boolean;
  /** `--migrations-url`: the app's PostgreSQL database, when it is not the one x opened. */
  readonly migrationsUrl: string | undefined;
  /**
   * `--migrations-table`: the app's TypeORM migrations table (its `migrationsTableName`), schema-qualified when the
   * app's DataSource declares a `schema` (`app.migrations`); default `migrations` off the search_path.
   */
  readonly migrationsTable?: string | undefined;
  /** The executor of the backend x opened, when it is PostgreSQL. */
  readonly executor: SqlExecutor | undefined;
  readonly env: NodeJS.ProcessEnv;
  /** Loads `pg` (tests pass another loader). */
  readonly loadPg?: PeerPackageLoader;
}

interface PgClient {
  connect(): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  query(text: string): Promise<{ readonly rows: unknown[] }>;
  end(): Promise<void>;
}

interface PgModule {
  Client: new (config: {
    readonly connectionString: string;
    readonly connectionTimeoutMillis: number;
  }) => PgClient;
}

/** How long reading the migrations table may wait for its connection. */
const CONNECT_TIMEOUT_MS = 10_000;

// eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only when needed
const LOAD_PG: PeerPackageLoader = () => require('pg') as unknown;

/**
 * The names of the app's applied migrations. From `--migrations-url` when given; else from the PostgreSQL database x
 * opened; else — x opened Redis, whose jobs live beside no SQL database — from `DATABASE_URL`. A backfill whose
 * `requires` cannot be checked anywhere is a usage error naming the flag, never a silent "migration pending".
 */
export async function appliedMigrationsFrom(source: MigrationsSource): Promise<string[]> {
  if (!source.needed) return [];
  const url =
    source.migrationsUrl ??
    (source.executor === undefined ? nonEmpty(source.env['DATABASE_URL']) : undefined);
  const options = tableOptions(source.migrationsTable);
  if (url !== undefined) return readAt(url, options, source.loadPg ?? LOAD_PG);
  if (source.executor !== undefined) {
    const executor = source.executor;
    return readAppliedMigrations({
      query: async (sql) => (await executor.query<Record<string, unknown>>(sql, [])).rows,
      options,
    });
  }
  throw new CliUsageError(
    "a backfill's requires names a migration, and this backend keeps no SQL database to read it from: pass " +
      "--migrations-url postgres://… (the app's database) or set DATABASE_URL",
  );
}

/** The DataSource options `readAppliedMigrations` reads: the table named, or its default. */
function tableOptions(table: string | undefined): { readonly migrationsTableName?: string } {
  return table === undefined ? {} : { migrationsTableName: table };
}

async function readAt(
  url: string,
  options: { readonly migrationsTableName?: string },
  load: PeerPackageLoader,
): Promise<string[]> {
  const pg = loadDriverPeer<PgModule>(
    { driver: 'postgres', packageName: 'pg', install: ['pg'], entry: 'Client' },
    load,
  );
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  // the session ending between two statements (a server stopping) fails the next one: not an uncaught 'error'
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (cause) {
    await client.end().catch(() => undefined);
    throw new JobsError(
      'X_DRIVER_UNAVAILABLE',
      "x could not reach the app's database to read its migrations table.",
      { fix: 'Check --migrations-url (or DATABASE_URL) and that the database is up.', cause },
    );
  }
  try {
    return await readAppliedMigrations({
      query: async (sql) => (await client.query(sql)).rows,
      options,
    });
  } finally {
    await client.end();
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
