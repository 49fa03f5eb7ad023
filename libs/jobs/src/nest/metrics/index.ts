export type { JobsMetricsOptions } from './jobs-metrics.options';
export { DEFAULT_DURATION_BUCKETS } from './jobs-metrics.options';
export type { MetricsRegistryLike } from './prom.peer';
export { QUEUE_STATS_MAX_AGE_MS } from './queue-stats.cache';
