import type { AnyJobHandle } from '../declare/handle';
import type { JobRunContext, JobSettled, StepApi } from '../declare/run-args';
import { JobOnSettledFailedError } from '../errors/operator-errors';
import { InvariantError } from '../errors/runtime-errors';
import type { JobsLogger } from '../util/logger';
import { renderError } from './render-error';
import { withRunScope } from './run-context';

/** How many times a throwing onSettled is tried, back to back. */
export const ON_SETTLED_ATTEMPTS = 3;

/** What the hook's step API answers: it runs after the settle, so nothing it does could be stored as a step. */
const NO_STEP_FIX =
  "Do durable work in the job's run; for work that must follow the outcome, enqueue another job from onSettled.";
const noStep = (what: string): Promise<never> =>
  Promise.reject(
    new InvariantError(`onSettled runs after the settle and cannot ${what}.`, NO_STEP_FIX),
  );

/** A step API for the hook: it runs after the settle, so it has no durable steps of its own. */
const NO_STEPS: StepApi = {
  run: () => noStep('run a durable step'),
  sleep: () => noStep('sleep'),
  waitForEvent: () => noStep('wait for an event'),
};

/**
 * Tells the job's onSettled how the run ended: after the settle landed, under the job's tenant, up to three tries.
 * A hook that throws every time is logged `jobs.on-settled.failed` with `X_JOB_ON_SETTLED_FAILED` and never thrown:
 * the row, the outcome and the counters are already final.
 */
export async function notifyOnSettled(
  handle: AnyJobHandle,
  settled: JobSettled<unknown, unknown>,
  ctx: JobRunContext,
  logger: JobsLogger,
): Promise<void> {
  let last: unknown;
  for (let i = 0; i < ON_SETTLED_ATTEMPTS; i++) {
    try {
      await withRunScope({ ctx, step: NO_STEPS, logger }, () => handle.notifySettled(settled));
      return;
    } catch (error) {
      last = error;
    }
  }
  const failure = new JobOnSettledFailedError(handle.name, ON_SETTLED_ATTEMPTS, last);
  logger.log('error', 'jobs.on-settled.failed', {
    code: failure.code,
    job: handle.name,
    jobId: settled.jobId,
    outcome: settled.outcome,
    error: renderError(last),
  });
}
