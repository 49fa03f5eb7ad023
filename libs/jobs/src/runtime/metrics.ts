/** The outcome label of `jobs_total`. */
export type JobsTotalOutcome = 'ok' | 'failed' | 'dead';

/**
 * What a worker counts, when one is handed to it (`jobWorker({ metrics })`; `JobsModule` hands none). The method docs
 * name the Prometheus-style series a sink would keep.
 */
export interface JobMetrics {
  /** `jobs_total{queue,outcome}`. */
  jobsTotal(queue: string, outcome: JobsTotalOutcome): void;
  /** `job_leases_lost_total{queue}`. */
  leaseLost(queue: string): void;
}

/** Metrics kept in memory: what `runJobs` hands its worker, for a test to read. */
export interface MemoryJobMetrics extends JobMetrics {
  /** `jobs_total` by `queue|outcome`. */
  readonly totals: Map<string, number>;
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
