import {
  InvariantError,
  JobsError,
  type BackendCapabilities,
  type BackendWakeTarget,
  type Clock,
  type EventBus,
  type JobsBackend,
  type JobsLogger,
  type SchedulerState,
} from '@ultimat3/jobs';
import {
  clientOf,
  closeOwnedClient,
  endOwnedClient,
  type RedisConnectionOptions,
} from './redis-client';
import { redisJobDriver, type RedisJobDriver, type RedisJobDriverOptions } from './redis-driver';
import { redisBackfillLedger } from './redis-backfill-ledger';
import { redisEventBus } from './redis-event-bus';
import { redisContext } from './redis-context';
import { startHandOff } from './redis-hand-off';
import { redisKeyPrefix } from './redis-keys';
import { assertNoEviction } from './redis-server-check';

/** Options of {@link redisBackend}. */
export interface RedisBackendOptions extends RedisConnectionOptions {
  /** The deployment's name (default `jobs`): see `RedisJobDriverOptions.prefix`. */
  readonly prefix?: string;
  /** FOR TESTS ONLY: see `RedisJobDriverOptions.clock`. */
  readonly clock?: Clock;
  /** How long each of the boot's answers from Redis (its PING, then its policy check) may take (default 10,000 ms). */
  readonly connectTimeoutMs?: number;
}

/**
 * Everything the module runs on one Redis: the driver (with its lease store, operator surface and scheduler state) and
 * the event bus, on one client and one hash tag; `close()` closes the driver and quits a client it opened. The same
 * shape as the `JobsBackend` `JobsModule` builds for `driver: 'postgres'`.
 */
export interface RedisBackend extends JobsBackend {
  /** The Redis driver. */
  readonly driver: RedisJobDriver;
  /** The event bus, on the same client and hash tag. */
  readonly events: EventBus;
  /** Watermarks, fires and pauses under the deployment's hash tag (the same object as the driver's). */
  readonly schedulerState: SchedulerState;
  /**
   * Starts the cross-process wake for a worker (its `signalEnqueued` / `setWakeLive`): one subscriber connection per
   * backend, proven by a probe; the worker's poll stays the guarantee. A target with a `handOff` (a `jobWorker`) also
   * gets the hand-off (`redis-hand-off.ts`): while idle it is registered and blocks on a list of its own, onto which
   * another process's enqueue of a row due now pushes that row already claimed for it. The shape
   * `JobsBackend.startWake` has; its stop deregisters the worker and hands back what it was handed and did not take.
   */
  startWake(target: BackendWakeTarget, logger?: JobsLogger): { stop(): Promise<void> };
  /** Closes the driver, then quits a client the backend opened (never one the caller handed it). */
  close(): Promise<void>;
}

/**
 * Rejects when `work` has not settled after `ms`; the timer never outlives it. `lastError` is read when the bound
 * passes: the connection's last failure, said beside the bound (a refused connection is retried until then).
 */
async function within<T>(
  work: Promise<T>,
  ms: number,
  what: string,
  lastError: () => Error | undefined,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const last = lastError();
      const why = last === undefined ? '' : `; its connection's last failure: ${last.message}`;
      reject(new Error(`${what} did not answer within ${ms} ms${why}`));
    }, ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The longest delay a Node timer keeps (2^31-1 ms): a longer one fires after 1 ms. */
const LONGEST_TIMER_MS = 2_147_483_647;

/** `connectTimeoutMs`, checked: a positive number of milliseconds (default 10 000), at most what a timer can wait. */
function connectTimeoutOf(ms: number | undefined): number {
  if (ms === undefined) return 10_000;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0 || ms > LONGEST_TIMER_MS) {
    throw new InvariantError(
      `redis connectTimeoutMs must be a positive number of milliseconds, at most ${LONGEST_TIMER_MS}.`,
      'Omit connectTimeoutMs for the default (10000 ms), or pass e.g. 5_000.',
    );
  }
  return ms;
}

/**
 * Opens the Redis backend and proves it before anything runs on it: the server answers (the PING, then the check of its
 * policy, each within `connectTimeoutMs`), and will not evict keys (`maxmemory-policy noeviction`). A boot that fails
 * is `X_DRIVER_UNAVAILABLE` (out of reach, or silent past a bound) or `X_REDIS_EVICTION_POLICY`, each with the fix, and
 * a client it opened is closed again.
 */
export async function redisBackend(options: RedisBackendOptions): Promise<RedisBackend> {
  // checked first: a bad one is refused before anything connects (a timer past 2^31-1 ms would fire at once)
  const ms = connectTimeoutOf((options as RedisBackendOptions | undefined)?.connectTimeoutMs);
  // the deployment whose server is checked (on a Cluster: the master owning its slot); a bad name before connecting
  const prefix = redisKeyPrefix((options as RedisBackendOptions | undefined)?.prefix ?? 'jobs');
  const { client, owned } = clientOf(options, 'redisBackend');
  // the client retries a refused or dropped connection until the bound: its last failure is what the boot says
  let lastError: Error | undefined;
  const onError = (error: Error): void => {
    lastError = error;
  };
  client.on('error', onError);
  try {
    await within(client.ping(), ms, 'Redis', () => lastError);
    // bounded too: a server that answered the PING and went silent would hold the boot forever (no command timeout)
    await within(assertNoEviction(client, prefix), ms, 'Redis', () => lastError);
  } catch (error) {
    client.off('error', onError);
    if (owned) await endOwnedClient(client);
    if (error instanceof JobsError) throw error;
    // a plain coded error, not DriverUnavailableError: that one is an enqueue's ("the job was not queued")
    throw new JobsError(
      'X_DRIVER_UNAVAILABLE',
      `Redis is out of reach at boot (${error instanceof Error ? error.message : String(error)}).`,
      {
        fix: 'Check redis.url (and that redis-server runs and accepts connections from here), or raise connectTimeoutMs.',
        cause: error,
      },
    );
  }
  client.off('error', onError);
  const backend = redisBackendOver({ client, prefix: options.prefix, clock: options.clock });
  return {
    ...backend,
    async close() {
      await backend.close();
      if (owned) await closeOwnedClient(client);
    },
  };
}

/** What the Redis backend declares: everything, the hand-off included. */
export const REDIS_CAPABILITIES: BackendCapabilities = {
  steps: true,
  events: true,
  leases: true,
  introspection: true,
  schedulerState: true,
  leader: true,
  wake: true,
  batchAck: true,
  handOff: true,
};

/**
 * The Redis backend over a client the caller owns, with no boot check: the driver (with its lease store, operator
 * surface and scheduler state), the event bus and the wake, on one client and one hash tag. `close()` closes the
 * driver, never the client. What {@link redisBackend} builds on, and what a test over a shared server uses.
 */
export function redisBackendOver(options: {
  readonly client: NonNullable<RedisJobDriverOptions['client']>;
  readonly prefix?: string;
  readonly clock?: Clock;
}): RedisBackend {
  const { client, prefix, clock } = options;
  const driver = redisJobDriver({ client, prefix, clock });
  // the hand-offs' scripts and keys: the driver's prefix and clock, on the same client
  let context: ReturnType<typeof redisContext> | undefined;
  const handOffContext = (): ReturnType<typeof redisContext> =>
    (context ??= redisContext(client, redisKeyPrefix(prefix ?? 'jobs'), clock));
  return {
    kind: driver.kind,
    driver,
    capabilities: REDIS_CAPABILITIES,
    events: redisEventBus({ client, prefix, clock }),
    schedulerState: driver.schedulerState,
    backfills: redisBackfillLedger({ client, ...(prefix === undefined ? {} : { prefix }) }),
    startWake(target, logger) {
      const stopWake = driver.wake.listen(target);
      const handOff =
        target.handOff === undefined
          ? undefined
          : startHandOff(handOffContext(), target.handOff, logger);
      return {
        async stop() {
          await handOff?.stop();
          await stopWake();
        },
      };
    },
    close: () => driver.close(),
  };
}
