import type { QueueStats } from '../../driver/job-driver';
import type { OutboxBacklog } from '../../outbox/outbox-store';
import type { JobMetrics } from '../../runtime/metrics';
import type { MetricsRegistryLike, PromClientPackage, PromGaugeLike } from './prom.peer';

/** What the scrape-time gauges read: the cached stats statement, this process's worker, the cached outbox backlog. */
export interface JobsMetricsReadings {
  stats(): Promise<readonly QueueStats[]>;
  busySlots(): number;
  /** The outbox's backlog, or `undefined` in an app without `OutboxModule` (the gauge is then empty). */
  outboxBacklog(): Promise<OutboxBacklog> | undefined;
}

/** A gauge per queue, read from one stats() answer at scrape time. */
const QUEUE_GAUGES: readonly [string, string, (q: QueueStats) => number][] = [
  [
    'queue_depth',
    'Rows waiting to run (state ready) per queue: the autoscaler signal.',
    (q) => q.ready,
  ],
  [
    'queue_oldest_ready_seconds',
    'How long the oldest due ready row of the queue has waited, in seconds (0 when none).',
    (q) => q.oldestReadyMs / 1_000,
  ],
  ['queue_dead_jobs', 'Dead-lettered rows per queue (a level, not a rate).', (q) => q.dead],
];

/**
 * Registers every series in `registry` — replacing a series of the same name already there, so a second module in one
 * process (or a test) never fails on a duplicate — and answers the sink the worker and the enqueue path count into.
 */
export function registerJobsSeries(
  prom: PromClientPackage,
  registry: MetricsRegistryLike,
  readings: JobsMetricsReadings,
  durationBuckets: readonly number[],
): JobMetrics {
  const registers = [registry];
  const sink = registerCountedSeries(prom, registry, registers, durationBuckets);
  registerScrapedGauges(prom, registry, registers, readings);
  return sink;
}

/** `name`, once any series of that name already in `registry` is removed. */
function fresh(registry: MetricsRegistryLike, name: string): string {
  if (registry.getSingleMetric(name) !== undefined) registry.removeSingleMetric(name);
  return name;
}

/** Registers the series the worker and the enqueue path count into, and answers the sink that counts into them. */
function registerCountedSeries(
  prom: PromClientPackage,
  registry: MetricsRegistryLike,
  registers: readonly MetricsRegistryLike[],
  durationBuckets: readonly number[],
): JobMetrics {
  const total = new prom.Counter({
    name: fresh(registry, 'jobs_total'),
    help: 'Attempts that ended a run, by queue and outcome (ok, failed, dead).',
    labelNames: ['queue', 'outcome'],
    registers,
  });
  const leasesLost = new prom.Counter({
    name: fresh(registry, 'job_leases_lost_total'),
    help: 'Runs whose lease another claim took while they ran (their settle was refused), by queue.',
    labelNames: ['queue'],
    registers,
  });
  const enqueued = new prom.Counter({
    name: fresh(registry, 'jobs_enqueued_total'),
    help: 'Rows this process enqueued (a deduplicated enqueue adds none), by queue.',
    labelNames: ['queue'],
    registers,
  });
  const duration = new prom.Histogram({
    name: fresh(registry, 'job_duration_seconds'),
    help: 'How long one attempt ran, from its start to its settle, in seconds, by queue.',
    labelNames: ['queue'],
    buckets: durationBuckets,
    registers,
  });
  return {
    jobsTotal: (queue, outcome) => total.inc({ queue, outcome }),
    leaseLost: (queue) => leasesLost.inc({ queue }),
    jobDuration: (queue, seconds) => duration.observe({ queue }, seconds),
    enqueued: (queue, rows) => enqueued.inc({ queue }, rows),
  };
}

/** Registers the gauges read at scrape time: the per-queue ones, the worker's busy slots, the outbox's lag. */
function registerScrapedGauges(
  prom: PromClientPackage,
  registry: MetricsRegistryLike,
  registers: readonly MetricsRegistryLike[],
  readings: JobsMetricsReadings,
): void {
  for (const [name, help, value] of QUEUE_GAUGES) {
    new prom.Gauge({
      name: fresh(registry, name),
      help,
      labelNames: ['queue'],
      registers,
      async collect(this: PromGaugeLike) {
        // one statement a second for every gauge and scrape together; out of reach, the gauges are empty
        const stats = await readings.stats().catch(() => undefined);
        this.reset();
        for (const q of stats ?? []) this.set({ queue: q.queue }, value(q));
      },
    });
  }
  new prom.Gauge({
    name: fresh(registry, 'worker_slots_busy'),
    help: "Run slots of this process's worker holding a run now.",
    registers,
    collect(this: PromGaugeLike) {
      this.set(readings.busySlots());
    },
  });
  new prom.Gauge({
    name: fresh(registry, 'outbox_lag_seconds'),
    help: 'How long the oldest staged, unpublished, unquarantined outbox row has waited, in seconds (0 when none).',
    registers,
    async collect(this: PromGaugeLike) {
      // one statement a second, shared with the health check; no outbox or out of reach, the gauge is empty
      const backlog = await readings.outboxBacklog()?.catch(() => undefined);
      if (backlog !== undefined) this.set(backlog.oldestAgeMs / 1_000);
      else this.remove(); // never a 0 that reads as "no lag"
    },
  });
}
