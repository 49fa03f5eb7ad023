/** The outcome label of `jobs_total`. */
export type JobsTotalOutcome = 'ok' | 'failed' | 'dead';

/**
 * What a worker counts, when one is handed to it (`jobWorker({ metrics })`; `JobsModule` hands it the sink of
 * `forRoot({ metrics })`, which keeps them in prom-client). The method docs name the Prometheus series a sink keeps.
 */
export interface JobMetrics {
  /** `jobs_total{queue,outcome}`: an attempt ended the job (or a retry: `failed` counts each failed attempt). */
  jobsTotal(queue: string, outcome: JobsTotalOutcome): void;
  /** `job_leases_lost_total{queue}`. */
  leaseLost(queue: string): void;
  /** `job_duration_seconds{queue}`: one attempt's run, from its start to its settle. */
  jobDuration?(queue: string, seconds: number): void;
  /** `jobs_enqueued_total{queue}`: rows this process landed (a deduplicated enqueue lands none). */
  enqueued?(queue: string, rows: number): void;
}

/** One sink telling every sink of `sinks` (none: undefined, so a worker counts nothing at no cost). */
export function fanOutJobMetrics(sinks: readonly JobMetrics[]): JobMetrics | undefined {
  if (sinks.length === 0) return undefined;
  if (sinks.length === 1) return sinks[0];
  return {
    jobsTotal: (queue, outcome) => sinks.forEach((s) => s.jobsTotal(queue, outcome)),
    leaseLost: (queue) => sinks.forEach((s) => s.leaseLost(queue)),
    jobDuration: (queue, seconds) => sinks.forEach((s) => s.jobDuration?.(queue, seconds)),
    enqueued: (queue, rows) => sinks.forEach((s) => s.enqueued?.(queue, rows)),
  };
}

/** Metrics kept in memory: what `runJobs` hands its worker, for a test to read. */
export interface MemoryJobMetrics extends JobMetrics {
  /** `jobs_total` by `queue|outcome`. */
  readonly totals: Map<string, number>;
  /** Lost leases, by queue. */
  readonly leasesLost: Map<string, number>;
  /** The count of one `jobs_total` series. */
  total(queue: string, outcome: JobsTotalOutcome): number;
}

/** Creates {@link MemoryJobMetrics}. */
export function memoryJobMetrics(): MemoryJobMetrics {
  const totals = new Map<string, number>();
  const leasesLost = new Map<string, number>();
  return {
    totals,
    leasesLost,
    jobsTotal: (queue, outcome) => {
      const k = `${queue}|${outcome}`;
      totals.set(k, (totals.get(k) ?? 0) + 1);
    },
    leaseLost: (queue) => void leasesLost.set(queue, (leasesLost.get(queue) ?? 0) + 1),
    total: (queue, outcome) => totals.get(`${queue}|${outcome}`) ?? 0,
  };
}
