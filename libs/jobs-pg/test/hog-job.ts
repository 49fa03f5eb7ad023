import { job, t, type RunArgs } from '@ultimat3/jobs';

/** The input of `hog.work`. */
export interface HogInput {
  readonly n: number;
}

/**
 * `hog.work` on queue `hog`, with `run` for its body: declared alike by the CPU-bound spec's worker process
 * (`hog-worker.ts`, whose body holds the event loop) and by the spec's own worker (which re-takes the job).
 */
export const hogWork = (run: (args: RunArgs<HogInput>) => Promise<void>) =>
  job({
    name: 'hog.work',
    queue: 'hog',
    input: t.object({ n: t.number }),
    idempotencyKey: ({ n }) => `n:${n}`,
    tenant: 'none',
    run,
  });
