import { InvariantError } from '../../errors/runtime-errors';

/** What an app declares about one queue: past either bound the process reports not ready. */
export interface JobsQueueThresholds {
  /** The oldest due ready row may wait at most this long, in ms (default: unchecked). */
  readonly maxOldestReadyMs?: number;
  /** At most this many dead-lettered rows (default: unchecked). */
  readonly maxDead?: number;
}

/** Options of `JobsHealthModule.forRoot()` and of the probes `JobsHealthIndicator` runs. */
export interface JobsHealthOptions {
  /**
   * Mount `GET <path>/live` and `GET <path>/ready` (Terminus' JSON, 503 when down), e.g. `'health'` (default: no
   * controller — call `JobsHealthIndicator` from your own `HealthCheckService.check([...])`).
   */
  readonly path?: string;
  /** How long the driver's ping may take before readiness says down, in ms (default 2 000). */
  readonly pingTimeoutMs?: number;
  /**
   * How long the worker's claim loop may go without a pass while it has a free slot before liveness says down, in ms
   * (default 60 000: twelve idle ceilings; a worker whose every slot is busy is alive however long its runs take).
   */
  readonly loopStaleMs?: number;
  /** Per-queue bounds, read from ONE `stats()` shared with the metrics (at most one a second). */
  readonly queues?: Readonly<Record<string, JobsQueueThresholds>>;
}

/** The options with every default filled in. */
export interface ResolvedJobsHealthOptions {
  readonly pingTimeoutMs: number;
  readonly loopStaleMs: number;
  readonly queues: Readonly<Record<string, JobsQueueThresholds>>;
}

/** The default bound of the driver's ping (2 000 ms). */
export const DEFAULT_PING_TIMEOUT_MS = 2_000;
/** The default bound of the claim loop's silence (60 000 ms). */
export const DEFAULT_LOOP_STALE_MS = 60_000;

/** Fills in the defaults; a bound that is not a whole number of at least 1 (0 for `maxDead`) is `X_INVARIANT`. */
export function resolveJobsHealthOptions(
  options: JobsHealthOptions = {},
): ResolvedJobsHealthOptions {
  const bounds: [string, number | undefined, number][] = [
    ['pingTimeoutMs', options.pingTimeoutMs, 1],
    ['loopStaleMs', options.loopStaleMs, 1],
    ...Object.entries(options.queues ?? {}).flatMap(
      ([queue, t]): [string, number | undefined, number][] => [
        [`queues.${queue}.maxOldestReadyMs`, t.maxOldestReadyMs, 1],
        [`queues.${queue}.maxDead`, t.maxDead, 0],
      ],
    ),
  ];
  for (const [field, value, min] of bounds) {
    if (value !== undefined && (!Number.isInteger(value) || value < min))
      throw new InvariantError(
        `JobsHealthModule: ${field} must be a whole number of at least ${min} (got ${value}).`,
        `Pass a whole number of at least ${min}, or leave ${field} out.`,
      );
  }
  return {
    pingTimeoutMs: options.pingTimeoutMs ?? DEFAULT_PING_TIMEOUT_MS,
    loopStaleMs: options.loopStaleMs ?? DEFAULT_LOOP_STALE_MS,
    queues: options.queues ?? {},
  };
}
