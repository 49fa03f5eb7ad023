import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { systemClock, type Clock } from '../util/clock';
import { silentLogger, type JobsLogger } from '../util/logger';
import {
  assertWorkerTimings,
  DEFAULT_VISIBILITY_TIMEOUT_MS,
  POLL_INTERVAL_MS,
  type JobWorkerOptions,
} from './worker-options';

/** A worker's settings: its options with their defaults applied, its timings checked. */
export interface WorkerSettings {
  /** The worker id: `workerId`, or `host:pid:` and 8 random hex digits. */
  readonly id: string;
  readonly clock: Clock;
  readonly logger: JobsLogger;
  readonly visibilityTimeoutMs: number;
  /** `heartbeatIntervalMs`, or a third of the visibility timeout. */
  readonly heartbeatIntervalMs: number;
  /** The poll interval while there is work (`pollIntervalMs`): the floor the idle wait doubles from. */
  readonly floorMs: number;
}

/** The settings of a worker built with `options`; refuses timings it cannot keep (`X_INVARIANT`). */
export function workerSettings(options: JobWorkerOptions): WorkerSettings {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const id = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const visibilityTimeoutMs = options.visibilityTimeoutMs ?? DEFAULT_VISIBILITY_TIMEOUT_MS;
  const heartbeatIntervalMs =
    options.heartbeatIntervalMs ?? Math.max(1, Math.floor(visibilityTimeoutMs / 3));
  const floorMs = options.pollIntervalMs ?? POLL_INTERVAL_MS;
  assertWorkerTimings(visibilityTimeoutMs, heartbeatIntervalMs, floorMs);
  return { id, clock, logger, visibilityTimeoutMs, heartbeatIntervalMs, floorMs };
}
