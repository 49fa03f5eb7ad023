import {
  assertEnqueueRequest,
  assertEnqueueRequests,
  checkedIntrospection,
  type ClaimAndRescueResult,
  type ClaimOptions,
  type Clock,
  type EnqueueRequest,
  type JobDriver,
  type JobIntrospection,
  type LeaseStore,
  type RescueRequest,
  type SchedulerState,
} from '@ultimat3/jobs';
import type { Cluster, Redis } from 'ioredis';
import { claimRows, rescueLapsed } from './redis-claim';
import { RescueCursors } from './redis-rescue-cursors';
import { clientOf, closeOwnedClient, type RedisConnectionOptions } from './redis-client';
import { redisContext, type RedisContext } from './redis-context';
import { redisWorkerRegistry } from './redis-counters';
import { enqueueRow, enqueueRows } from './redis-enqueue';
import { mapConnectionFailures, settleFailure } from './redis-failures';
import { redisIntrospection } from './redis-introspect';
import { redisLeases } from './redis-leases';
import { redisKeyPrefix } from './redis-keys';
import { toJobRow } from './redis-rows';
import { ackRows, heartbeatRow, nackRow, recordProgressRow } from './redis-settle';
import { redisPurgeTargets } from './redis-purge';
import { redisSchedulerState } from './redis-scheduler-state';
import { queueStats } from './redis-stats';
import { redisSteps } from './redis-steps';
import { redisWake, type RedisWake } from './redis-wake';
import type { ScriptName } from './redis-scripts';

/** The driver's own scripts that can make rows waiting: each makes the wake's recorded idle queues stale at once. */
const WAKING: ReadonlySet<ScriptName> = new Set([
  'enqueue',
  'nack',
  'requeue',
  'promote',
  'requeueMany',
  'promoteMany',
  'schedulerFire',
]);

/** Options of {@link redisJobDriver}: a `client` the caller owns, or a `url` the driver connects to and closes. */
export interface RedisJobDriverOptions extends RedisConnectionOptions {
  /**
   * The deployment's name (default `jobs`): every key is `{<prefix>}:…`, one hash tag, so all of them live in one
   * Redis Cluster slot and every script is Cluster-legal. Two prefixes on one server are two deployments that never
   * see each other's jobs. No braces.
   */
  readonly prefix?: string;
  /**
   * FOR TESTS ONLY. Absent (the default), every script reads the Redis server's `TIME`, so one clock decides for every
   * process and a worker's skewed clock never does; a test passes a frozen clock to drive time, and its reading is
   * then sent with every script instead.
   */
  readonly clock?: Clock;
}

/** The Redis driver: a {@link JobDriver} that always carries the operator surface and the lease store. */
export interface RedisJobDriver extends JobDriver {
  /** Always `'redis'`. */
  readonly kind: 'redis';
  /** The operator surface (list, cancel, requeue, pause, counters, …). */
  readonly introspect: JobIntrospection;
  /** The fleet lease store: keyed concurrency caps and the scheduler's leader election take their leases here. */
  readonly leases: LeaseStore;
  /** Rescues the slots' lapsed leases and claims, in one round trip (see `JobDriver.claimRescuing`). */
  claimRescuing(options: ClaimOptions, rescue: RescueRequest): Promise<ClaimAndRescueResult>;
  /**
   * The scheduler's durable state on the same Redis and hash tag (a fire enqueues its rows in the same script that
   * moves its watermark); `JobsModule` picks it up as the driver's own, and elects its leader through `leases`.
   */
  readonly schedulerState: SchedulerState;
  /**
   * The cross-process wake (a sharded-channel subscription, started by the first `listen`): tells a worker of every
   * queue announced, and while it is live lets an idle worker's claims skip Redis (see {@link RedisWake}).
   * `redisBackend().startWake` hands it to the worker.
   */
  readonly wake: RedisWake;
}

/** The driver's enqueue and enqueueMany: the value contract first, then the scripts, a connection failure mapped. */
function enqueueEntry(
  client: Redis | Cluster,
  ctx: RedisContext,
): Pick<RedisJobDriver, 'enqueue' | 'enqueueMany'> {
  // Redis out of reach is X_DRIVER_UNAVAILABLE to the caller, never a raw ioredis error
  const enqueue = mapConnectionFailures(client, (requests: readonly EnqueueRequest[]) =>
    enqueueRows(ctx, requests),
  );
  const enqueueOne = mapConnectionFailures(client, (request: EnqueueRequest) =>
    enqueueRow(ctx, request),
  );
  return {
    // the value contract before any script: refused alike on every driver
    enqueue(request) {
      try {
        assertEnqueueRequest(request);
      } catch (error) {
        return Promise.reject(error as Error);
      }
      // one request, no batch around it: no array, no async frame of its own between the check and the script
      return enqueueOne(request);
    },
    async enqueueMany(requests) {
      assertEnqueueRequests(requests);
      return requests.length === 0 ? [] : enqueue(requests);
    },
  };
}

/**
 * The Redis job driver on ioredis. Every operation that reads or moves a row is one Lua script (`src/lua/*.lua.ts`),
 * atomic on the server, sent by EVALSHA and re-sent on NOSCRIPT; claim, ack, nack, heartbeat, progress and step writes
 * are fenced on the claim token exactly as on PostgreSQL; time is the server's `TIME` (see
 * {@link RedisJobDriverOptions.clock}). It runs `jobDriverConformance` (see its spec for which suites).
 */
export function redisJobDriver(options: RedisJobDriverOptions): RedisJobDriver {
  // a call without options is refused as one without client or url, not a TypeError
  const prefix = redisKeyPrefix((options as RedisJobDriverOptions | undefined)?.prefix ?? 'jobs');
  const { client, owned } = clientOf(options);
  const wake = redisWake(client, prefix, options.clock);
  const ctx = redisContext(client, prefix, options.clock, (name) => {
    if (WAKING.has(name)) wake.touch();
  });
  const entry = enqueueEntry(client, ctx);
  let closing: Promise<void> | undefined;
  // where each queue's next rescue reads its lapsed leases: past the rows of names this driver's workers do not serve
  const cursors = new RescueCursors();

  return {
    kind: 'redis',
    enqueue: entry.enqueue,
    enqueueMany: entry.enqueueMany,
    claim: async (claimOptions) => (await claimRows(ctx, claimOptions, undefined, wake)).claimed,
    claimRescuing: (claimOptions, rescue) =>
      claimRows(ctx, claimOptions, { request: rescue, cursors }, wake),
    async rescue(rescueOptions) {
      const buried = await rescueLapsed(ctx, rescueOptions, cursors);
      // the rows it made waiting are announced on the channel by the script; this driver's own idle claims must not
      // wait for that message to come back
      wake.touch();
      return { buried };
    },
    async ack(jobId, ackOptions) {
      const [landed] = await ackRows(ctx, [{ ...ackOptions, jobId }]);
      return landed === true;
    },
    // Redis out of reach fails the whole batch, coded: the worker does not resend it ack by ack into the outage
    ackMany: (items) =>
      ackRows(ctx, items).catch((error: unknown) => {
        throw settleFailure(error);
      }),
    nack: (jobId, nackOptions) => nackRow(ctx, jobId, nackOptions),
    heartbeat: (jobId, claim, visibilityTimeoutMs) =>
      heartbeatRow(ctx, jobId, claim, visibilityTimeoutMs),
    recordProgress: (jobId, claim, progress) => recordProgressRow(ctx, jobId, claim, progress),
    stats: () => queueStats(ctx),
    async ping() {
      await client.ping();
    },
    async get(jobId) {
      return toJobRow(
        await client.hgetall(`${prefix}j:${jobId}`).then((h) => Object.entries(h).flat()),
      );
    },
    steps: redisSteps(ctx),
    introspect: checkedIntrospection(redisIntrospection(ctx, () => wake.touch())),
    leases: redisLeases(ctx),
    workerRegistry: redisWorkerRegistry(ctx),
    schedulerState: redisSchedulerState(ctx),
    purgeTargets: (policy) => redisPurgeTargets(ctx, policy),
    wake,
    close() {
      closing ??= wake.close().then(() => (owned ? closeOwnedClient(client) : undefined));
      return closing;
    },
  };
}
