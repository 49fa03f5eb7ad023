/**
 * Scenario 1's job, shared by the spec (which enqueues it) and the worker entry (which runs it): three durable steps,
 * each body recording its execution into the ground truth before it returns.
 */
import { job, t, type EnqueueRequest, type JobRegistry } from '@ultimat3/jobs';
import type { TruthWriter } from '../../harness/ground-truth';
import { chaosRequest } from '../../harness/requests';

export const QUEUE = 'chaos-kills';
export const JOB = 'chaos.kills';
/** The steps every job runs, in order. */
export const STEPS = ['fetch', 'transform', 'store'] as const;
/** Enough attempts that no job is buried by kills alone: a job is hit by at most a few. */
export const MAX_ATTEMPTS = 25;

/** The request for job `n`, due now. */
export function killsRequest(n: number): EnqueueRequest {
  return chaosRequest({
    name: JOB,
    queue: QUEUE,
    input: { n },
    idempotencyKey: `n:${n}`,
    maxAttempts: MAX_ATTEMPTS,
  });
}

/** Registers the job; each step body records `body` (job, step, attempt, pid) and awaits its commit. */
export function registerKillsJob(registry: JobRegistry, truth: TruthWriter): void {
  registry.register(
    job({
      name: JOB,
      queue: QUEUE,
      input: t.object({ n: t.number }),
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: MAX_ATTEMPTS, backoff: 'fixed', delay: 20, jitter: false },
      run: async ({ input, step, attempt, jobId }) => {
        let carried = input.n;
        for (const name of STEPS) {
          carried = await step.run(name, async () => {
            await truth.record({ kind: 'body', jobId, attempt, step: name });
            return carried + 1;
          });
        }
        return carried;
      },
    }),
  );
}
