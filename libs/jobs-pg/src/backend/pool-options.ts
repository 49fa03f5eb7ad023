import { InvariantError } from '@ultimat3/jobs';
import { within } from './within';

/** The pool's size when none is given (pg's own default). */
export const DEFAULT_POOL_SIZE = 10;

/** Connections kept open through a quiet spell when none is said (see {@link PoolShape.idleConnections}). */
export const DEFAULT_IDLE_CONNECTIONS = 1;

/**
 * How long a connection above the kept ones may sit idle before the pool closes it (pg's default is 10 s). A flood
 * opens connections as statements overlap, and each one opened costs its authentication and every statement planned
 * on it again (~35 ms of server and client CPU here) — paid in the middle of the flood, where a worker's claims and a
 * producer's commits queue behind it. Kept for a minute, the connections a busy spell opened meet the next one open:
 * 2,000 jobs at 500/s from four producers after ~15 s of other work, the jobs a claim took (not handed) started by
 * p99 64.7 / 92.7 / 77.7 / 92.7 ms with pg's 10 s and 17.2 / 11.6 / 16.3 / 17.8 with a minute (`pickup-trace.mjs`,
 * rounds 2 and 3 of two interleaved invocations each, 2026-12-06 12:13–12:19 UTC): most of the slower figure was the
 * flood's first 100 ms, every statement there waiting on connections being opened.
 */
export const POOL_IDLE_TIMEOUT_MS = 60_000;

/**
 * After how long idle a pooled connection's socket sends TCP keepalive probes. A connection kept open through a quiet
 * spell would otherwise be forgotten by a NAT or load balancer on the way (AWS's NAT gateway drops a mapping idle for
 * 350 s), and the next statement on it would hang until the kernel gave up on the socket.
 */
export const KEEPALIVE_DELAY_MS = 10_000;

/** The `pg.Client` options of a wake's LISTEN session (see {@link wakeClientOptions}). */
export interface WakeClientOptions {
  readonly connectionString: string;
  readonly application_name: string;
  readonly connectionTimeoutMillis: number;
  readonly keepAlive: boolean;
  readonly keepAliveInitialDelayMillis: number;
}

/**
 * The `pg.Client` options of a wake's LISTEN session on `url`: named `ultimat3-jobs-wake`, waiting at most
 * `connectTimeoutMs` to open, and kept alive by TCP probes like the pool's connections — a LISTEN session sends
 * nothing while it waits, so without them a NAT or load balancer on the way forgets it, and the notifications stop
 * with no error to re-dial on.
 */
export function wakeClientOptions(url: string, connectTimeoutMs: number): WakeClientOptions {
  return {
    connectionString: url,
    application_name: 'ultimat3-jobs-wake',
    connectionTimeoutMillis: connectTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  };
}

/** The pool's shape as the backend's URL source gives it. */
export interface PoolShape {
  /** The pool's size (default 10). */
  readonly poolSize?: number;
  /**
   * Connections the pool keeps open while nothing runs (default 1, at most `poolSize`), the first of them opened at
   * boot. Without one, every connection closes after a minute idle ({@link POOL_IDLE_TIMEOUT_MS}), and the first
   * statement after a quiet spell pays a new connection — its authentication, and every statement prepared on it
   * again (~35 ms against ~5 on a local server). 0 lets them all close.
   */
  readonly idleConnections?: number;
}

/**
 * The `pg.Pool` options {@link poolOptions} answers: declared here, not taken from `@types/pg`, so an app compiling
 * against this package's declarations needs no `pg` types of its own.
 */
export interface PgPoolOptions {
  readonly connectionString: string;
  readonly max: number;
  readonly min: number;
  readonly idleTimeoutMillis: number;
  readonly application_name: string;
  readonly connectionTimeoutMillis: number;
  readonly keepAlive: boolean;
  readonly keepAliveInitialDelayMillis: number;
  /**
   * An idle connection does not hold the event loop: a process that is done (a `web`-only script, a test that never
   * closed) ends by itself; a process with a long-running role is held by `JobsModule` instead.
   */
  readonly allowExitOnIdle: boolean;
}

function count(value: unknown, name: string, least: number, most: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < least || value > most) {
    throw new InvariantError(
      `postgres.${name} must be a whole number from ${least} to ${most}; got ${String(value)}.`,
      `Omit it for the default, or pass a number in that range.`,
    );
  }
  return value;
}

/**
 * The `pg.Pool` options of a backend built from `url`: its size and kept connections checked (`X_INVARIANT` before
 * anything connects), every connection named `ultimat3-jobs`, waiting at most `connectTimeoutMs` to open, kept alive
 * by TCP probes once idle, and never holding the process open while idle.
 */
export function poolOptions(
  url: string,
  shape: PoolShape,
  connectTimeoutMs: number,
): PgPoolOptions {
  const max = count(shape.poolSize ?? DEFAULT_POOL_SIZE, 'poolSize', 1, Number.MAX_SAFE_INTEGER);
  const min = count(
    shape.idleConnections ?? Math.min(DEFAULT_IDLE_CONNECTIONS, max),
    'idleConnections',
    0,
    max,
  );
  return {
    connectionString: url,
    max,
    min,
    idleTimeoutMillis: POOL_IDLE_TIMEOUT_MS,
    application_name: 'ultimat3-jobs',
    connectionTimeoutMillis: connectTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    allowExitOnIdle: true,
  };
}

/** A connection {@link openKept} holds: its statement, its release, and its `'error'` event while it is held. */
interface KeptClient {
  query(text: string): Promise<unknown>;
  release(destroy?: boolean): void;
  on?(event: 'error', listener: (error: Error) => void): unknown;
  off?(event: 'error', listener: (error: Error) => void): unknown;
}

/** The part of a `pg.Pool` {@link openKept} uses. */
interface Connecting {
  connect(): Promise<KeptClient>;
}

/**
 * A connection taken out of the pool with an `'error'` listener on it until it goes back: a pool listens only on its
 * idle connections, and one held here while the others connect, whose backend ends meanwhile (a restart, an admin's
 * `pg_terminate_backend`), would otherwise raise an `'error'` nobody hears: an uncaught exception, the process ended
 * at boot. A connection that failed so goes back destroyed.
 */
async function held(
  pool: Connecting,
): Promise<{ readonly client: KeptClient; release(destroy: boolean): void }> {
  const client = await pool.connect();
  let failed = false;
  const onError = (): void => {
    failed = true;
  };
  client.on?.('error', onError);
  return {
    client,
    release(destroy) {
      client.release(destroy || failed);
      client.off?.('error', onError);
    },
  };
}

/**
 * Opens the connections the pool keeps (`min`), sends each the `warm` text when given (see `keptWarmSql`), and hands
 * them back idle, so the first statement after the boot finds one whose backend has read its catalogs. A failure here
 * is not the boot's: the boot has just reached the database on a session of its own, a statement that finds no
 * connection opens one as it always does (and fails with its own error if it cannot), and a warm that failed leaves
 * its connection usable (the next statement merely plans cold). A warm unanswered within `timeoutMs` ends its
 * connection instead, so the boot stays bounded; so does a connection whose backend ended while it was held.
 */
export async function openKept(
  pool: Connecting,
  min: number,
  warm?: string,
  timeoutMs = 10_000,
): Promise<void> {
  const opened = await Promise.allSettled(Array.from({ length: min }, () => held(pool)));
  await Promise.all(
    opened.map(async (connection) => {
      if (connection.status !== 'fulfilled') return;
      const { client, release } = connection.value;
      if (warm === undefined) return release(false);
      // a failed warm counts as answered: its connection is usable
      const warmed = await within(
        client.query(warm).catch(() => undefined),
        timeoutMs,
      );
      release(!warmed.done);
    }),
  );
}
