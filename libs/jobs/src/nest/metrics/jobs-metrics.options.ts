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
  /** The `job_duration_seconds` buckets, in seconds (default 0.005 … 300: a no-op job to a five-minute one). */
  readonly durationBuckets?: readonly number[];
}

/** The default `job_duration_seconds` buckets. */
export const DEFAULT_DURATION_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
];
