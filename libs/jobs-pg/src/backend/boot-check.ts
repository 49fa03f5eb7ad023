import { Client } from 'pg';
import {
  DatabaseUnreachableError,
  errorCodeOf,
  InvariantError,
  JobsError,
  type DatabaseTarget,
  type DatabaseUnreachableReason,
} from '@ultimat3/jobs';
import type { PgExecutor } from '../executor/pg-executor';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { migrate } from '../migrations/migrate';
import { qualify } from '../schema';
import { bootFailureReason, connectionFailure, messageOf } from './connection-failure';
import { LONGEST_TIMER_MS, within } from './within';

/** How long each boot step may wait on the database — the connect, the migration — and every later connect. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/**
 * `postgres.connectTimeoutMs`, checked: a positive number of milliseconds (default 10 000), at most what a timer can
 * wait (2^31-1 ms, also PostgreSQL's largest `lock_timeout`) — pg's connect timer fired a longer one after 1 ms.
 */
export function resolveConnectTimeout(ms: unknown): number {
  if (ms === undefined) return DEFAULT_CONNECT_TIMEOUT_MS;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0 || ms > LONGEST_TIMER_MS) {
    throw new InvariantError(
      `postgres.connectTimeoutMs must be a positive number of milliseconds, at most ${LONGEST_TIMER_MS}.`,
      `Omit it for the default (${DEFAULT_CONNECT_TIMEOUT_MS} ms), or pass e.g. 5_000.`,
    );
  }
  return ms;
}

/** SQLSTATE of a statement that gave up waiting for a lock (`lock_timeout`). */
const LOCK_NOT_AVAILABLE = '55P03';

/** A step's wait past its timeout before giving up on a server that stopped answering altogether. */
const UNANSWERED_GRACE_MS = 1_000;

/**
 * The longest the boot session's goodbye (its Terminate, then the server's close) is awaited before its socket is
 * destroyed: a partition that falls as the boot ends would otherwise hold the boot until the kernel gives up.
 */
const BOOT_END_MS = 1_000;

/** The part of a `pg.Client` its socket is reached through (not part of its typed surface). */
interface SocketHolder {
  readonly connection?: { readonly stream?: { destroy?: () => void } };
}

/**
 * Ends the boot's session gracefully, or — when its close has not come within {@link BOOT_END_MS} — destroys its
 * socket. Never rejects: what the boot answered stands either way.
 */
async function endWithin(client: Client): Promise<void> {
  const ended = await within(
    client.end().catch(() => undefined),
    BOOT_END_MS,
  );
  if (!ended.done) (client as unknown as SocketHolder).connection?.stream?.destroy?.();
}

/** What a boot does once connected: migrate, or (told not to) check that the tables are there. */
export interface BootStep {
  readonly timeoutMs: number;
  readonly migrate: boolean;
  readonly schema?: string;
}

/**
 * A failed boot step as the coded error: a connect's failure says why the session was refused; a statement's is the
 * database out of reach, else the migration's own failure.
 */
function stepFailure(
  error: unknown,
  target: DatabaseTarget | undefined,
  step: BootStep,
  connecting: boolean,
): DatabaseUnreachableError {
  // our own coded errors (a schema name refused before any statement) are answered as they are
  if (error instanceof JobsError) return error;
  const reason: DatabaseUnreachableReason =
    connecting || connectionFailure(error) !== undefined || !step.migrate
      ? bootFailureReason(error)
      : errorCodeOf(error) === LOCK_NOT_AVAILABLE
        ? 'migrate-timeout'
        : 'migrate-failed';
  return new DatabaseUnreachableError(reason, target, {
    timeoutMs: step.timeoutMs,
    detail: messageOf(error),
    cause: error,
  });
}

/** SQLSTATEs of a statement naming a table (42P01 undefined_table) or a schema (3F000 invalid_schema_name) not there. */
const NOT_THERE = new Set(['42P01', '3F000']);

/**
 * Told not to migrate, the boot's one round trip: is `x_jobs` there (reading no row)? Tables missing is
 * `schema-missing` at boot, not a raw 42P01 on the first enqueue or `x` command. A schema behind this build is let
 * through: a build may roll out ahead of its migration (the hand-off's table, migration 0018, is used only once there).
 */
async function checkTables(
  executor: PgExecutor,
  target: DatabaseTarget | undefined,
  step: BootStep,
): Promise<void> {
  try {
    await executor.query(qualify('select 1 from x_jobs limit 0', step.schema), []);
  } catch (error) {
    if (!NOT_THERE.has(errorCodeOf(error) ?? '')) throw error;
    throw new DatabaseUnreachableError('schema-missing', target, {
      detail: step.schema === undefined ? 'looked through search_path' : `schema "${step.schema}"`,
      cause: error,
    });
  }
}

/** Migrates through `executor` (or, with `migrate: false`, checks the tables are there), within the step's timeout. */
async function runStep(
  executor: PgExecutor,
  target: DatabaseTarget | undefined,
  step: BootStep,
): Promise<void> {
  const work = step.migrate
    ? migrate(executor, step.schema === undefined ? {} : { schema: step.schema })
    : checkTables(executor, target, step);
  // the server bounds the lock wait (lock_timeout) on a session of ours; this bounds a server that went silent
  const answered = await within(work, step.timeoutMs + UNANSWERED_GRACE_MS);
  if (!answered.done) {
    throw new DatabaseUnreachableError(step.migrate ? 'migrate-timeout' : 'timeout', target, {
      timeoutMs: step.timeoutMs,
    });
  }
}

/**
 * The boot over a URL: ONE dedicated session, opened within `timeoutMs` (a refused port, an unknown host or database
 * and bad credentials fail at once; a host that accepts TCP and never answers, at the timeout), that then migrates
 * within `timeoutMs` again, and is ended either way — destroyed when a step is still waiting, or when its goodbye is
 * not answered within a second (a partition), so nothing is left hanging on the server or in this process. Every
 * failure is `DatabaseUnreachableError` naming `target`.
 */
export async function bootOverUrl(
  url: string,
  target: DatabaseTarget,
  step: BootStep,
): Promise<void> {
  // pg's own connect timeout destroys the socket: a host that accepts TCP and never answers is let go at once
  const client = new Client({
    connectionString: url,
    application_name: 'ultimat3-jobs-boot',
    connectionTimeoutMillis: step.timeoutMs,
  });
  // a session that dies under a step is reported by that step's promise
  client.on('error', () => undefined);
  let connecting = true;
  try {
    await client.connect();
    connecting = false;
    const executor = pgPoolExecutor(client, { shared: false, prepare: false });
    // the server gives up a wait for the migration lock itself, so no backend is left queued on it; the install reads
    // the ledger with a snapshot taken once it holds that lock (read committed, whatever the database's default); the
    // settings' round trip is bounded too: a session opened by a server (or a pooler in front of one) gone silent
    const set = await within(
      executor.query(
        `select set_config('lock_timeout', $1::text, false),
                set_config('default_transaction_isolation', 'read committed', false)`,
        [`${Math.ceil(step.timeoutMs)}ms`],
      ),
      step.timeoutMs + UNANSWERED_GRACE_MS,
    );
    if (!set.done)
      throw new DatabaseUnreachableError('timeout', target, { timeoutMs: step.timeoutMs });
    await runStep(executor, target, step);
  } catch (error) {
    throw stepFailure(error, target, step, connecting);
  } finally {
    await endWithin(client);
  }
}

/**
 * The boot over an executor the caller owns (a TypeORM DataSource's): the migration, within `timeoutMs`. A statement
 * still waiting at the timeout cannot be cancelled from here; the boot fails all the same, naming `target`. Told not to
 * migrate, it sends nothing: an app may run its TypeORM migrations (ours among them) on that DataSource after the
 * module booted, before its first job.
 */
export async function bootOverExecutor(
  executor: PgExecutor,
  target: DatabaseTarget | undefined,
  step: BootStep,
): Promise<void> {
  if (!step.migrate) return;
  try {
    await runStep(executor, target, step);
  } catch (error) {
    throw stepFailure(error, target, step, false);
  }
}
