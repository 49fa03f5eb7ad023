import type { AckOptions, JobDriver } from '../driver/job-driver';
import type { ClaimedJob } from '../driver/job-row';
import type { LeaseStore } from '../driver/lease-store';
import type { EventBus } from '../events/event-bus';
import type { RegisteredJob } from '../registry/job-registry';
import type { Clock } from '../util/clock';
import type { JobsLogger } from '../util/logger';
import type { JobMetrics } from './metrics';
import type { RunAbort } from './run-abort';

/**
 * What every attempt of one runner shares: a worker makes it once and hands it to each of its runs, so an attempt
 * copies no settings of its own.
 */
export interface AttemptEnv {
  readonly driver: JobDriver;
  readonly clock: Clock;
  readonly logger: JobsLogger;
  readonly events: EventBus;
  readonly metrics?: JobMetrics;
  /** The random source of jitter (tests pin it). */
  readonly random?: () => number;
  /** The fleet lease store `job.concurrency` is enforced through (default `driver.leases`). */
  readonly leases?: LeaseStore;
  /** The lease a held fleet slot lives for without renewal: the worker's visibility timeout (default 30 s). */
  readonly visibilityTimeoutMs?: number;
  /** How often a held fleet slot is renewed: the worker's heartbeat interval (default a third of the lease). */
  readonly heartbeatIntervalMs?: number;
  /** How long a run a cap handed back waits before it is due again: one poll (default 250 ms). */
  readonly handBackMs?: number;
}

/** What one attempt needs. */
export interface ExecuteJobOptions extends AttemptEnv {
  /** The registered job for the row's name; undefined when this process does not know it. */
  readonly job: RegisteredJob | undefined;
  /** The claimed row the attempt runs. */
  readonly claimed: ClaimedJob;
  /** A signal the run follows: aborted on a drain (`X_DRAINING`), a lost lease or a cancel. */
  readonly signal?: AbortSignal;
  /**
   * The run's own abort, when the caller makes one per run: the attempt aborts it directly (deadline, lost fleet slot),
   * and its `AbortSignal` is made only if the body reads it. Takes the place of `signal`.
   */
  readonly abort?: RunAbort;
  /**
   * Told once the attempt's settle (ack or nack) was answered, before onSettled runs: from there the run holds no
   * lease, so a caller renewing it stops — a renewal after the ack would come back refused and read as a lost lease.
   */
  readonly onSettle?: (landed: boolean) => void;
  /**
   * Sends the completed attempt's ack (default `driver.ack`): a caller batching its acks, or handing the run's slot
   * on once the ack is sent, passes its own.
   */
  readonly ack?: (jobId: string, options: AckOptions) => Promise<boolean>;
}
