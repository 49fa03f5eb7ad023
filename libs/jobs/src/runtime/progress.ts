import type { ClaimRef, JobProgress } from '../driver/job-row';
import type { JobDriver } from '../driver/job-driver';
import type { Clock } from '../util/clock';
import { assertProgress } from '../values/progress';
import { boundedText } from '../values/text';

/** At most one progress write per run per this interval, plus the last before the settle. */
export const PROGRESS_INTERVAL_MS = 1_000;

/** A run's progress reporter: throttled writes, and a flush of the last one. */
export interface ProgressReporter {
  /** Throws `X_VALUE_INVALID` for a `done` or `total` that is not a whole number from 0 to 2^53 − 1. */
  report(done: number, total: number, note?: string): void;
  /** Writes the last reported progress if it was held back; awaited before the settle. */
  flush(): Promise<void>;
}

/** Creates the reporter of one attempt. Write failures are swallowed: progress is a report, never a reason to fail. */
export function progressReporter(
  driver: JobDriver,
  jobId: string,
  claim: ClaimRef,
  clock: Clock,
): ProgressReporter {
  let lastWriteAt = Number.NEGATIVE_INFINITY;
  let pending: JobProgress | undefined;
  let inFlight: Promise<unknown> = Promise.resolve();

  const write = (p: JobProgress): void => {
    lastWriteAt = clock.now();
    pending = undefined;
    inFlight = inFlight.then(() => driver.recordProgress(jobId, claim, p)).catch(() => undefined);
  };

  return {
    report(done, total, note) {
      const p: JobProgress =
        note === undefined ? { done, total } : { done, total, note: boundedText(String(note)) };
      // refused at the call, where the body can see it: a write failure later is swallowed
      assertProgress(p);
      if (clock.now() - lastWriteAt >= PROGRESS_INTERVAL_MS) write(p);
      else pending = p;
    },
    async flush() {
      if (pending !== undefined) write(pending);
      await inFlight;
    },
  };
}
