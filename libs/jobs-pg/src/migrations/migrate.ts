import type { PgExecutor } from '../executor/pg-executor';
import { installScript } from './install-script';

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /** The schema the tables live in, created when missing (default: the first schema of `search_path`). */
  readonly schema?: string;
}

/**
 * Applies every migration the database lacks, under a transaction-scoped advisory lock and the `x_migrations`
 * ledger. Safe when many processes boot at once: they queue on the lock, and each finds the work done by the one
 * before it. One statement — the executor may be a pool.
 */
export async function migrate(executor: PgExecutor, options: MigrateOptions = {}): Promise<void> {
  await executor.query(installScript(options.schema), []);
}
