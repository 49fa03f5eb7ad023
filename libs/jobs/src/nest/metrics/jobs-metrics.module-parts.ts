import type { Provider, Type } from '@nestjs/common';
import { JOBS_METRICS_OPTIONS, JobsMetricsCollector } from './jobs-metrics.collector';
import { jobsMetricsController } from './jobs-metrics.controller';
import { assertMetricsOptions, type JobsMetricsOptions } from './jobs-metrics.options';

/** The providers `forRoot({ metrics })` adds to `JobsModule`; bad options are `X_INVARIANT` here, at declaration. */
export function metricsProviders(options: JobsMetricsOptions): Provider[] {
  assertMetricsOptions(options);
  return [{ provide: JOBS_METRICS_OPTIONS, useValue: options }, JobsMetricsCollector];
}

/** The scrape controller `forRoot({ metrics })` mounts (none with `path: false`). */
export function metricsControllers(options: JobsMetricsOptions): Type<unknown>[] {
  assertMetricsOptions(options);
  const path = options.path ?? '/metrics';
  return path === false ? [] : [jobsMetricsController(path)];
}
