import { InvariantError } from '../../errors/runtime-errors';

/** What an app declares about one queue: past either bound the process reports not ready. */
export interface JobsQueueThresholds {
  /** The oldest due ready row may wait at most this long, in ms (default: unchecked). */
  readonly maxOldestReadyMs?: number;
  /** At most this many dead-lettered rows (default: unchecked). */
  readonly maxDead?: number;
}

/** What an app declares about the outbox relay's backlog: past it the process reports not ready (check `outbox`). */
export interface JobsOutboxThresholds {
  /**
   * The oldest staged, unpublished, unquarantined row may wait at most this long, in ms (default
   * {@link DEFAULT_OUTBOX_MAX_LAG_MS}, 300 000: five minutes).
   */
  readonly maxLagMs?: number;
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
  /**
   * The relay's backlog age, read from ONE `backlog()` shared with `outbox_lag_seconds` (at most one a second).
   * Left out, a process holding the `relay` role checks it against the default bound; declared (`{}` or
   * `{ maxLagMs }`), any process checks it (`OutboxModule` must be imported); `false` checks it nowhere.
   */
  readonly outbox?: JobsOutboxThresholds | false;
}

/** The options with every default filled in. */
export interface ResolvedJobsHealthOptions {
  readonly pingTimeoutMs: number;
  readonly loopStaleMs: number;
  readonly queues: Readonly<Record<string, JobsQueueThresholds>>;
  /** The backlog bound, and where it applies: `relay` (the default: processes holding the role), `any`, or off. */
  readonly outbox: { readonly maxLagMs: number; readonly where: 'relay' | 'any' } | false;
}

/** The default bound of the driver's ping (2 000 ms). */
export const DEFAULT_PING_TIMEOUT_MS = 2_000;
/** The default bound of the claim loop's silence (60 000 ms). */
export const DEFAULT_LOOP_STALE_MS = 60_000;
/** The default bound of the outbox backlog's age (300 000 ms). */
export const DEFAULT_OUTBOX_MAX_LAG_MS = 300_000;

/** Whether `value` is a plain object (not null, not a list). */
const isRecord = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Refuses what is not the shape of {@link JobsHealthOptions} (`X_INVARIANT` naming the field), where a `queues` entry
 * of `null` or a `path` of another type failed with a bare `TypeError` at declaration or mounted a route nobody meant.
 */
function assertHealthShape(options: JobsHealthOptions): void {
  const wrong = (field: string, want: string): InvariantError =>
    new InvariantError(
      `JobsHealthModule: ${field} must be ${want}.`,
      `Pass ${want}, or leave ${field} out.`,
    );
  if (!isRecord(options)) throw wrong('the options', 'an object');
  if (options.path !== undefined && typeof options.path !== 'string')
    throw wrong('path', "a route such as 'health'");
  if (options.outbox !== undefined && options.outbox !== false && !isRecord(options.outbox))
    throw wrong('outbox', '{ maxLagMs } or false');
  if (options.queues === undefined) return;
  if (!isRecord(options.queues)) throw wrong('queues', 'an object of thresholds by queue name');
  for (const [queue, thresholds] of Object.entries(options.queues))
    if (!isRecord(thresholds)) throw wrong(`queues.${queue}`, '{ maxOldestReadyMs, maxDead }');
}

/** Fills in the defaults; a bound that is not a whole number of at least 1 (0 for `maxDead`) is `X_INVARIANT`. */
export function resolveJobsHealthOptions(
  options: JobsHealthOptions = {},
): ResolvedJobsHealthOptions {
  assertHealthShape(options);
  const bounds: [string, number | undefined, number][] = [
    ['pingTimeoutMs', options.pingTimeoutMs, 1],
    ['loopStaleMs', options.loopStaleMs, 1],
    ['outbox.maxLagMs', options.outbox === false ? undefined : options.outbox?.maxLagMs, 1],
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
    outbox:
      options.outbox === false
        ? false
        : {
            maxLagMs: options.outbox?.maxLagMs ?? DEFAULT_OUTBOX_MAX_LAG_MS,
            where: options.outbox === undefined ? 'relay' : 'any',
          },
  };
}
