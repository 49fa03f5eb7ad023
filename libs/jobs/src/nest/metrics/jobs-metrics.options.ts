import { InvariantError } from '../../errors/runtime-errors';
import type { MetricsRegistryLike } from './prom.peer';

/** `JobsModule.forRoot({ metrics })`: the series in prom-client, and where they are served. */
export interface JobsMetricsOptions {
  /**
   * The route of the scrape (default `'/metrics'`); `false` mounts none — the app serves `registry` itself (as
   * `@willsoto/nestjs-prometheus` does with its own controller).
   */
  readonly path?: string | false;
  /**
   * The registry the series are registered in (default prom-client's global `register`). Pass the app's to share it:
   * a series of ours already in it (a second app in one process, a test) is replaced, never registered twice.
   */
  readonly registry?: MetricsRegistryLike;
  /**
   * The `job_duration_seconds` buckets, in seconds and increasing (default 0.005 … 300: a no-op job to a five-minute
   * one); any other order is `X_INVARIANT` when the module is declared.
   */
  readonly durationBuckets?: readonly number[];
}

/** The default `job_duration_seconds` buckets. */
export const DEFAULT_DURATION_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
];

const REGISTRY_MEMBERS = ['metrics', 'getSingleMetric', 'removeSingleMetric'] as const;

/**
 * Checks `forRoot({ metrics })` when the module is declared; a bad field is `X_INVARIANT` naming it. Buckets must be
 * finite and strictly increasing: prom-client takes them as given, and counts an attempt in the first bucket at least
 * its length — so `[10, 1]` reported a 5 s attempt under `le="1"` with no error.
 */
export function assertMetricsOptions(options: JobsMetricsOptions): JobsMetricsOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvariantError(
      `JobsModule metrics must be an object (got ${String(options)}).`,
      "Pass metrics: { path: '/metrics' } (every field optional), or leave metrics out for none.",
    );
  }
  const { path, registry, durationBuckets } = options;
  if (path !== undefined && path !== false && (typeof path !== 'string' || path === '')) {
    throw new InvariantError(
      `JobsModule metrics.path must be a route or false (got ${JSON.stringify(path)}).`,
      "Pass e.g. path: '/metrics', or path: false to serve the registry yourself.",
    );
  }
  if (
    registry !== undefined &&
    (typeof registry !== 'object' ||
      registry === null ||
      REGISTRY_MEMBERS.some((m) => typeof registry[m] !== 'function'))
  ) {
    throw new InvariantError(
      'JobsModule metrics.registry must be a prom-client Registry.',
      'Pass new Registry() from prom-client (or its register), or leave registry out for the global one.',
    );
  }
  if (durationBuckets !== undefined && !increasingBounds(durationBuckets)) {
    throw new InvariantError(
      `JobsModule metrics.durationBuckets must be finite numbers of seconds in increasing order (got ${JSON.stringify(durationBuckets)}).`,
      'Pass e.g. durationBuckets: [0.1, 1, 10, 60], or leave it out for the defaults.',
    );
  }
  return options;
}

/** Whether `bounds` is a list of finite numbers, each above the one before (none: a count and a sum alone). */
function increasingBounds(bounds: unknown): boolean {
  return (
    Array.isArray(bounds) &&
    bounds.every(
      (b: unknown, i) =>
        typeof b === 'number' && Number.isFinite(b) && (i === 0 || b > (bounds[i - 1] as number)),
    )
  );
}
