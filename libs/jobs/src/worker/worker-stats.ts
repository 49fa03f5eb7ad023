import type { JobExecution, JobOutcome } from '../runtime/outcome';
import type { WorkerStats } from './worker-options';

/** A worker's counters as it updates them. */
export type MutableWorkerStats = { -readonly [K in keyof WorkerStats]: WorkerStats[K] };

/** The counters of a worker that has done nothing yet. */
export function emptyWorkerStats(): MutableWorkerStats {
  return {
    claimed: 0,
    completed: 0,
    retried: 0,
    deadLettered: 0,
    dropped: 0,
    suspended: 0,
    interrupted: 0,
    refused: 0,
    deferred: 0,
    inFlight: 0,
    claims: 0,
    leasesLost: 0,
    lastPassAt: 0,
    wakeLive: false,
    slots: 0,
  };
}

type Counter = {
  [K in keyof WorkerStats]: WorkerStats[K] extends number ? K : never;
}[keyof WorkerStats];

/** The counter each outcome adds to; `lost` counts nowhere (the claim that holds the row decides). */
const COUNTER: Readonly<Partial<Record<JobOutcome, Counter>>> = {
  completed: 'completed',
  retried: 'retried',
  'dead-lettered': 'deadLettered',
  dropped: 'dropped',
  suspended: 'suspended',
  interrupted: 'interrupted',
  refused: 'refused',
  deferred: 'deferred',
};

/** Counts an attempt's outcome. */
export function countOutcome(stats: MutableWorkerStats, execution: JobExecution): void {
  const counter = COUNTER[execution.outcome];
  if (counter !== undefined) stats[counter]++;
}
