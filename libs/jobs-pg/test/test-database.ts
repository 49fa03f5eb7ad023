import { randomBytes } from 'node:crypto';
import { Client, Pool } from 'pg';
import type { PgExecutor } from '../src/executor/pg-executor';
import { pgPoolExecutor } from '../src/executor/pg-pool-executor';
import { migrate } from '../src/migrations/migrate';
import { testDatabaseUrl } from '../../../test/test-env';

/** A fresh database of the run's test server, for one test file. */
export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  /** A pool over it (default 20 connections): enough for the 64-way races the suites run. */
  readonly pool: Pool;
  readonly executor: PgExecutor;
  /** Ends the pool and drops the database — unless `JOBS_TEST_KEEP_DB` is set, to inspect it after a failure. */
  drop(): Promise<void>;
}

/** Options of {@link createTestDatabase}. */
export interface TestDatabaseOptions {
  /** Run `migrate()` on it (default true). */
  readonly migrate?: boolean;
  readonly poolSize?: number;
}

/** `url` pointing at another database of the same server. */
export function withDatabase(url: string, database: string): string {
  const next = new URL(url);
  next.pathname = `/${database}`;
  return next.toString();
}

async function onServer<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** How long a drop waits for the database's sessions to close by themselves before it ends them. */
const SESSIONS_GONE_MS = 2_000;

/**
 * Waits (up to `ms`) until no session is connected to `database`. A pool's `end()` answers before its connections'
 * sockets have closed: a `drop … with (force)` sent then terminates a backend its client is still reading, whose
 * FATAL 57P01 reaches that client's pool as an `'error'` event — an uncaught exception in a spec whose pool has no
 * listener. Sessions that are closing leave within milliseconds; one still open at the bound is ended by the drop.
 */
async function sessionsGone(client: Client, database: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const { rows } = await client.query<{ n: number }>(
      'select count(*)::int as n from pg_stat_activity where datname = $1',
      [database],
    );
    if ((rows[0]?.n ?? 0) === 0 || Date.now() >= deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Creates `jobs_test_<random>`, migrated unless asked not to, with a pool over it. */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const name = `jobs_test_${randomBytes(6).toString('hex')}`;
  await onServer((client) => client.query(`create database ${name}`));
  const url = withDatabase(testDatabaseUrl(), name);
  const pool = new Pool({ connectionString: url, max: options.poolSize ?? 20 });
  // an idle client's error (the server going away at teardown) must not crash the test process
  pool.on('error', () => undefined);
  const executor = pgPoolExecutor(pool);
  if (options.migrate !== false) await migrate(executor);
  return {
    name,
    url,
    pool,
    executor,
    async drop() {
      await pool.end();
      if (process.env.JOBS_TEST_KEEP_DB) return;
      await onServer(async (client) => {
        await sessionsGone(client, name, SESSIONS_GONE_MS);
        await client.query(`drop database if exists ${name} with (force)`);
      });
    },
  };
}

/** The tables the driver writes, in an order that empties them without a foreign-key complaint. */
export const JOB_TABLES: readonly string[] = [
  'x_job_steps',
  'x_jobs',
  'x_job_leases',
  'x_queue_pauses',
  'x_job_counters',
  'x_workers',
  'x_job_hand_offs',
];

/** Empties the tables one driver test touches: faster than a database per test, and as isolating. */
export async function resetJobTables(executor: PgExecutor): Promise<void> {
  await executor.query(JOB_TABLES.map((table) => `delete from ${table};`).join(' '), []);
}
