import { recordingLogger, type RecordingLogger, type WakeHandOff } from '@ultimat3/jobs';
import { frozenClock, type FrozenClock } from '@ultimat3/jobs/testing';
import { redisContext } from '../src/redis-context';
import { redisJobDriver, type RedisJobDriver } from '../src/redis-driver';
import { startHandOff, type RedisHandOff } from '../src/redis-hand-off';
import { redisKeyPrefix } from '../src/redis-keys';
import type { TestRedisSpec, WakeSlots } from './redis-spec';

/** A hand-off loop under test over the spec file's Redis, and what a test reads beside it. */
export interface HandOffRig {
  readonly clock: FrozenClock;
  /** Another process's driver (closed after the test, through the wake slots). */
  readonly other: RedisJobDriver;
  readonly logger: RecordingLogger;
  /** The queue's key (`<prefix>q:<length>:<queue>`): its registered workers are `${queueKey}:ho`. */
  readonly queueKey: string;
  /** Every unhandled rejection while the rig runs. */
  readonly rejections: unknown[];
  /** Starts the hand-off loop for `target`, over a context of its own on the test connection. */
  start(target: WakeHandOff): RedisHandOff;
  /** Stops the loop started, and stops listening for unhandled rejections. */
  stop(): Promise<void>;
}

/**
 * A fresh key prefix, a frozen clock, another process's driver on it (set into `open.other`) and a recording logger,
 * for a hand-off test on `queue`; unhandled rejections are recorded from now until {@link HandOffRig.stop}.
 */
export function handOffRig(file: TestRedisSpec, open: WakeSlots, queue: string): HandOffRig {
  const prefix = file.redis.prefix();
  const clock = frozenClock();
  const other = redisJobDriver({ client: file.redis.client, prefix, clock });
  open.other = other;
  const logger = recordingLogger();
  const p = redisKeyPrefix(prefix);
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown): void => void rejections.push(reason);
  process.on('unhandledRejection', onRejection);
  let loop: RedisHandOff | undefined;
  return {
    clock,
    other,
    logger,
    queueKey: `${p}q:${Buffer.byteLength(queue)}:${queue}`,
    rejections,
    start: (target) =>
      (loop = startHandOff(redisContext(file.redis.client, p, clock), target, logger)),
    stop: async () => {
      process.off('unhandledRejection', onRejection);
      await loop?.stop();
    },
  };
}
