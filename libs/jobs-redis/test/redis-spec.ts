import { job, t, type EnqueueRequest, type JobHandle } from '@ultimat3/jobs';
import type { JobsHarness } from '@ultimat3/jobs/testing';
import type { RedisBackend } from '../src/redis-backend';
import type { RedisJobDriver } from '../src/redis-driver';
import { enqueueRequest } from '../../jobs/test/requests';
import { createTestRedis, type TestRedis } from './test-redis';

/** A spec file's {@link TestRedis}. */
export interface TestRedisSpec {
  /** The file's connection and key namespace (from `beforeAll` on). */
  readonly redis: TestRedis;
}

/**
 * Registers a `beforeAll` that connects the spec file to the test server ({@link createTestRedis}) and an `afterAll`
 * that deletes its keys and disconnects. Call at the top of the spec file.
 */
export function testRedisSpec(): TestRedisSpec {
  let redis: TestRedis | undefined;
  beforeAll(() => {
    redis = createTestRedis();
  });
  afterAll(async () => {
    await redis?.drop();
  });
  return {
    get redis() {
      if (redis === undefined) throw new Error('testRedisSpec: redis is connected in beforeAll');
      return redis;
    },
  };
}

/** A job that records what it ran, and the requests another process would send for it. */
export interface CountingJob {
  readonly job: JobHandle<{ n: number }, { n: number }, void>;
  /** Each run's `n`, in the order they ran. */
  readonly ran: number[];
  /** An enqueue request for job `n` due at `runAt`, as another process would send it (a fresh id). */
  request(n: number, runAt: number): EnqueueRequest;
}

/** A job `name` on `queue` whose body records its input's `n` (idempotency key `n:<n>`, 3 attempts). */
export function countingJob(name: string, queue: string): CountingJob {
  const ran: number[] = [];
  return {
    ran,
    job: job({
      name,
      queue,
      input: t.object({ n: t.number }),
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: ({ input }) => {
        ran.push(input.n);
      },
    }),
    request: (n, runAt) =>
      enqueueRequest({ name, queue, input: { n }, idempotencyKey: `n:${n}`, runAt }),
  };
}

/** What a Redis wake test opens; each is closed after the test. */
export interface WakeSlots {
  /** The wake listener's stop (`backend.startWake(worker).stop`, `driver.wake.listen(…)`). */
  stopWake?: () => Promise<void>;
  /** The worker's harness. */
  h?: JobsHarness;
  /** The worker's backend. */
  backend?: RedisBackend;
  /** Another process's driver. */
  other?: RedisJobDriver;
}

/**
 * Registers an `afterEach` that stops the wake, then closes the harness, the backend and the other driver, whichever
 * the test set, and clears them. Call at the top of the `describe`; set the slots inside the tests.
 */
export function wakeSlots(): WakeSlots {
  const slots: WakeSlots = {};
  afterEach(async () => {
    const { stopWake, h, backend, other } = slots;
    for (const key of Object.keys(slots)) delete slots[key as keyof WakeSlots];
    await stopWake?.();
    await h?.close();
    await backend?.close();
    await other?.close();
  });
  return slots;
}

/** Lets replies already on the wire land (the frozen clock fires timers; Redis answers in real time). */
export const io = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 15));
