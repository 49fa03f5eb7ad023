/**
 * Scenario 2's job, shared by the spec and the worker entry. One durable step `first`, then a tail outside any step;
 * the input's `hold` says where the run sits for `holdMs` of real time — inside the step (`step`: its write comes
 * after the hold) or in the tail (`tail`: its settle comes after the hold) — so a worker SIGSTOPped during the hold
 * resumes straight into that write.
 */
import { job, t, uuidv7, type EnqueueRequest, type JobRegistry } from '@ultimat3/jobs';
import { tellSpec } from '../../harness/child';
import type { TruthWriter } from '../../harness/ground-truth';
import { chaosRequest } from '../../harness/requests';

export const QUEUE = 'chaos-sigstop';
export const JOB = 'chaos.sigstop';
export const STEP = 'first';
/** The tail's side effect, recorded as `effect`. */
export const TAIL = 'tail';

/** Where a run holds: inside its step, or in its tail. */
export type Hold = 'step' | 'tail';

/** The request for one job holding at `hold` for `holdMs`. */
export function sigstopRequest(hold: Hold, holdMs: number): EnqueueRequest {
  const key = `${hold}:${uuidv7()}`;
  return chaosRequest({
    name: JOB,
    queue: QUEUE,
    input: { hold, holdMs, key },
    idempotencyKey: key,
    maxAttempts: 5,
  });
}

/**
 * Holds for `ms`, after telling the spec it does: the spec freezes the process on that message, so the freeze falls
 * inside the hold with the hold's timer already armed (frozen before its ground-truth write's answer was read, the
 * process would arm the timer only after resuming, behind the lease check it had postponed).
 */
function hold(jobId: string, ms: number): Promise<void> {
  const held = new Promise<void>((resolve) => setTimeout(resolve, ms));
  tellSpec('holding', { jobId });
  return held;
}

/** Registers the job; its step body and its tail record `body` / `effect` rows before they hold. */
export function registerSigstopJob(registry: JobRegistry, truth: TruthWriter): void {
  registry.register(
    job({
      name: JOB,
      queue: QUEUE,
      input: t.object({ hold: t.enum(['step', 'tail']), holdMs: t.number, key: t.string }),
      idempotencyKey: ({ key }) => key,
      tenant: 'none',
      retry: { attempts: 5, backoff: 'fixed', delay: 20, jitter: false },
      run: async ({ input, step, attempt, jobId }) => {
        await step.run(STEP, async () => {
          await truth.record({ kind: 'body', jobId, attempt, step: STEP });
          if (input.hold === 'step') await hold(jobId, input.holdMs);
          return attempt;
        });
        await truth.record({ kind: 'effect', jobId, attempt, step: TAIL });
        if (input.hold === 'tail') await hold(jobId, input.holdMs);
      },
    }),
  );
}
