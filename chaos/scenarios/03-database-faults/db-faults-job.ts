/**
 * The job of scenario 3 (and 8): a few durable steps, each body recording its execution into the ground truth before
 * it returns (so before its step can be stored) and then taking a little time, so runs are in flight when a fault
 * lands. Many attempts with a short fixed backoff: a fault costs a run an attempt or two, never the job.
 */
import { job, t, uuidv7, type EnqueueRequest, type JobRegistry } from '@ultimat3/jobs';
import type { TruthWriter } from '../../harness/ground-truth';
import { chaosRequest } from '../../harness/requests';

/** The job's name and queue. */
export const FAULT_JOB = 'chaos.db-faults';
export const FAULT_QUEUE = 'chaos-db-faults';
/** The steps every job runs, in order. */
export const FAULT_STEPS = ['reserve', 'charge', 'notify'] as const;
/** Attempts per job: far more than the faults of one run can burn. */
export const FAULT_ATTEMPTS = 50;

/** Registers the job; each step body sleeps `stepMs` after recording itself. */
export function registerFaultJob(registry: JobRegistry, truth: TruthWriter, stepMs: number): void {
  registry.register(
    job({
      name: FAULT_JOB,
      queue: FAULT_QUEUE,
      input: t.object({ n: t.number }),
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: FAULT_ATTEMPTS, backoff: 'fixed', delay: 100, jitter: false },
      run: async ({ input, step, jobId, attempt }) => {
        for (const name of FAULT_STEPS) {
          await step.run(name, async () => {
            await truth.record({ kind: 'body', jobId, attempt, step: name });
            await new Promise((resolve) => setTimeout(resolve, stepMs));
            return input.n;
          });
        }
      },
    }),
  );
}

/** Job `n`'s request: ids fixed per `n` by the caller's table, so a batch sent again after a failure dedupes. */
export function faultJobRequests(total: number): (n: number) => EnqueueRequest {
  const ids = Array.from({ length: total }, () => uuidv7());
  return (n) =>
    chaosRequest({
      id: ids[n]!,
      name: FAULT_JOB,
      queue: FAULT_QUEUE,
      input: { n },
      idempotencyKey: `n:${n}`,
      runAt: 0,
      maxAttempts: FAULT_ATTEMPTS,
    });
}
