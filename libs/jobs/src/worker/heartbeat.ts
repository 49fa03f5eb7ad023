import type { JobDriver } from '../driver/job-driver';
import { claimOf, type ClaimedJob } from '../driver/job-row';
import { LeaseLostError } from '../errors/runtime-errors';
import type { JobMetrics } from '../runtime/metrics';
import type { Clock, TimerHandle } from '../util/clock';
import type { JobsLogger } from '../util/logger';

/** What a heartbeat renews and whom it tells. */
export interface HeartbeatOptions {
  readonly driver: JobDriver;
  readonly claimed: ClaimedJob;
  readonly clock: Clock;
  readonly logger: JobsLogger;
  readonly metrics?: JobMetrics;
  readonly visibilityTimeoutMs: number;
  readonly intervalMs: number;
  /** Called once when the lease is lost: the worker aborts the run with it. */
  readonly onLost: (error: LeaseLostError) => void;
}

/**
 * Renews one run's lease every `intervalMs`. A renewal that fails while the window still has room is
 * `jobs.heartbeat.failed` (warn); a whole window with none landing — or a renewal the row refused (re-delivered or
 * cancelled) — is `jobs.lease.lost` (error) plus `job_leases_lost_total`. Answers the stop: terminal for the renewal
 * already on the wire too, so a job that finished never reports a lost lease.
 */
export function startHeartbeat(o: HeartbeatOptions): () => void {
  let stopped = false;
  let timer: TimerHandle | undefined;
  let lastLanded = o.clock.now();
  const fields = {
    job: o.claimed.name,
    jobId: o.claimed.id,
    queue: o.claimed.queue,
    attempt: o.claimed.attempt,
  };

  const lose = (why: string): void => {
    if (stopped) return;
    stopped = true;
    o.logger.log('error', 'jobs.lease.lost', { ...fields, why });
    o.metrics?.leaseLost(o.claimed.queue);
    o.onLost(new LeaseLostError(o.claimed.id));
  };

  let inFlight = false;

  const tick = (): void => {
    if (stopped) return;
    // Measured from the last renewal that landed, so a heartbeat that hangs is caught like one that rejects.
    if (o.clock.now() - lastLanded >= o.visibilityTimeoutMs) return lose('window-passed');
    arm();
    if (inFlight) return;
    inFlight = true;
    o.driver.heartbeat(o.claimed.id, claimOf(o.claimed), o.visibilityTimeoutMs).then(
      (landed) => {
        inFlight = false;
        if (stopped) return;
        if (landed) lastLanded = o.clock.now();
        else lose('row-moved-on');
      },
      (error: unknown) => {
        inFlight = false;
        if (stopped) return;
        o.logger.log('warn', 'jobs.heartbeat.failed', {
          ...fields,
          error: error instanceof Error ? error.message : String(error),
        });
      },
    );
  };

  const arm = (): void => {
    if (stopped) return;
    timer = o.clock.setTimeout(tick, o.intervalMs);
  };

  arm();
  return () => {
    stopped = true;
    timer?.cancel();
  };
}
