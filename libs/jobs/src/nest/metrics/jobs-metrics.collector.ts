import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { JobsRuntime } from '../jobs.runtime';
import { outboxHostLookup } from '../outbox/outbox-host.lookup';
import { WorkerHost } from '../worker.host';
import { DEFAULT_DURATION_BUCKETS, type JobsMetricsOptions } from './jobs-metrics.options';
import { registerJobsSeries } from './jobs-metrics.series';
import { loadPromClient, type MetricsRegistryLike } from './prom.peer';
import { queueStatsCacheOf } from './queue-stats.cache';

/** The options `forRoot({ metrics })` was given. */
export const JOBS_METRICS_OPTIONS = Symbol('@ultimat3/jobs:metrics-options');

/**
 * The series of `forRoot({ metrics })` in prom-client: registered at module init (before any role starts), counted
 * from the worker's settles and every enqueue of this process, and the gauges read at scrape time from ONE cached
 * `stats()` (and, with `OutboxModule` imported, one cached outbox `backlog()`) — at most one statement a second each
 * per process, however many scrapers.
 */
@Injectable()
export class JobsMetricsCollector implements OnModuleInit {
  /** The registry the series live in: the app's, or prom-client's default. */
  registry: MetricsRegistryLike | undefined;

  constructor(
    private readonly runtime: JobsRuntime,
    private readonly worker: WorkerHost,
    @Inject(JOBS_METRICS_OPTIONS) private readonly options: JobsMetricsOptions,
    private readonly moduleRef: ModuleRef,
  ) {}

  onModuleInit(): void {
    const prom = loadPromClient();
    const registry = this.options.registry ?? prom.register;
    const { driver, clock } = this.runtime.config;
    const cache = queueStatsCacheOf(driver, clock);
    const outbox = outboxHostLookup(this.moduleRef);
    const sink = registerJobsSeries(
      prom,
      registry,
      {
        stats: () => cache.read(),
        busySlots: () => this.worker.stats()?.inFlight ?? 0,
        outboxBacklog: () => outbox()?.backlog(),
      },
      this.options.durationBuckets ?? DEFAULT_DURATION_BUCKETS,
    );
    this.runtime.addMetrics(sink);
    this.registry = registry;
  }
}
