import type { PgExecutor } from '../executor/pg-executor';
import { installScript } from './install-script';

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /** The schema the tables live in, created when missing (default: the first schema of `search_path`). */
  readonly schema?: string;
}

/**
 * Sent ahead of the install when it runs in a transaction of its own: the install reads the ledger once it holds the
 * lock, so it must read with a snapshot taken then. Under a stricter `default_transaction_isolation` (repeatable read,
 * serializable) its one snapshot was taken before it waited on the lock, and it applied again what the installer ahead
 * of it had just committed. Both statements go in one simple-protocol string: one implicit transaction.
 */
const READ_COMMITTED = 'set transaction isolation level read committed;\n';

/**
 * Applies every migration the database lacks, under a transaction-scoped advisory lock and the `x_migrations`
 * ledger. Safe when many processes boot at once: they queue on the lock, and each finds the work done by the one
 * before it — read committed over a shared executor whatever the sessions' default isolation. One round trip — the
 * executor may be a pool.
 */
export async function migrate(executor: PgExecutor, options: MigrateOptions = {}): Promise<void> {
  const script = installScript(options.schema);
  // only in a transaction of its own: a caller's transaction keeps the isolation the caller chose
  await executor.query(executor.shared === true ? `${READ_COMMITTED}${script}` : script, []);
}
