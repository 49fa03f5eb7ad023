import { JobsError } from './jobs-error';

/** Where a driver connects, as an error may name it: never the password. */
export interface DatabaseTarget {
  /** The host name or address connected to. */
  readonly host: string;
  /** The TCP port (5432 unless the connection options say otherwise). */
  readonly port: number;
  /** The database name. */
  readonly database: string;
  /** The user connecting, when known; never the password. */
  readonly user?: string;
}

/** Why the database could not be used at boot. */
export type DatabaseUnreachableReason =
  | 'url'
  | 'refused'
  | 'unknown-host'
  | 'unreachable'
  | 'timeout'
  | 'unknown-database'
  | 'auth'
  | 'migrate-timeout'
  | 'migrate-failed'
  | 'schema-missing'
  | 'other';

/** The option a user sets the connection through, as the messages name it. */
const URL_OPTION = 'postgres.url (default DATABASE_URL)';
const TIMEOUT_OPTION = 'postgres.connectTimeoutMs';

function what(reason: DatabaseUnreachableReason, target: DatabaseTarget, ms: number): string {
  switch (reason) {
    case 'refused':
      return `nothing accepts connections on ${target.host}:${target.port}`;
    case 'unknown-host':
      return `the host ${target.host} does not resolve`;
    case 'unreachable':
      return `the network has no route to ${target.host}:${target.port}`;
    case 'timeout':
      return `no PostgreSQL session opened within ${ms} ms (the host may accept TCP and never answer)`;
    case 'unknown-database':
      return `the server has no database "${target.database}"`;
    case 'auth':
      return `the server refused the credentials of user "${target.user ?? '?'}"`;
    case 'migrate-timeout':
      return `the schema migration did not finish within ${ms} ms (another process may hold the migration lock)`;
    case 'migrate-failed':
      return 'the schema migration failed';
    case 'schema-missing':
      return 'this boot does not migrate, and finds no jobs tables (x_jobs)';
    default:
      return 'the server refused the session';
  }
}

function fixFor(reason: DatabaseUnreachableReason, target: DatabaseTarget): string {
  switch (reason) {
    case 'url':
      return `Set ${URL_OPTION} to a URL of the form postgres://user:password@host:5432/database.`;
    case 'refused':
      return `Start PostgreSQL on ${target.host}:${target.port}, or point ${URL_OPTION} at the server that runs.`;
    case 'unknown-host':
    case 'unreachable':
      return `Check the host and port in ${URL_OPTION}, and that this machine can reach them.`;
    case 'timeout':
      return `Check that ${URL_OPTION} names a PostgreSQL server this machine can reach (a firewall that drops packets, or another service on the port, looks like this); raise ${TIMEOUT_OPTION} for a server that is slow to answer.`;
    case 'unknown-database':
      return `Create it (createdb ${target.database}), or name an existing database in ${URL_OPTION}.`;
    case 'auth':
      return `Fix the user and password in ${URL_OPTION} (and the server's pg_hba.conf rule for this host).`;
    case 'migrate-timeout':
      return `Look for a session holding the migration lock (pg_locks, locktype 'advisory'), raise ${TIMEOUT_OPTION}, or migrate ahead (SQL_JOBS_TABLE or JobsMigration1700000000000) and pass postgres.migrate: false.`;
    case 'migrate-failed':
      return `Grant user "${target.user ?? '?'}" what the migration needs (CREATE on the database and schema), or migrate ahead as an owner (SQL_JOBS_TABLE or JobsMigration1700000000000) and pass postgres.migrate: false.`;
    case 'schema-missing':
      return 'Migrate the schema first (boot the app once with postgres.migrate left on, or run SQL_JOBS_TABLE or JobsMigration1700000000000), or point postgres.schema (x: --schema) at the schema the tables live in.';
    default:
      return `Check ${URL_OPTION} and the server's log for the session.`;
  }
}

/**
 * The database cannot be used at boot: a malformed URL, a refused port, an unknown host or database, bad credentials,
 * a host that never answers, a migration that never finishes, no jobs tables where a boot told not to migrate looks. The message names the host, port and database (never the
 * password), and the fix names the option to change. Code `X_DRIVER_UNAVAILABLE`; `meta.reason` says which case.
 */
export class DatabaseUnreachableError extends JobsError {
  constructor(
    reason: DatabaseUnreachableReason,
    target: DatabaseTarget | undefined,
    options: {
      readonly timeoutMs?: number;
      readonly detail?: string;
      readonly cause?: unknown;
    } = {},
  ) {
    const where =
      target === undefined
        ? 'PostgreSQL'
        : `PostgreSQL at ${target.host}:${target.port}, database "${target.database}"`;
    const because =
      reason === 'url'
        ? `${URL_OPTION} is not a PostgreSQL URL`
        : `${where}: ${what(reason, target ?? UNKNOWN, options.timeoutMs ?? 0)}`;
    const detail = options.detail === undefined ? '' : ` (${options.detail})`;
    super('X_DRIVER_UNAVAILABLE', `${because}${detail}.`, {
      fix: fixFor(reason, target ?? UNKNOWN),
      ...(options.cause === undefined ? {} : { cause: options.cause }),
      meta: { reason, ...(target === undefined ? {} : { target: { ...target } }) },
    });
  }
}

const UNKNOWN: DatabaseTarget = { host: '?', port: 0, database: '?' };

/**
 * The connection dropped while an enqueue was on the wire: the row may or may not have committed. Code
 * `X_DRIVER_UNAVAILABLE`. Enqueueing again is safe — the idempotency key answers the row if it exists.
 */
export class DriverConnectionLostError extends JobsError {
  constructor(detail: string, cause?: unknown) {
    super(
      'X_DRIVER_UNAVAILABLE',
      `The connection to the database dropped while the enqueue was in flight (${detail}); the job may or may not be queued.`,
      {
        fix: 'Enqueue it again once the database is back: its idempotency key answers the existing run if the first one landed.',
        cause,
      },
    );
  }
}

/**
 * How a store out of reach failed a statement or command: `not-sent` when it certainly did not run, `lost` when the
 * connection dropped with it on the wire (it may have run). Each driver classifies its client's errors into these.
 */
export type ConnectionFailure = 'not-sent' | 'lost';

/**
 * A batch of settles (a worker's acks) did not reach the store: the database or Redis is out of reach, or its connection
 * dropped with the batch on the wire. Code `X_DRIVER_UNAVAILABLE`. Nothing is lost: each run sends its settle again
 * while its lease lasts, and a run whose lease lapses is rescued and run again.
 */
export class SettleUnavailableError extends JobsError {
  /**
   * @param store What was out of reach, as the message names it (`PostgreSQL`, `Redis`).
   * @param detail What the client said.
   * @param failure `not-sent` when the batch certainly was not written, `lost` when it may have been.
   * @param cause The client's error.
   */
  constructor(store: string, detail: string, failure: ConnectionFailure, cause: unknown) {
    const written = failure === 'lost' ? 'may or may not have been written' : 'were not written';
    super(
      'X_DRIVER_UNAVAILABLE',
      `${store} is out of reach (${detail}): the batch's settles ${written}.`,
      {
        fix: 'Nothing to do by hand: each run sends its settle again while its lease lasts, and a run whose lease lapses is rescued and run again.',
        cause,
      },
    );
  }
}

/**
 * The Redis server may evict keys under memory pressure (its `maxmemory-policy` is not `noeviction`), so the Redis
 * driver refuses it: a job whose row, index entry or claim token is evicted is lost without a trace. Code
 * `X_REDIS_EVICTION_POLICY`; `meta.maxmemoryPolicy` names the policy found.
 */
export class RedisEvictionPolicyError extends JobsError {
  constructor(policy: string) {
    super(
      'X_REDIS_EVICTION_POLICY',
      `Redis runs with maxmemory-policy ${policy}, so it may evict job keys; the Redis driver refuses to use it.`,
      {
        fix: 'Run CONFIG SET maxmemory-policy noeviction (and CONFIG REWRITE), or set maxmemory-policy noeviction in redis.conf; or give the jobs a Redis of their own.',
        meta: { maxmemoryPolicy: policy },
      },
    );
  }
}
