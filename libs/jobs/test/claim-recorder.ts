import type { ClaimOptions, JobDriver } from '../src/driver/job-driver';
import { memoryJobDriver } from '../src/driver/memory';
import { frozenClock } from '../src/testing/frozen-clock';
import type { JobsHarness, RunJobsOptions } from '../src/testing/run-jobs';
import type { HarnessSlot } from './harness-slot';

/** A claim the worker sent: when, on the harness's clock, and what it asked for. */
export interface RecordedClaim {
  readonly at: number;
  readonly options: ClaimOptions;
}

/**
 * Starts a harness in `slot` on a frozen clock over a memory driver that notes each claim as it is sent (plain and
 * rescuing alike), so a spec reads the worker's passes — when each ran — off `claims`.
 */
export async function claimRecordingHarness(
  slot: HarnessSlot,
  options: Omit<RunJobsOptions, 'clock' | 'driver'>,
): Promise<{ h: JobsHarness; claims: RecordedClaim[] }> {
  const clock = frozenClock();
  const inner = memoryJobDriver({ clock });
  const claims: RecordedClaim[] = [];
  const driver: JobDriver = {
    ...inner,
    claimRescuing: (o, r) => {
      claims.push({ at: clock.now(), options: o });
      return inner.claimRescuing(o, r);
    },
    claim: (o) => {
      claims.push({ at: clock.now(), options: o });
      return inner.claim(o);
    },
  };
  const h = await slot.start({ ...options, clock, driver });
  return { h, claims };
}
